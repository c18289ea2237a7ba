import GRDB

/// An error of the store: a stable `code` plus a human-readable detail.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The sample, device or checkpoint does not exist.
        case notFound
        /// The change contradicts what is stored: a session UUID already used, a session already ended, a
        /// checkpoint's append that does not follow the stored checkpoint.
        case conflict
        /// A stored series blob, JSON column or type identifier cannot be decoded.
        case corruptBlob
        /// A sample cannot be encoded (non-finite or out-of-order offsets).
        case invalidSample
        /// SQLITE_FULL: the disk or the database is full.
        case diskFull
        /// SQLITE_READONLY or a read-only connection: writes are refused.
        case readOnly
        /// SQLITE_BUSY / SQLITE_LOCKED: another process holds the database.
        case busy
        /// SQLITE_CORRUPT / SQLITE_NOTADB: the file is not a healthy database.
        case corruptDatabase
        /// SQLITE_CANTOPEN, SQLITE_IOERR and other I/O failures.
        case io
        /// Anything else SQLite reports (constraint violations, misuse).
        case database
    }

    public let code: Code
    public let detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(code.rawValue): \(detail)" }

    /// Maps any error thrown inside the store to a `StoreError`.
    static func wrap(_ error: any Error) -> StoreError {
        switch error {
        case let e as StoreError:
            return e
        case let e as SeriesCodingError:
            return StoreError(.corruptBlob, e.description)
        case let e as DatabaseError:
            return StoreError(code(for: e.resultCode), e.description)
        case is DecodingError:
            return StoreError(.corruptBlob, "\(error)")
        case is RowDecodingError:
            return StoreError(.corruptDatabase, "a stored value has the wrong type: \(error)")
        default:
            return StoreError(.database, "\(error)")
        }
    }

    static func code(for result: ResultCode) -> Code {
        switch result.primaryResultCode {
        case .SQLITE_FULL: .diskFull
        case .SQLITE_READONLY: .readOnly
        case .SQLITE_BUSY, .SQLITE_LOCKED: .busy
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: .corruptDatabase
        case .SQLITE_IOERR, .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH, .SQLITE_PROTOCOL: .io
        default: .database
        }
    }
}

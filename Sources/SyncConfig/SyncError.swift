/// An error of `heartd-sync` or a central read: a stable `code` plus a human-readable detail.
/// The detail never contains the password.
public struct SyncError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, Codable, CaseIterable {
        /// `sync.url` is missing or is not `postgres://user@host[:port]/database`.
        case invalidURL
        /// The URL carries a password: it belongs in `sync.password_file`, never on a command line.
        case passwordInURL
        /// The password file cannot be read.
        case passwordFile
        /// The TLS settings cannot be used (CA file unreadable, bad certificate).
        case tls
        /// The server refused the login (wrong user or password, no such database).
        case authentication
        /// The server cannot be reached, or the connection broke.
        case connection
        /// A connect or a batch took longer than the timeout (a stalled network); the connection was dropped.
        case timeout
        /// The central schema was written by a newer heartd; this one refuses to touch it.
        case schemaTooNew
        /// Another sync process holds this gateway (PostgreSQL advisory lock) or this store (local lock).
        case alreadyRunning
        /// The central database has delivered more than this store holds: the store was replaced or restored.
        case storeBehindCentral
        /// The local store cannot be read.
        case store
        /// Any other error the server reported.
        case server
    }

    public let code: Code
    public let detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(code.rawValue): \(detail)" }

    /// Errors after which retrying cannot help until someone changes something (configuration, the server, the store).
    public var isPermanent: Bool {
        switch code {
        case .invalidURL, .passwordInURL, .passwordFile, .tls, .authentication, .schemaTooNew, .storeBehindCentral:
            return true
        case .connection, .timeout, .alreadyRunning, .store, .server:
            return false
        }
    }
}

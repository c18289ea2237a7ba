import Glibc
import Posix

/// Why a replay input cannot be read at all (a bad *line* is a `ReplayIssue` and the rest is still read).
public struct ReplayError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, Codable {
        /// No such file (ENOENT, ENOTDIR).
        case notFound = "not-found"
        /// The file exists but this user may not read it (EACCES, EPERM).
        case permissionDenied = "permission-denied"
        /// The path names a directory.
        case isDirectory = "is-directory"
        /// Opening or reading failed for another reason (EIO, …).
        case readFailed = "read-failed"
    }

    public let code: Code
    /// The path as given (`-` for standard input).
    public let path: String
    public let detail: String

    public init(_ code: Code, path: String, detail: String) {
        self.code = code
        self.path = path
        self.detail = detail
    }

    public var description: String { "\(path): \(code.rawValue): \(detail)" }

    /// The error for a failed `open`/`read` with `errno`.
    static func system(_ errorNumber: Int32, path: String) -> ReplayError {
        let text = errnoText(errorNumber)
        switch errorNumber {
        case ENOENT, ENOTDIR: return ReplayError(.notFound, path: path, detail: text)
        case EACCES, EPERM: return ReplayError(.permissionDenied, path: path, detail: text)
        case EISDIR: return ReplayError(.isDirectory, path: path, detail: "is a directory, not a replay file")
        default: return ReplayError(.readFailed, path: path, detail: text)
        }
    }
}

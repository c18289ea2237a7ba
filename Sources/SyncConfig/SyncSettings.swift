import Foundation

/// The `[sync]` settings (docs/CONFIGURATION.md): where the central PostgreSQL is and how to deliver to it.
public struct SyncSettings: Sendable, Equatable {
    /// `sync.tls`, libpq's names: `disable` (plain TCP), `require` (encrypted, server not verified),
    /// `verify-full` (encrypted, certificate and host name verified against `ca_file` or the system roots).
    public enum TLSMode: String, Sendable, Equatable, CaseIterable {
        case disable
        case require
        case verifyFull = "verify-full"
    }

    /// `postgres://user@host[:port]/database`; empty means sync is not configured.
    public var url = ""
    public var tls: TLSMode = .verifyFull
    /// PEM file of the CA that signed the server's certificate; empty: the system's trust roots.
    public var caFile = ""
    /// File whose first line is the password; empty: `$CREDENTIALS_DIRECTORY/sync-password` when systemd
    /// passed that credential (`LoadCredential=`), else no password.
    public var passwordFile = ""
    /// This gateway's name in the central database; empty: the host name.
    public var gateway = ""
    /// Pause between two delivery rounds once caught up.
    public var intervalSeconds: Double = 2
    /// Changes (samples, sessions, deletions) per store read and at most per transaction.
    public var batchSize = 200
    /// Expanded rows (beats, heart-rate points; other changes count one) per transaction: a page is cut into
    /// transactions this large, the next prepared while the server writes the current one.
    public var batchRows = 20_000
    /// Longest a connect or one batch may take before the connection is dropped and retried.
    public var timeoutSeconds: Double = 30
    /// Longest pause between retries after failures (capped exponential backoff).
    public var retryMaxSeconds: Double = 60
    /// The sync process's state (`heartctl status` reads it) and, beside it, its lock (`<state_file>.lock`).
    public var stateFile = "/var/lib/heartd-sync/state.json"

    public init() {}

    /// The gateway name to use: `gateway`, or the host name.
    public var effectiveGateway: String {
        gateway.isEmpty ? ProcessInfo.processInfo.hostName : gateway
    }

    /// The password file to read, if any (see `passwordFile`).
    public func passwordPath(environment: [String: String]) -> String? {
        if !passwordFile.isEmpty { return passwordFile }
        guard let directory = environment["CREDENTIALS_DIRECTORY"] else { return nil }
        let path = directory + "/sync-password"
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// The password: the first line of the password file, or nil when there is none.
    public func password(environment: [String: String]) throws(SyncError) -> String? {
        guard let path = passwordPath(environment: environment) else { return nil }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw SyncError(.passwordFile, "cannot read the password file \(path)")
        }
        return String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
    }
}

/// A parsed `sync.url` / `heartctl --central` URL: `postgres://user@host[:port]/database`
/// (`postgresql://` too). A password in the URL is refused: it would show in `ps`, shell history and logs.
public struct CentralURL: Sendable, Equatable, CustomStringConvertible {
    public var user: String
    public var host: String
    public var port: Int
    public var database: String

    public init(_ text: String) throws(SyncError) {
        guard let components = URLComponents(string: text),
              components.scheme == "postgres" || components.scheme == "postgresql" else {
            throw SyncError(.invalidURL, "expected postgres://user@host[:port]/database, got '\(Self.redacted(text))'")
        }
        guard components.password == nil else {
            throw SyncError(.passwordInURL, "the URL must not contain a password; put it in sync.password_file")
        }
        guard let user = components.user, !user.isEmpty else { throw SyncError(.invalidURL, "the URL names no user") }
        guard let host = components.host, !host.isEmpty else { throw SyncError(.invalidURL, "the URL names no host") }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else {
            throw SyncError(.invalidURL, "the URL names no database (postgres://user@host/database)")
        }
        self.user = user.removingPercentEncoding ?? user
        self.host = host
        self.port = components.port ?? 5432
        self.database = database.removingPercentEncoding ?? database
    }

    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }

    /// The URL with anything between "://" and "@" replaced, for error messages.
    static func redacted(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text.range(of: "@", range: scheme.upperBound..<text.endIndex) else {
            return text
        }
        return text[..<scheme.upperBound] + "…" + text[at.lowerBound...]
    }
}

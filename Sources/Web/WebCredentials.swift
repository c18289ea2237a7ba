import Foundation
import HummingbirdBcrypt
import WebConfig

/// The viewer token and the coach password's bcrypt hash, read once at start from their files (`LoadCredential=`).
/// Changing the token and restarting revokes every viewer (sessions live in memory only).
public struct WebCredentials: Sendable {
    public var viewerToken: String?
    public var coachPasswordHash: String?

    public init(viewerToken: String? = nil, coachPasswordHash: String? = nil) {
        self.viewerToken = viewerToken
        self.coachPasswordHash = coachPasswordHash
    }

    /// Whether anything protects the service: without it, anyone who reaches the port is a viewer.
    public var isConfigured: Bool { viewerToken != nil || coachPasswordHash != nil }

    /// Reads the files `settings` and `$CREDENTIALS_DIRECTORY` name.
    public static func load(_ settings: WebSettings, environment: [String: String]) throws(WebError) -> WebCredentials {
        var credentials = WebCredentials()
        if let path = settings.viewerTokenPath(environment: environment) {
            let token = try firstLine(path)
            guard token.count >= 16 else {
                throw WebError(.credentialFile, "the viewer token in \(path) must be at least 16 characters")
            }
            credentials.viewerToken = token
        }
        if let path = settings.coachPasswordPath(environment: environment) {
            let hash = try firstLine(path)
            guard hash.hasPrefix("$2") else {
                throw WebError(.credentialFile, "\(path) must hold a bcrypt hash (heartd-web hash-password), not a password")
            }
            credentials.coachPasswordHash = hash
        }
        return credentials
    }

    /// Refuses a bind beyond loopback that nothing protects.
    public static func checkBind(_ settings: WebSettings, _ credentials: WebCredentials) throws(WebError) {
        guard settings.isLoopback || credentials.isConfigured else {
            throw WebError(.unprotectedBind, """
                web.host = \(settings.host) is not loopback and no credential is configured: set web.viewer_token_file \
                or web.coach_password_file (or LoadCredential=web-viewer-token / web-coach-password), or listen on 127.0.0.1
                """)
        }
    }

    /// Whether `token` is the viewer token (compared in constant time).
    public func isViewerToken(_ token: String) -> Bool {
        guard let viewerToken else { return false }
        return constantTimeEqual(Array(viewerToken.utf8), Array(token.utf8))
    }

    /// Whether `password` matches the coach's hash.
    public func isCoachPassword(_ password: String) -> Bool {
        guard let coachPasswordHash, !password.isEmpty else { return false }
        return Bcrypt.verify(password, hash: coachPasswordHash)
    }

    private static func firstLine(_ path: String) throws(WebError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw WebError(.credentialFile, "cannot read \(path)")
        }
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw WebError(.credentialFile, "\(path) is empty") }
        return trimmed
    }
}

func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for index in a.indices { difference |= a[index] ^ b[index] }
    return difference == 0
}

extension WebCredentials {
    /// The bcrypt hash of `password` (`heartd-web hash-password`).
    public static func hash(_ password: String, cost: UInt8 = 12) -> String {
        Bcrypt.hash(password, cost: cost)
    }
}

import Foundation
import HTTPTypes
import Hummingbird

/// Who a request is, and the checks of a state change (docs/WEB.md, "Security").
///
/// - A session cookie (HttpOnly, SameSite=Strict) gives its role; `?token=` on a page turns into one.
/// - `Authorization: Bearer <viewer token>` or `?token=` makes an API client a viewer.
/// - With no credential configured (loopback only), anyone is a viewer; nobody is a coach.
/// - A state change needs the coach's session, its CSRF token (`X-CSRF-Token` or the form's `csrf`), and an
///   `Origin`/`Sec-Fetch-Site` that is this site when the browser sends them.
public struct WebAccess: Sendable {
    public let credentials: WebCredentials
    public let sessions: WebSessions

    public init(credentials: WebCredentials, sessions: WebSessions) {
        self.credentials = credentials
        self.sessions = sessions
    }

    /// The caller's role and browser session, if any.
    public struct Caller: Sendable {
        public var role: WebRole?
        public var sessionID: String?
        public var session: WebSessions.Entry?
        /// The request carried the viewer token itself (not a cookie): a page then sets a cookie.
        public var presentedToken: Bool
    }

    public func caller(_ request: Request) -> Caller {
        if let id = request.cookies[WebSessions.cookieName]?.value, let entry = sessions.lookup(id) {
            return Caller(role: entry.role, sessionID: id, session: entry, presentedToken: false)
        }
        if let token = Self.bearer(request) ?? request.uri.queryParameters.get("token"), credentials.isViewerToken(token) {
            return Caller(role: .viewer, sessionID: nil, session: nil, presentedToken: true)
        }
        return Caller(role: credentials.isConfigured ? nil : .viewer, sessionID: nil, session: nil, presentedToken: false)
    }

    /// The caller, who must be at least `role`: 401 for nobody, 403 for a viewer where a coach is needed.
    public func require(_ role: WebRole, _ request: Request) throws -> Caller {
        let caller = caller(request)
        guard let have = caller.role else { throw HTTPError(.unauthorized, message: "log in or pass the viewer token") }
        guard have >= role else { throw HTTPError(.forbidden, message: "this needs the coach role") }
        return caller
    }

    /// A coach's state change: the coach role, a same-site request and the session's CSRF token.
    public func requireStateChange(_ request: Request, formToken: String?) throws -> Caller {
        try requireSameSite(request)
        let caller = try require(.coach, request)
        let sent = request.headers[.csrfToken] ?? formToken ?? ""
        guard let expected = caller.session?.csrf, constantTimeEqual(Array(expected.utf8), Array(sent.utf8)) else {
            throw HTTPError(.forbidden, message: "missing or wrong CSRF token")
        }
        return caller
    }

    /// Refuses a request a browser marks as cross-site (`Sec-Fetch-Site`) or whose `Origin` is another host.
    public func requireSameSite(_ request: Request) throws {
        if let site = request.headers[.secFetchSite], site != "same-origin", site != "none" {
            throw HTTPError(.forbidden, message: "cross-site request refused")
        }
        if let origin = request.headers[.origin] {
            let host = request.head.authority ?? ""
            guard let url = URL(string: origin), let originHost = url.host else {
                throw HTTPError(.forbidden, message: "cross-site request refused")
            }
            let originAuthority = url.port.map { "\(originHost):\($0)" } ?? originHost
            guard originAuthority == host else { throw HTTPError(.forbidden, message: "cross-site request refused") }
        }
    }

    static func bearer(_ request: Request) -> String? {
        guard let value = request.headers[.authorization], value.lowercased().hasPrefix("bearer ") else { return nil }
        return String(value.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    }

    /// The session cookie for `id`.
    func cookie(_ id: String) -> Cookie {
        Cookie(name: WebSessions.cookieName, value: id, maxAge: Int(sessions.lifetime), path: "/", httpOnly: true, sameSite: .strict)
    }
}

extension HTTPField.Name {
    static let csrfToken = HTTPField.Name("X-CSRF-Token")!
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
    static let contentSecurityPolicy = HTTPField.Name("Content-Security-Policy")!
    static let xContentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
}

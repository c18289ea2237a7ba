import Hummingbird
import HummingbirdWebSocket
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import WebConfig

/// heartd-web's HTTP application: the routes (WebRoutes+*.swift) behind the security headers, HTTP/1 with the
/// WebSocket upgrade for `/api/live`.
public struct WebApplication: Sendable {
    public let settings: WebSettings
    public let fanout: LiveFanout
    public let access: WebAccess
    public let limiter: LoginLimiter
    public let control: any SessionControl
    /// The People and Nearby pages' calls.
    public let people: any PeopleControl
    public let logger: Logger
    /// HTTPS with this, else plain HTTP (`WebTLS`).
    public let tls: TLSConfiguration?

    public init(settings: WebSettings, credentials: WebCredentials, fanout: LiveFanout, control: any SessionControl,
                tls: TLSConfiguration? = nil, people: any PeopleControl = NoPeopleControl(), logger: Logger) {
        self.settings = settings
        self.tls = tls
        self.fanout = fanout
        self.access = WebAccess(credentials: credentials, sessions: WebSessions())
        self.limiter = LoginLimiter(perMinute: settings.loginAttemptsPerMinute)
        self.control = control
        self.people = people
        self.logger = logger
    }

    public func router() -> Router<WebRequestContext> {
        let router = Router(context: WebRequestContext.self)
        router.add(middleware: SecurityHeadersMiddleware())
        addPages(to: router)
        addAPI(to: router)
        addLive(to: router)
        addSessions(to: router)
        addPeople(to: router)
        return router
    }

    /// The application; `onListening` gets the bound port (the configured one, or the kernel's for port 0).
    public func application(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) throws -> some ApplicationProtocol {
        let router = router()
        let http: HTTPServerBuilder = .http1WebSocketUpgrade(webSocketRouter: router)
        return Application(
            router: router,
            server: try tls.map { try .tls(http, tlsConfiguration: $0) } ?? http,
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: nil),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? settings.port) },
            logger: logger)
    }
}

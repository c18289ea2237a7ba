import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The request context of every route: the core storage, the WebSocket handler slot (for `/api/live`), the
/// connection (to drop a browser that reads too slowly) and the peer's address (to rate-limit logins).
public struct WebRequestContext: RequestContext, WebSocketRequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let webSocket: WebSocketHandlerReference<Self>
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        channel = source.channel
    }

    public var remoteAddress: SocketAddress? { channel.remoteAddress }

    /// The peer's IP address as text ("unknown" when the channel has none).
    var peerAddress: String { remoteAddress?.ipAddress ?? "unknown" }
}

import Hummingbird
import HummingbirdWebSocket
import NIOCore
import NIOWebSocket

/// The live streams: `/api/live` (WebSocket) and `/api/events` (Server-Sent Events), one JSON message per update,
/// the first a snapshot; the query string's `LiveFilter` says which. A client that falls `web.client_buffer`
/// messages behind is disconnected.
extension WebApplication {
    func addLive(to router: Router<WebRequestContext>) {
        let access = access
        let fanout = fanout
        router.ws("/api/live", shouldUpgrade: { request, _ in
            _ = try access.require(.viewer, request)
            _ = try LiveFilter(query: Self.query(request))
            return .upgrade([:])
        }, onUpgrade: { inbound, _, context in
            // The fan-out writes this browser's frames on its channel itself (`WebSocketSink`): no task per page.
            let channel = context.requestContext.channel
            let filter = (try? LiveFilter(query: Self.query(context.request))) ?? LiveFilter()
            guard let id = fanout.subscribe(filter, sink: WebSocketSink(channel: channel, limit: fanout.clientBuffer)) else { return }
            defer { fanout.unsubscribe(id) }
            // Client frames are read and ignored (pings are answered below us); the loop ends when it closes.
            for try await _ in inbound {}
        })
        router.get("/api/events") { request, context -> Response in
            _ = try access.require(.viewer, request)
            let filter = try LiveFilter(query: Self.query(request))
            let channel = context.channel
            let messages = fanout.subscribe(filter, drop: { channel.close(promise: nil) })
            return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
                            body: ResponseBody { writer in
                                for await frame in messages {
                                    var event = ByteBuffer(string: "data: ")
                                    event.writeImmutableBuffer(frame)
                                    event.writeString("\n\n")
                                    try await writer.write(event)
                                }
                                try await writer.finish(nil)
                            })
        }
    }

    /// The request's query string as a dictionary (the first value of a repeated key).
    static func query(_ request: Request) -> [String: String] {
        Dictionary(request.uri.queryParameters.map { (String($0.key), String($0.value)) }, uniquingKeysWith: { a, _ in a })
    }
}

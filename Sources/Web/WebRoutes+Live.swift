import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The live streams: `/api/live` (WebSocket) and `/api/events` (Server-Sent Events), one JSON message per update,
/// the first a snapshot. A client that falls `web.client_buffer` messages behind is disconnected.
extension WebApplication {
    func addLive(to router: Router<WebRequestContext>) {
        let access = access
        let fanout = fanout
        router.ws("/api/live", shouldUpgrade: { request, _ in
            _ = try access.require(.viewer, request)
            return .upgrade([:])
        }, onUpgrade: { inbound, outbound, context in
            let channel = context.requestContext.channel
            let messages = fanout.subscribe(drop: { channel.close(promise: nil) })
            try await withThrowingTaskGroup(of: Void.self) { group in
                // Client frames are read and ignored (pings are answered below us); the loop ends when it closes.
                group.addTask { for try await _ in inbound {} }
                group.addTask { for await line in messages { try await outbound.write(.text(line)) } }
                _ = try await group.next()
                group.cancelAll()
            }
        })
        router.get("/api/events") { request, context -> Response in
            _ = try access.require(.viewer, request)
            let channel = context.channel
            let messages = fanout.subscribe(drop: { channel.close(promise: nil) })
            return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
                            body: ResponseBody { writer in
                                for await line in messages {
                                    try await writer.write(ByteBuffer(string: "data: \(line)\n\n"))
                                }
                                try await writer.finish(nil)
                            })
        }
    }
}

import NIOCore
import NIOWebSocket
import Synchronization

/// Where `LiveFanout` hands one browser its messages: each a JSON line in a shared buffer, one WebSocket frame or
/// SSE event per message. `send` never waits; it says `.behind` when the browser has `limit` messages waiting
/// unread, and the fan-out then drops it (`drop`).
public protocol LiveSink: Sendable {
    /// Queues `frames` (in order) for the browser; `.behind` when that would leave more than its bound waiting.
    func send(_ frames: [ByteBuffer]) -> LiveSinkResult
    /// Ends the browser's stream: the service stops.
    func finish()
    /// Closes the browser's connection: it reads too slowly.
    func drop()
}

/// What `LiveSink.send` did.
public enum LiveSinkResult: Sendable, Hashable {
    case queued
    /// The browser reads too slowly: its bound is reached and it is to be dropped.
    case behind
}

/// A browser read through an `AsyncStream` its own task drains (Server-Sent Events, tests): bounded at `limit`
/// buffers; `drop` closes its connection.
public struct StreamSink: LiveSink {
    let continuation: AsyncStream<ByteBuffer>.Continuation
    let closeConnection: @Sendable () -> Void

    public static func make(limit: Int, drop: @escaping @Sendable () -> Void) -> (AsyncStream<ByteBuffer>, StreamSink) {
        let (stream, continuation) = AsyncStream.makeStream(of: ByteBuffer.self, bufferingPolicy: .bufferingNewest(limit))
        return (stream, StreamSink(continuation: continuation, closeConnection: drop))
    }

    public func send(_ frames: [ByteBuffer]) -> LiveSinkResult {
        for frame in frames {
            if case .dropped = continuation.yield(frame) { return .behind }
        }
        return .queued
    }

    public func finish() { continuation.finish() }

    public func drop() {
        continuation.finish()
        closeConnection()
    }
}

/// A WebSocket browser written to directly on its channel's event loop: a batch of messages is one hop, one text
/// frame each, and one write and flush (one `writev`), with no task of its own to wake. The frames are written as
/// bytes by a handler put just below the pipeline's `WebSocketFrameEncoder` (`RawFrameWriter`): one pass down the
/// pipeline per batch instead of two writes per frame (a pipeline without that encoder, a test's, gets
/// `WebSocketFrame`s). A message counts as waiting until NIO has written it to the socket; more than `limit`
/// waiting (the browser stopped reading, the socket's buffer is full) is `.behind`.
public final class WebSocketSink: LiveSink {
    let channel: any Channel
    let limit: Int
    private let waiting = Atomic<Int>(0)
    /// How this channel takes frames; found at the first send, on the channel's loop (nil until then).
    private let writer: NIOLoopBoundBox<Writer?>

    private enum Writer {
        case raw(RawFrameWriter)
        case frames
    }

    public init(channel: any Channel, limit: Int) {
        self.channel = channel
        self.limit = limit
        writer = NIOLoopBoundBox.makeEmptyBox(valueType: Writer.self, eventLoop: channel.eventLoop)
    }

    /// Messages handed to the channel and not yet written to its socket.
    public var waitingCount: Int { waiting.load(ordering: .relaxed) }

    public func send(_ frames: [ByteBuffer]) -> LiveSinkResult {
        guard !frames.isEmpty else { return .queued }
        let count = frames.count
        guard waiting.add(count, ordering: .relaxed).newValue <= limit else {
            waiting.subtract(count, ordering: .relaxed)  // not queued
            return .behind
        }
        let channel = channel
        channel.eventLoop.execute { [self] in
            let written = channel.eventLoop.makePromise(of: Void.self)
            written.futureResult.whenComplete { _ in self.waiting.subtract(count, ordering: .relaxed) }
            if case .raw(let raw) = findWriter() {
                var bytes = channel.allocator.buffer(capacity: frames.reduce(0) { $0 + $1.readableBytes + 10 })
                for frame in frames { RawFrameWriter.appendTextFrame(frame, to: &bytes) }
                raw.writeAndFlush(bytes, promise: written)
                return
            }
            for frame in frames.dropLast() {
                channel.write(WebSocketFrame(fin: true, opcode: .text, data: frame), promise: nil)
            }
            channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, data: frames[frames.count - 1]), promise: written)
        }
        return .queued
    }

    public func finish() { channel.close(promise: nil) }

    public func drop() { channel.close(promise: nil) }

    /// On the loop: the raw writer below the frame encoder (put there now if there is an encoder), else `.frames`.
    private func findWriter() -> Writer {
        if let known = writer.value { return known }
        let pipeline = channel.pipeline.syncOperations
        var found = Writer.frames
        if let encoder = try? pipeline.handler(type: WebSocketFrameEncoder.self) {
            let raw = RawFrameWriter()
            if (try? pipeline.addHandler(raw, position: .before(encoder))) != nil { found = .raw(raw) }
        }
        writer.value = found
        return found
    }
}

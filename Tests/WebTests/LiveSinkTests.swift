import Foundation
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Synchronization
import Testing
import TestBus
import Web

/// `WebSocketSink`: the fan-out writes a window's messages on the browser's channel, one text frame each and one
/// flush; a browser whose socket takes nothing more is dropped once `limit` messages wait for it.
@Suite struct LiveSinkTests {
    @Test func aWindowsUpdatesGoOutAsFramesWithOneFlush() async throws {
        let fixture = WebFixture(devices: [WebFixture.device("AA:00:00:00:00:01")], window: .milliseconds(300))
        let run = Task { try await fixture.fanout.run() }
        defer { run.cancel() }
        #expect(await eventually { fixture.source.subscribers == 1 })
        let flushes = FlushCounter()
        let channel = NIOAsyncTestingChannel()
        try await channel.pipeline.addHandler(flushes)
        let sink = WebSocketSink(channel: channel, limit: 16)
        _ = try #require(fixture.fanout.subscribe(sink: sink))
        let snapshot = try await channel.waitForOutboundWrite(as: WebSocketFrame.self)
        #expect(snapshot.opcode == .text && snapshot.fin && String(buffer: snapshot.data).contains(#""type":"snapshot""#))
        #expect(await eventually { flushes.count == 1 })
        // Three updates in one window: three text frames, in order, and one flush for them.
        for bpm in [101, 102, 103] { fixture.source.send(.device(WebFixture.device("AA:00:00:00:00:01", bpm: bpm))) }
        for bpm in [101, 102, 103] {
            let frame = try await channel.waitForOutboundWrite(as: WebSocketFrame.self)
            #expect(frame.opcode == .text && frame.fin && String(buffer: frame.data).contains("\"bpm\":\(bpm)"))
        }
        #expect(await eventually { flushes.count == 2 && sink.waitingCount == 0 })
    }

    /// Behind a real frame encoder the window's frames go out as bytes, all in one buffer and one flush, each an
    /// unmasked final text frame (a 16-bit length past 125 bytes).
    @Test func behindAFrameEncoderAWindowIsOneBufferOfTextFrames() async throws {
        let fixture = WebFixture(devices: [WebFixture.device("AA:00:00:00:00:01")], window: .milliseconds(300))
        let run = Task { try await fixture.fanout.run() }
        defer { run.cancel() }
        #expect(await eventually { fixture.source.subscribers == 1 })
        let flushes = ByteFlushCounter()
        let channel = NIOAsyncTestingChannel()
        try await channel.pipeline.addHandler(flushes)
        try await channel.testingEventLoop.executeInContext { try channel.pipeline.syncOperations.addHandler(WebSocketFrameEncoder()) }
        let sink = WebSocketSink(channel: channel, limit: 16)
        _ = try #require(fixture.fanout.subscribe(sink: sink))
        let snapshot = Self.textFrames(try await channel.waitForOutboundWrite(as: ByteBuffer.self))
        #expect(snapshot.count == 1 && snapshot[0].contains(#""type":"snapshot""#))
        for bpm in [101, 102, 103] { fixture.source.send(.device(WebFixture.device("AA:00:00:00:00:01", bpm: bpm))) }
        let window = Self.textFrames(try await channel.waitForOutboundWrite(as: ByteBuffer.self))
        #expect(window.count == 3)
        for (frame, bpm) in zip(window, [101, 102, 103]) {
            #expect(frame.hasPrefix(#"{"device":"#) && frame.contains("\"bpm\":\(bpm)") && frame.hasSuffix("}"))
        }
        #expect(await eventually { flushes.count == 2 && sink.waitingCount == 0 })
    }

    /// The payloads of the final, unmasked text frames `bytes` holds (a last entry says what else it held).
    static func textFrames(_ bytes: ByteBuffer) -> [String] {
        var bytes = bytes
        var frames: [String] = []
        while let head = bytes.readInteger(as: UInt8.self), let short = bytes.readInteger(as: UInt8.self) {
            guard head == 0x81, short & 0x80 == 0 else { return frames + ["not a final unmasked text frame"] }
            var length = Int(short)
            if short == 126 { length = Int(bytes.readInteger(as: UInt16.self) ?? 0) }
            if short == 127 { length = Int(bytes.readInteger(as: UInt64.self) ?? 0) }
            guard let payload = bytes.readString(length: length) else { return frames + ["a frame cut short"] }
            frames.append(payload)
        }
        return frames
    }

    /// A browser that connects while a window gathers gets its snapshot and then only what came after it.
    @Test func aBrowserJoiningMidWindowGetsNothingOlderThanItsSnapshot() async throws {
        let fixture = WebFixture(devices: [WebFixture.device("AA:00:00:00:00:01")], window: .milliseconds(300))
        let run = Task { try await fixture.fanout.run() }
        defer { run.cancel() }
        #expect(await eventually { fixture.source.subscribers == 1 })
        var early = fixture.fanout.subscribe(drop: {}).map { String(buffer: $0) }.makeAsyncIterator()
        _ = await early.next()
        fixture.source.send(.device(WebFixture.device("AA:00:00:00:00:01", bpm: 101)))
        #expect(await eventually { fixture.fanout.pendingCount == 1 })
        var late = fixture.fanout.subscribe(drop: {}).map { String(buffer: $0) }.makeAsyncIterator()
        #expect(try #require(await late.next()).contains(#""bpm":101"#))  // the snapshot
        fixture.source.send(.device(WebFixture.device("AA:00:00:00:00:01", bpm: 102)))
        #expect(try #require(await early.next()).contains(#""bpm":101"#))
        #expect(try #require(await early.next()).contains(#""bpm":102"#))
        #expect(try #require(await late.next()).contains(#""bpm":102"#))
    }

    @Test func aWebSocketWhoseSocketTakesNothingIsDroppedAtItsBound() async throws {
        let fixture = WebFixture(clientBuffer: 16, window: .zero)
        let run = Task { try await fixture.fanout.run() }
        defer { run.cancel() }
        #expect(await eventually { fixture.source.subscribers == 1 })
        let stuck = NIOAsyncTestingChannel(), reader = NIOAsyncTestingChannel()
        try await stuck.pipeline.addHandler(HeldWrites())  // a browser that stopped reading: nothing is ever written
        try await stuck.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1))
        _ = try #require(fixture.fanout.subscribe(sink: WebSocketSink(channel: stuck, limit: 16)))
        _ = try #require(fixture.fanout.subscribe(sink: WebSocketSink(channel: reader, limit: 16)))
        _ = try await reader.waitForOutboundWrite(as: WebSocketFrame.self)
        for bpm in 60..<100 {
            fixture.source.send(.device(WebFixture.device("AA:00:00:00:00:01", bpm: bpm)))
            let frame = try await reader.waitForOutboundWrite(as: WebSocketFrame.self)
            #expect(String(buffer: frame.data).contains("\"bpm\":\(bpm)"))
        }
        #expect(await eventually { fixture.fanout.droppedCount == 1 && fixture.fanout.clientCount == 1 })
        #expect(await eventually { !stuck.isActive })
    }

    /// The path browsers take (frames written as bytes by `RawFrameWriter`, below a real frame encoder): a browser
    /// whose socket takes nothing more holds at most `limit` messages' bytes in heartd-web, then is dropped and
    /// counted, its held writes released; a browser that reads gets every update.
    @Test func aStuckBrowserBehindTheFrameEncoderCostsBoundedBytesThenIsDropped() async throws {
        let fixture = WebFixture(clientBuffer: 16, window: .zero)
        let run = Task { try await fixture.fanout.run() }
        defer { run.cancel() }
        #expect(await eventually { fixture.source.subscribers == 1 })
        let stuck = NIOAsyncTestingChannel(), reader = NIOAsyncTestingChannel()
        let held = HeldBytes()
        try await stuck.pipeline.addHandler(held)  // a browser that stopped reading: its socket takes nothing
        try await stuck.testingEventLoop.executeInContext { try stuck.pipeline.syncOperations.addHandler(WebSocketFrameEncoder()) }
        try await stuck.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1))
        let sink = WebSocketSink(channel: stuck, limit: 16)
        _ = try #require(fixture.fanout.subscribe(sink: sink))
        _ = try #require(fixture.fanout.subscribe(sink: WebSocketSink(channel: reader, limit: 16)))
        _ = try await reader.waitForOutboundWrite(as: WebSocketFrame.self)
        var mostWaiting = 0
        for bpm in 60..<100 {
            fixture.source.send(.device(WebFixture.device("AA:00:00:00:00:01", bpm: bpm)))
            let frame = try await reader.waitForOutboundWrite(as: WebSocketFrame.self)
            #expect(String(buffer: frame.data).contains("\"bpm\":\(bpm)"))
            mostWaiting = max(mostWaiting, sink.waitingCount)
        }
        #expect(await eventually { fixture.fanout.droppedCount == 1 && fixture.fanout.clientCount == 1 })
        #expect(await eventually { !stuck.isActive })
        let writes = held.writes
        // Every write reached the socket as whole text frames in one buffer (RawFrameWriter's), the snapshot and
        // then one message each, never more than the bound.
        #expect(!writes.isEmpty && writes.allSatisfy { buffer in
            let frames = Self.textFrames(buffer)
            return !frames.isEmpty && frames.allSatisfy { $0.hasPrefix("{") && $0.hasSuffix("}") }
        })
        let messages = writes.map { Self.textFrames($0).count }.reduce(0, +)
        #expect(mostWaiting <= 16 && messages <= 16 && messages >= 2)
        #expect(await eventually { held.pending == 0 && sink.waitingCount == 0 })  // released when dropped
    }
}

/// Holds every write (bytes, below the frame encoder) unfinished, as a socket whose peer reads nothing does once
/// its buffer is full; closing fails them.
final class HeldBytes: ChannelOutboundHandler, @unchecked Sendable {
    typealias OutboundIn = ByteBuffer
    private let lock = NSLock()
    private var held: [(ByteBuffer, EventLoopPromise<Void>?)] = []
    private var failed = 0

    var writes: [ByteBuffer] { lock.withLock { held.map(\.0) } }
    var pending: Int { lock.withLock { held.count - failed } }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let bytes = unwrapOutboundIn(data)
        lock.withLock { held.append((bytes, promise)) }
    }

    func flush(context: ChannelHandlerContext) {}

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        let promises = lock.withLock { () -> [EventLoopPromise<Void>?] in
            defer { failed = held.count }
            return held.dropFirst(failed).map(\.1)
        }
        for promise in promises { promise?.fail(ChannelError.ioOnClosedChannel) }
        context.close(mode: mode, promise: promise)
    }
}

/// Counts flushes on their way out.
final class FlushCounter: ChannelOutboundHandler, Sendable {
    typealias OutboundIn = WebSocketFrame
    private let flushes = Atomic(0)
    var count: Int { flushes.load(ordering: .relaxed) }

    func flush(context: ChannelHandlerContext) {
        flushes.add(1, ordering: .relaxed)
        context.flush()
    }
}

/// Holds every write unfinished, as a socket whose peer reads nothing does once its buffer is full.
final class HeldWrites: ChannelOutboundHandler, @unchecked Sendable {
    typealias OutboundIn = WebSocketFrame
    private var held: [EventLoopPromise<Void>?] = []  // only touched on the channel's event loop

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        held.append(promise)
    }

    func flush(context: ChannelHandlerContext) {}

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        for promise in held { promise?.fail(ChannelError.ioOnClosedChannel) }
        held = []
        context.close(mode: mode, promise: promise)
    }
}

/// Counts flushes on their way out, below the frame encoder.
final class ByteFlushCounter: ChannelOutboundHandler, Sendable {
    typealias OutboundIn = ByteBuffer
    private let flushes = Atomic(0)
    var count: Int { flushes.load(ordering: .relaxed) }

    func flush(context: ChannelHandlerContext) {
        flushes.add(1, ordering: .relaxed)
        context.flush()
    }
}

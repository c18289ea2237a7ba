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

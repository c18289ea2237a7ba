@testable import BlueZ
import DBus
import Foundation
import Glibc
import Synchronization
import Testing

/// Many AcquireNotify readers share one epoll thread (`heartd-notify`), on real SOCK_SEQPACKET socket pairs.
@Suite final class AcquiredNotifyPollerTests {
    /// Each test's own notify thread, as a capture client has one.
    let poller = AcquiredNotifyPoller()
    init() { poller.start() }
    deinit { poller.stop() }

    typealias Received = AcquiredNotifyReaderTests.Received

    /// The kernel names of this process's threads (what top -H and perf show).
    struct Stream {
        let writer: Int32
        let received: Received
        let reader: AcquiredNotifyReader
    }

    func streams(_ n: Int, batching: ReadBatching = .off) throws -> [Stream] {
        try (0..<n).map { _ in
            let (rfd, wfd) = try AcquiredNotifyReaderTests.pair()
            let r = Received()
            let reader = AcquiredNotifyReader(poller: poller, fd: rfd, mtu: 23, batching: batching,
                                              onValues: { batch in r.note(batch) },
                                              onClosed: { r.closed.withLock { $0 = true } })
            return Stream(writer: wfd, received: r, reader: reader)
        }
    }

    static func bytes(_ stream: Int, _ i: Int) -> [UInt8] { [0x00, UInt8(stream), UInt8(i & 0xFF)] }

    /// Failed before: each reader had its own thread (12 readers, 12 heartd-notify threads).
    @Test func oneThreadReadsEverySocketInOrderWithKernelTimes() async throws {
        let streams = try self.streams(12)
        defer { for s in streams { s.reader.close(); close(s.writer) } }
        let before = Date()
        for i in 0..<50 {
            for (k, s) in streams.enumerated() { AcquiredNotifyReaderTests.send(s.writer, Self.bytes(k, i)) }
            if i % 10 == 0 { try await Task.sleep(for: .milliseconds(5)) }
        }
        try await AcquiredNotifyReaderTests.waitUntil { streams.allSatisfy { $0.received.all.count == 50 } }
        for (k, s) in streams.enumerated() {
            let got = s.received.all
            #expect(got.map(\.bytes) == (0..<50).map { Self.bytes(k, $0) })
            #expect(got.allSatisfy { $0.wall >= before.addingTimeInterval(-0.001) && $0.wall <= Date() })
            #expect(zip(got, got.dropFirst()).allSatisfy { $0.wall <= $1.wall && $0.monotonic <= $1.monotonic + 1e-6 })
        }
        let threads = streams.reduce(into: Set<String>()) { $0.formUnion($1.received.threads.withLock { $0 }) }
        #expect(threads.count == 1, "every socket read on one thread: \(threads)")
        let tid = threads.first.map { String($0.split(separator: "/").last ?? "") } ?? ""
        #expect(tid == poller.threadID.map { "\($0)" }, "the poller's own thread")
        #expect(Self.notifyThreadIDs().contains(tid), "named heartd-notify")
    }

    /// The thread runs from `start()` to `stop()`: a capture client's poller is no process-wide singleton.
    @Test func stopEndsTheThread() async throws {
        let other = AcquiredNotifyPoller()
        #expect(other.threadID == nil, "no thread before start()")
        other.start()
        try await AcquiredNotifyReaderTests.waitUntil { other.threadID != nil }
        let tid = try #require(other.threadID)
        try await AcquiredNotifyReaderTests.waitUntil { Self.notifyThreadIDs().contains("\(tid)") }
        #expect(Self.notifyThreadIDs().contains("\(tid)"), "a thread named heartd-notify")
        other.stop()
        try await AcquiredNotifyReaderTests.waitUntil { !FileManager.default.fileExists(atPath: "/proc/self/task/\(tid)") }
        #expect(!FileManager.default.fileExists(atPath: "/proc/self/task/\(tid)"), "its thread ended")
        #expect(other.threadID == nil)
    }

    /// The kernel ids of the process's `heartd-notify` threads.
    static func notifyThreadIDs() -> Set<String> {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return Set(tasks.filter { tid in
            (try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) == "heartd-notify"
        })
    }

    /// The batching pause applies to the thread as a whole: 8 sockets ticking every 2 ms (4000 values a second)
    /// are each read once per pause, not once per value. The bound is aBusySocketIsReadInBatches's.
    @Test func manyBusySocketsAreReadInBatches() async throws {
        let streams = try self.streams(8, batching: ReadBatching(interval: .milliseconds(50)))
        defer { for s in streams { s.reader.close(); close(s.writer) } }
        let clock = ContinuousClock(), started = clock.now
        for i in 0..<100 {
            for (k, s) in streams.enumerated() { AcquiredNotifyReaderTests.send(s.writer, Self.bytes(k, i)) }
            try await Task.sleep(for: .milliseconds(2))
        }
        let sending = clock.now - started
        try await AcquiredNotifyReaderTests.waitUntil { streams.allSatisfy { $0.received.all.count == 100 } }
        let bound = max(20, 2 * Int(sending / .milliseconds(50)) + 6)
        for (k, s) in streams.enumerated() {
            #expect(s.received.all.map(\.bytes) == (0..<100).map { Self.bytes(k, $0) })
            #expect(s.received.readCount <= min(bound, 50), "reads: \(s.received.readCount), sending took \(sending)")
        }
    }

    @Test func aPeerClosingEndsOnlyItsReader() async throws {
        let streams = try self.streams(4)
        // Writer 1 is closed by the test: closing its number again could close another test's descriptor.
        defer { for (k, s) in streams.enumerated() { s.reader.close(); if k != 1 { close(s.writer) } } }
        for (k, s) in streams.enumerated() { AcquiredNotifyReaderTests.send(s.writer, Self.bytes(k, 0)) }
        AcquiredNotifyReaderTests.send(streams[1].writer, Self.bytes(1, 1))  // queued before EOF: delivered
        close(streams[1].writer)
        try await AcquiredNotifyReaderTests.waitUntil { streams[1].received.closed.withLock { $0 } }
        #expect(streams[1].received.all.map(\.bytes) == [Self.bytes(1, 0), Self.bytes(1, 1)])
        for k in [0, 2, 3] { AcquiredNotifyReaderTests.send(streams[k].writer, Self.bytes(k, 1)) }
        try await AcquiredNotifyReaderTests.waitUntil { [0, 2, 3].allSatisfy { streams[$0].received.all.count == 2 } }
        for k in [0, 2, 3] {
            #expect(streams[k].received.all.map(\.bytes) == [Self.bytes(k, 0), Self.bytes(k, 1)])
            #expect(streams[k].received.closed.withLock { $0 } == false)
        }
    }

    @Test func closingOneWhileOthersStreamStopsOnlyIt() async throws {
        let streams = try self.streams(4)
        defer { for s in streams { s.reader.close(); close(s.writer) } }
        for i in 0..<100 {
            for (k, s) in streams.enumerated() { AcquiredNotifyReaderTests.send(s.writer, Self.bytes(k, i)) }
            if i == 40 {
                try await AcquiredNotifyReaderTests.waitUntil { streams[2].received.all.count > 0 }
                streams[2].reader.close()
            }
            try await Task.sleep(for: .milliseconds(1))
        }
        let frozen = streams[2].received.all.count  // after close() returned, nothing more arrives for it
        try await AcquiredNotifyReaderTests.waitUntil {
            [0, 1, 3].allSatisfy { streams[$0].received.all.count == 100 }
        }
        try await Task.sleep(for: .milliseconds(50))  // a check that nothing more arrives for the closed one
        #expect(streams[2].received.all.count == frozen)
        #expect(frozen <= 41)
        #expect(streams[2].received.closed.withLock { $0 } == false, "our own close is not the peer's")
        for k in [0, 1, 3] { #expect(streams[k].received.all.map(\.bytes) == (0..<100).map { Self.bytes(k, $0) }) }
    }

    @Test func closeFromItsOwnCallbackDoesNotDeadlock() async throws {
        let (rfd, wfd) = try AcquiredNotifyReaderTests.pair()
        defer { close(wfd) }
        let calls = Mutex(0)
        let slot = Mutex<AcquiredNotifyReader?>(nil)
        let reader = AcquiredNotifyReader(poller: poller, fd: rfd, mtu: 23, batching: .off,
                                          onValues: { _ in calls.withLock { $0 += 1 }; slot.withLock { $0?.close() } },
                                          onClosed: {})
        slot.withLock { $0 = reader }
        AcquiredNotifyReaderTests.send(wfd, [0x00, 60])
        try await AcquiredNotifyReaderTests.waitUntil { calls.withLock { $0 } == 1 }
        AcquiredNotifyReaderTests.send(wfd, [0x00, 61])
        try await Task.sleep(for: .milliseconds(100))  // a check that nothing happens: the closed reader takes no more
        #expect(calls.withLock { $0 } == 1)
        // The poller still serves others.
        let others = try self.streams(1)
        defer { others[0].reader.close(); close(others[0].writer) }
        AcquiredNotifyReaderTests.send(others[0].writer, [0x00, 62])
        try await AcquiredNotifyReaderTests.waitUntil { others[0].received.all.count == 1 }
        #expect(others[0].received.all.count == 1)
    }
}

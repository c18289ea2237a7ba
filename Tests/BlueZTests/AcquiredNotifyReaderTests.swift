@testable import BlueZ
import DBus
import Foundation
import Posix
import Synchronization
import Testing
import Glibc

/// The AcquireNotify reader on a real SOCK_SEQPACKET socket pair (what bluetoothd hands over).
@Suite final class AcquiredNotifyReaderTests {
    /// Each test's own notify thread, as a capture client has one.
    let poller = AcquiredNotifyPoller()
    init() { poller.start() }
    deinit { poller.stop() }

    final class Received: Sendable {
        let reads = Mutex<[[NotifyDatagram]]>([])
        let closed = Mutex(false)
        /// The threads (`PID/task/TID`) the reads ran on.
        let threads = Mutex<Set<String>>([])

        func note(_ batch: [NotifyDatagram]) {
            let thread = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? "?"
            reads.withLock { $0.append(batch) }
            threads.withLock { _ = $0.insert(thread) }
        }
        var all: [NotifyDatagram] { reads.withLock { $0.flatMap { $0 } } }
        var readCount: Int { reads.withLock { $0.count } }
    }

    /// Like bluetoothd's: SOCK_SEQPACKET | SOCK_NONBLOCK (the lab showed the flag reaches our end).
    static func pair(nonBlocking: Bool = true) throws -> (reader: Int32, writer: Int32) {
        var fds: [Int32] = [-1, -1]
        // CLOEXEC: processes other tests spawn meanwhile must not inherit the writer (its close would not be EOF).
        let type = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
            | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        guard socketpair(AF_UNIX, type, 0, &fds) == 0 else {
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        return (fds[0], fds[1])
    }

    static func send(_ fd: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    static func waitUntil(_ seconds: Double = 5, _ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
    }

    func start(_ fd: Int32, batching: ReadBatching, into r: Received) -> AcquiredNotifyReader {
        AcquiredNotifyReader(poller: poller, fd: fd, mtu: 23, batching: batching,
                             onValues: { batch in r.note(batch) },
                             onClosed: { r.closed.withLock { $0 = true } })
    }

    @Test func everyDatagramArrivesInOrderWithItsKernelTime() async throws {
        let (rfd, wfd) = try Self.pair()
        defer { close(wfd) }
        let r = Received()
        let before = Date()
        // Queue a burst before the reader starts: one read takes them together, each with its own time.
        for i in 0..<40 { Self.send(wfd, [0x06, UInt8(60 + i)]) }
        let reader = start(rfd, batching: .off, into: r)
        try await Self.waitUntil { r.all.count == 40 }
        let got = r.all
        #expect(got.map(\.bytes) == (0..<40).map { [0x06, UInt8(60 + $0)] })
        #expect(r.readCount < 40, "a burst should be read with recvmmsg in a few calls, not one per datagram")
        // Kernel times: not before the sends, not after now, in order, and monotonic times consistent with them.
        #expect(got.allSatisfy { $0.wall >= before.addingTimeInterval(-0.001) && $0.wall <= Date() })
        #expect(zip(got, got.dropFirst()).allSatisfy { $0.wall <= $1.wall && $0.monotonic <= $1.monotonic + 1e-6 })
        reader.close()
        try await Task.sleep(for: .milliseconds(100))  // let the thread leave; onClosed must not run for our own close
        #expect(r.closed.withLock { $0 } == false)
    }

    @Test func timesAreWhenTheDatagramArrivedNotWhenItWasRead() async throws {
        let (rfd, wfd) = try Self.pair()
        defer { close(wfd) }
        let r = Received()
        #expect(AcquiredNotifyReader.enableTimestamps(rfd))  // as the reader does on a fresh socket
        Self.send(wfd, [0x00, 70])
        let sent = Date()
        try await Task.sleep(for: .milliseconds(300))  // the datagram waits in the socket: read 300 ms after it came
        let reader = start(rfd, batching: .off, into: r)
        defer { reader.close() }
        try await Self.waitUntil { r.all.count == 1 }
        let d = try #require(r.all.first)
        #expect(abs(d.wall.timeIntervalSince(sent)) < 0.1, "kernel timestamp, not the read 300 ms later")
        #expect(MonotonicClock.now() - d.monotonic >= 0.25)
    }

    /// Failed before (found in the lab with real bluetoothd): on a non-blocking socket the first empty read
    /// (EAGAIN) was taken for the end of the stream, so every AcquireNotify session ended at once.
    @Test(arguments: [true, false])
    func anIdleSocketIsWaitedOnNotTakenForClosed(nonBlocking: Bool) async throws {
        let (rfd, wfd) = try Self.pair(nonBlocking: nonBlocking)
        defer { close(wfd) }
        let r = Received()
        let reader = start(rfd, batching: .off, into: r)
        defer { reader.close() }
        try await Task.sleep(for: .milliseconds(200))  // nothing to read yet
        #expect(r.closed.withLock { $0 } == false)
        Self.send(wfd, [0x00, 64])
        try await Self.waitUntil { r.all.count == 1 }
        #expect(r.all.map(\.bytes) == [[0x00, 64]])
        #expect(r.closed.withLock { $0 } == false)
    }

    /// Failed before: values followed by the peer's close in one read came with ~30 empty "values" (recvmmsg fills
    /// the rest of the batch with zero-length entries at EOF), each counted as malformed.
    @Test func valuesRightBeforeThePeerClosesAreDeliveredWithoutPhantoms() async throws {
        let (rfd, wfd) = try Self.pair()
        for i in 0..<3 { Self.send(wfd, [0x00, UInt8(60 + i)]) }
        close(wfd)
        let r = Received()
        let reader = start(rfd, batching: .off, into: r)
        try await Self.waitUntil { r.closed.withLock { $0 } }
        #expect(r.closed.withLock { $0 })
        #expect(r.all.map(\.bytes) == [[0x00, 60], [0x00, 61], [0x00, 62]])
        reader.close()
    }

    @Test func peerCloseEndsTheReaderButAnEmptyDatagramDoesNot() async throws {
        let (rfd, wfd) = try Self.pair()
        let r = Received()
        let reader = start(rfd, batching: .off, into: r)
        Self.send(wfd, [])
        Self.send(wfd, [0x00, 72])
        try await Self.waitUntil { r.all.count == 2 }
        #expect(r.all.map(\.bytes) == [[], [0x00, 72]])
        #expect(r.closed.withLock { $0 } == false)
        close(wfd)
        try await Self.waitUntil { r.closed.withLock { $0 } }
        #expect(r.closed.withLock { $0 })
        reader.close()  // after the peer closed: harmless
    }

    @Test func aBusySocketIsReadInBatches() async throws {
        let (rfd, wfd) = try Self.pair()
        defer { close(wfd) }
        let r = Received()
        let reader = start(rfd, batching: ReadBatching(interval: .milliseconds(50)), into: r)
        defer { reader.close() }
        // 200 datagrams at 1 ms intervals: unbatched that is ~200 reads; with 50 ms batches one read per 50 ms of
        // sending plus a few. 20 are allowed, or more when sending took longer: on a loaded machine the 1 ms sleeps
        // stretch (reads 27 at load 19).
        let clock = ContinuousClock(), started = clock.now
        for i in 0..<200 {
            Self.send(wfd, [0x00, UInt8(i & 0xFF)])
            try await Task.sleep(for: .milliseconds(1))
        }
        let sending = clock.now - started
        try await Self.waitUntil { r.all.count == 200 }
        #expect(r.all.count == 200)
        let bound = max(20, 2 * Int(sending / .milliseconds(50)) + 6)
        #expect(r.readCount <= min(bound, 100), "reads: \(r.readCount), sending took \(sending)")
        #expect(zip(r.all, r.all.dropFirst()).allSatisfy { $0.monotonic <= $1.monotonic + 1e-6 })
    }
}

@Suite struct ReadBatchingTests {
    @Test func pausesOnlyWhenBusyAndNoReplyIsAwaited() {
        let b = ReadBatching(interval: .milliseconds(100))
        let ms: UInt64 = 1_000_000
        #expect(b.pauseMilliseconds == 100)
        #expect(b.shouldPause(wake: 1000 * ms, lastWake: 950 * ms, pendingCalls: 0))       // 50 ms apart: busy
        #expect(b.shouldPause(wake: 1000 * ms, lastWake: 810 * ms, pendingCalls: 0))       // 190 ms: still busy
        #expect(!b.shouldPause(wake: 1000 * ms, lastWake: 700 * ms, pendingCalls: 0))      // 300 ms: quiet
        #expect(!b.shouldPause(wake: 1000 * ms, lastWake: 950 * ms, pendingCalls: 1))      // a reply is awaited
        #expect(!b.shouldPause(wake: 1000 * ms, lastWake: 0, pendingCalls: 0))             // first wake-up
        #expect(!ReadBatching.off.shouldPause(wake: 1000 * ms, lastWake: 999 * ms, pendingCalls: 0))
        // A long interval still calls only more than two wake-ups a second busy: a sensor at 1/s (or two) would
        // otherwise get an extra wake-up at the end of every pause.
        let long = ReadBatching(interval: .milliseconds(500))
        #expect(long.shouldPause(wake: 1000 * ms, lastWake: 600 * ms, pendingCalls: 0))     // 400 ms: busy
        #expect(!long.shouldPause(wake: 1000 * ms, lastWake: 20 * ms, pendingCalls: 0))     // 980 ms: a sensor at 1/s
        #expect(!long.shouldPause(wake: 1000 * ms, lastWake: 490 * ms, pendingCalls: 0))    // 510 ms: two sensors
    }

    /// The bus's batching (StartNotify values are stamped when read): sensor streams are read at once, so their
    /// arrival times stay exact enough for the timeline model; only a bus above 50 wake-ups a second waits.
    @Test func keepingArrivalTimesPausesOnlyAboveFiftyWakeUpsASecond() {
        let b = ReadBatching(interval: .milliseconds(500)).keepingArrivalTimes
        let ms: UInt64 = 1_000_000
        #expect(b.pauseMilliseconds == 500)
        #expect(!b.shouldPause(wake: 1000 * ms, lastWake: 600 * ms, pendingCalls: 0))    // two sensors at 1/s
        #expect(!b.shouldPause(wake: 1000 * ms, lastWake: 975 * ms, pendingCalls: 0))    // ten sensors at 4/s
        #expect(b.shouldPause(wake: 1000 * ms, lastWake: 990 * ms, pendingCalls: 0))     // 100 a second
    }
}

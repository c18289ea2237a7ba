import Control
import Foundation
import Glibc
@testable import HeartdKit
import Synchronization
import TestBus
import Testing

/// Store reads run beside capture, never in its way: each on a thread of its own at nice 10, at most `max_reads` at
/// once; one more is refused with `busy` at once, and the slot is free again when a read ends.
struct StoreReadThreadsTests {
    @Test func aReadRunsOnALowPriorityThreadOfItsOwn() async throws {
        let reads = StoreReadThreads(limit: 2)
        let (name, nice) = try await reads.run { () throws(ControlError) -> (String, Int32) in
            errno = 0
            let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            return (comm.trimmingCharacters(in: .whitespacesAndNewlines), getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
        }
        #expect(name == "heartd-read")
        #expect(nice == StoreReadThreads.niceness)
        // The caller's own thread keeps its priority.
        #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) < StoreReadThreads.niceness)
    }

    @Test func pastTheLimitAReadIsRefusedWithBusy() async throws {
        let reads = StoreReadThreads(limit: 1)
        let release = Atomic<Bool>(false)
        let started = Atomic<Bool>(false)
        let first = Task {
            try await reads.run { () throws(ControlError) -> Int in
                started.store(true, ordering: .relaxed)
                while !release.load(ordering: .relaxed) { usleep(1_000) }
                return 1
            }
        }
        #expect(await eventually(timeout: 5, every: .milliseconds(2)) { started.load(ordering: .relaxed) })
        do {
            _ = try await reads.run { () throws(ControlError) -> Int in 2 }
            Issue.record("a second read ran past max_reads = 1")
        } catch {
            #expect(error.code == .busy && error.message.contains("max_reads"))
        }
        release.store(true, ordering: .relaxed)
        #expect(try await first.value == 1)
        #expect(try await reads.run { () throws(ControlError) -> Int in 3 } == 3)
    }
}

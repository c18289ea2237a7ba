import Foundation
import Testing
import TestBus

/// The waiter behind heartbench's and the tests' per-process figures reports the tool's own wall time, from fork to
/// its end: heartbench's `heartctl --db` reads were timed around the python waiter, whose start (~0.15 s) made a
/// 30-ms first page read 0.2 s.
@Suite struct PeakMemoryWaiterTests {
    @Test func theWaiterReportsTheToolsPeakStatusAndOwnWallTime() throws {
        let r = try runTool("/usr/bin/python3", ["-c", PeakMemoryWaiter.script, "/dev/null", "/bin/sleep", "0.3"], timeout: 30)
        let run = try #require(PeakMemoryWaiter.parseRun(r.out), "waiter printed: \(r.out) \(r.err)")
        #expect(run.status == 0)
        #expect(run.peakKiB > 0)
        #expect(run.wallSeconds >= 0.3, "sleep 0.3 took \(run.wallSeconds) s by the waiter's clock")
        let failing = try #require(PeakMemoryWaiter.parseRun(
            try runTool("/usr/bin/python3", ["-c", PeakMemoryWaiter.script, "/dev/null", "/bin/false"], timeout: 30).out))
        #expect(failing.status == 1)
        #expect(PeakMemoryWaiter.parseRun("123 0") == nil, "two fields are not a run")
    }
}

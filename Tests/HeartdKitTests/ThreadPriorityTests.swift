import Foundation
import TestBus
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// libdispatch renices its worker threads after their QoS class, and its manager thread asks for nice -4; an
/// unprivileged daemon is refused (EACCES) and libdispatch logs "Failed to set thread priority for worker thread"
/// — an error line in heartd's journal that is no error. heartd.service grants the nice range it needs
/// (`LimitNICE=`) and lets setpriority(2) through its system-call filter; this runs the real daemon as another uid
/// under the unit's RLIMIT_NICE (libdispatch logging to stderr instead of syslog) and reads what it says.
/// (A container without CAP_SYS_RESOURCE cannot raise RLIMIT_NICE, so there the runtime test is skipped; the
/// systemd lab, scripts/sdlab-test.sh, checks the same in the journal of the installed unit.)
@Suite("heartd under the unit's nice limit")
struct ThreadPriorityTests {
    /// Root with setpriv and prlimit, and allowed to raise RLIMIT_NICE.
    static let canRunAsAnotherUidWithNiceLimit: Bool = {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
              FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit") else { return false }
        return (try? runTool("/usr/bin/prlimit", ["--nice=24", "/bin/true"]).status) == 0
    }()

    static func unitPath(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../systemd/\(name)").standardized.path
    }
    static let unit = unitPath("heartd.service")
    static let complaint = "Failed to set thread priority"

    /// The RLIMIT_NICE value systemd sets for the unit's `LimitNICE=` (a nice level n becomes 20 - n).
    static func unitNiceLimit(_ path: String = unit) throws -> Int? {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("LimitNICE=") }) else { return nil }
        let value = line.dropFirst("LimitNICE=".count)
        guard let number = Int(value) else { return nil }
        return value.hasPrefix("-") || value.hasPrefix("+") ? 20 - number : number
    }

    /// heartd --simulate as uid 65534 for 3 s with RLIMIT_NICE `limit`: what libdispatch and heartd wrote to stderr.
    static func daemonOutput(niceLimit limit: Int) throws -> String {
        let dir = try TestDirectory("nice")
        defer { dir.remove() }
        chmod(dir.path, 0o777)
        _ = FileManager.default.createFile(atPath: dir.file("heartd.toml"), contents: Data())
        let heartd = try BuiltProducts.path("heartd")
        let run = try runTool("/usr/bin/env", [
            "LIBDISPATCH_LOG=stderr", "/usr/bin/timeout", "-s", "INT", "3",
            "/usr/bin/prlimit", "--nice=\(limit)", "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
            heartd, "--simulate", "--db", dir.file("heart.db"), "--socket", dir.file("control.sock"),
            "--set", "control.group=\"\"", "--config", dir.file("heartd.toml"), "--log-target", "stderr",
        ])
        #expect(run.out.contains("heartd started") || run.err.contains("heartd started"), "\(run.out)\(run.err)")
        return run.out + run.err
    }

    @Test("the unit's LimitNICE= covers what libdispatch asks for: no complaint in the log",
          .enabled(if: canRunAsAnotherUidWithNiceLimit, "needs root, setpriv, prlimit and CAP_SYS_RESOURCE"))
    func unitLimitSilencesLibdispatch() throws {
        let limit = try #require(try Self.unitNiceLimit(), "heartd.service sets LimitNICE=")
        let output = try Self.daemonOutput(niceLimit: limit)
        #expect(!output.contains(Self.complaint), "\(output)")
        // Without it libdispatch does complain (if it ever stops asking, LimitNICE= can go).
        #expect(try Self.daemonOutput(niceLimit: 0).contains(Self.complaint))
    }

    /// Every unit: `heartd-sync` and `heartd-mqtt` run on the same Swift runtime (libdispatch's queues and timers, NIO's hand-offs).
    @Test("the unit lets setpriority(2) through its system-call filter, after the line that removes @resources",
          arguments: ["heartd.service", "heartd-sync.service", "heartd-mqtt.service"])
    func unitAllowsSetpriority(_ name: String) throws {
        let path = Self.unitPath(name)
        #expect(try Self.unitNiceLimit(path) == 24, "LimitNICE=-4: the manager thread's nice value")
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        let removal = try #require(lines.firstIndex { $0.hasPrefix("SystemCallFilter=~") && $0.contains("@resources") })
        #expect(lines[(removal + 1)...].contains { $0.hasPrefix("SystemCallFilter=") && !$0.contains("~") && $0.contains("setpriority") })
    }
}

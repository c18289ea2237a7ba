import ArgumentParser
import Capture
import Foundation
import SourceEvents

/// `heartbench capture`: the CPU of heartd's BlueZ capture client alone, in this process, against the project's fake
/// BlueZ on a private bus (the fake and the bus are other processes): per notification by subscription mode and rate,
/// with the events dropped or handed to an empty handler; connected and silent; and a gateway of 16 sensors at 1/s
/// on 3 adapters of 6 slots. No pipeline, no store: what the client's read path costs before heartd does anything with
/// a value. The shipped daemon as a whole beside the C floor and bleak: scripts/bench-capture.sh and
/// scripts/bench/gateway-cpu.py (docs/BENCHMARKS.md).
struct CaptureBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture",
        abstract: "CPU of the BlueZ capture client alone: per notification, idle, and a 16-sensor gateway at 1/s.")

    @Option(help: "Notification rates per second for the per-notification rows (comma-separated).")
    var rates = "100,1000"
    @Option(help: "Seconds of streaming per rate.")
    var seconds = 10.0
    @Option(help: "Seconds connected and silent for the idle row.")
    var idleSeconds = 5.0
    @Option(help: "Seconds the 16 gateway sensors stream at 1/s.")
    var gatewaySeconds = 20
    @Option(help: "Also write the markdown report to this file.")
    var output: String?

    static let sensor = "A0:9E:1A:7C:00:01"
    static let gateway = (1...16).map { String(format: "A0:9E:1A:7C:10:%02X", $0) }

    static func policy(_ devices: [String], mode: SubscribeMode, silentStop: Double) -> CapturePolicy {
        CapturePolicy(allowList: Set(devices), subscribeMode: mode, silentStopTimeout: silentStop,
                      backoffInitial: 0.05, backoffMaximum: 0.4, connectTimeout: 5, resolveTimeout: 5)
    }

    func run() async throws {
        let rateList = try rates.split(separator: ",").map { text in
            guard let rate = Double(text), rate > 0 else { throw ValidationError("--rates: \(text) is not a rate") }
            return rate
        }
        var table = ResultTable()
        for mode in [SubscribeMode.startNotify, .acquireNotify] {
            for handler in [false, true] {
                progress("heartbench capture: one sensor, \(mode.rawValue), events \(handler ? "to a handler" : "drained") …")
                let rig = try await CaptureRig(devices: [Self.sensor], policy: Self.policy([Self.sensor], mode: mode, silentStop: 30),
                                               handler: handler)
                for rate in rateList {
                    let cost = try await rig.stream(rate: rate, count: Int(rate * seconds))
                    table.add("1 sensor, \(mode.rawValue), \(Int(rate))/s, events \(handler ? "to an empty handler" : "drained from the stream")",
                              heartd: "\(Fmt.fixed(cost.microsecondsPerNotification, 1)) µs / notification", baseline: "—",
                              target: "every notification received: \(cost.received) of \(cost.sent)",
                              verdict: Verdict(cost.received == cost.sent))
                }
                await rig.stop()
            }
        }
        progress("heartbench capture: connected and silent for \(idleSeconds) s …")
        let quiet = try await CaptureRig(devices: [Self.sensor], policy: Self.policy([Self.sensor], mode: .acquireNotify,
                                                                                     silentStop: idleSeconds + 30), handler: true)
        let idle = try await quiet.idle(seconds: idleSeconds)
        await quiet.stop()
        table.add("1 sensor connected and silent (acquire-notify), \(Fmt.fixed(idleSeconds, 0)) s",
                  heartd: "\(Fmt.fixed(idle.millisecondsPerSecond, 3)) ms CPU / s", baseline: "—",
                  target: "≈ 0: no periodic tick")
        for mode in [SubscribeMode.acquireNotify, .startNotify] {
            progress("heartbench capture: 16 sensors at 1/s on 3 adapters, \(mode.rawValue), \(gatewaySeconds) s …")
            var policy = Self.policy(Self.gateway, mode: mode, silentStop: 30)
            policy.adapterConnectionLimit = 6
            let rig = try await CaptureRig(devices: Self.gateway, policy: policy, handler: true,
                                           fakeArguments: ["--adapters", "hci0,hci1,hci2", "--slots", "6"])
            let cost = try await rig.stream(rate: 1, count: gatewaySeconds)
            await rig.stop()
            table.add("gateway: 16 sensors × 1/s on 3 adapters, \(mode.rawValue)",
                      heartd: "\(Fmt.fixed(cost.millisecondsPerSecond, 3)) ms CPU / s "
                          + "(\(Fmt.fixed(cost.microsecondsPerNotification, 1)) µs / notification)",
                      baseline: "the whole daemon: scripts/bench/gateway-cpu.py",
                      target: "≤ 0.5 ms/s for the whole daemon (issue 14)",
                      verdict: cost.received == cost.sent ? Verdict(cost.millisecondsPerSecond <= 0.5) : .missed)
            if cost.received != cost.sent { table.note("Gateway, \(mode.rawValue): \(cost.received) of \(cost.sent) notifications received.") }
        }
        table.note("CPU: this process's CPU clock (every thread: the client's D-Bus and AcquireNotify readers, the task that "
            + "drains events), from the first Stream request until capture counted every notification. The fake BlueZ "
            + "paces the notifications and runs in another process, as does the bus.")
        let report = BenchmarkReport.render(title: "heartbench capture", table: table, machine: MachineInfo.current(),
                                            sqliteVersion: "—", command: BenchmarkReport.commandLine)
        try BenchmarkReport.emit(report, to: output)
    }
}

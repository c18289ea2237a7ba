import Foundation
import Ingest
import Logging
import ServiceLifecycle
import Synchronization
import Systemd
import Timers
import LogFields

/// Runs capture: feeds the source's events to the pipeline, and ticks it (idle timeouts, checkpoints of a paused
/// stream, retries of a failing store) from one `DeadlineTimer` armed for the earliest deadline the pipeline
/// reports: no periodic wake-up. The systemd watchdog is pinged from the same timer only after the pipeline
/// answered, so a wedged pipeline stops the pings and systemd restarts the daemon. On graceful shutdown every
/// open series is finished and saved before `run` returns.
public struct IngestService: Service {
    let pipeline: IngestPipeline
    let source: any Source
    let gate: EventGate
    let notifier: SystemdNotifier?
    let logger: Logger

    public init(pipeline: IngestPipeline, source: any Source, gate: EventGate = EventGate(),
                notifier: SystemdNotifier?, logger: Logger) {
        self.pipeline = pipeline
        self.source = source
        self.gate = gate
        self.notifier = notifier
        self.logger = logger
    }

    /// Timer keys: the pipeline's next tick, and the next watchdog ping / STATUS line.
    static let pipelineKey = 0, systemdKey = 1

    public func run() async throws {
        let pipeline = self.pipeline, source = self.source
        let gate = self.gate
        let timer = try makeTimer()
        defer {
            pipeline.setDeadlineObserver(nil)
            timer.stop()
        }
        pipeline.setDeadlineObserver { timer.set(Self.pipelineKey, $0) }
        // Capture runs in its own task so that a shutdown can close the gate *before* cancelling it: the sessions'
        // disconnect events, emitted as they stop, must not finish the open series before finishAll(.shutdown).
        let work = Task {
            // Not `pipeline.consume`: a source that outruns the pipeline (the simulator at high speed) leaves a
            // backlog in its stream, and iterating it drains the backlog after cancellation, holding up shutdown
            // for as long as the backlog lasts. Stop at the first event after it.
            for await event in source.events() {
                if Task.isCancelled { return false }
                await pipeline.handle(event)
            }
            return !Task.isCancelled
        }
        let sourceEnded = await withGracefulShutdownHandler {
            await withTaskCancellationHandler { await work.value } onCancel: { work.cancel() }
        } onGracefulShutdown: {
            gate.close()
            work.cancel()
        }
        gate.close()
        try? notifier?.stopping(status: "finishing open series")
        await pipeline.finishAll(reason: .shutdown, at: .now())
        let sink = await pipeline.sinkStatus()
        if sink.queuedBeats > 0 {
            logger.error("store unavailable at shutdown: finished series still in memory are lost",
                         metadata: ["beats": "\(sink.queuedBeats)", LogField.messageID.key: "\(MessageID.storeError.hex)"])
        }
        logger.notice("capture stopped, open series finished")
        if sourceEnded {
            // Not a shutdown: the source gave up (the system bus went away). Exit with an error so that
            // systemd's Restart=on-failure starts a fresh daemon.
            throw DaemonError(.capture, "the capture source ended")
        }
    }

    /// The timer that ticks the pipeline and, under systemd, pings the watchdog (at half its interval) and
    /// refreshes STATUS (at least every 10 s).
    private func makeTimer() throws -> DeadlineTimer {
        let pipeline = self.pipeline, notifier = self.notifier
        let period = Self.systemdPeriod(notifier)
        let lastStatus = Mutex<Double>(-.infinity)
        let timer = try DeadlineTimer(name: "heartd-timer") { timer, now, _ in
            pipeline.tickLive(now: .now())
            guard let notifier, let period else { return }
            try? notifier.watchdog()
            if now - lastStatus.withLock({ $0 }) >= 10 {
                lastStatus.withLock { $0 = now }
                try? notifier.status(Self.statusLine(pipeline))
            }
            timer.set(Self.systemdKey, now + period)
        }
        if let period { timer.set(Self.systemdKey, DeadlineTimer.now() + min(period, 1)) }
        return timer
    }

    /// Seconds between watchdog pings and STATUS checks: half the watchdog interval, at most 10 s; `nil`
    /// when not run by systemd.
    static func systemdPeriod(_ notifier: SystemdNotifier?) -> Double? {
        guard let notifier, notifier.isEnabled else { return nil }
        guard let w = notifier.watchdogInterval else { return 10 }
        let c = w.components
        return min(10, max(0.01, (Double(c.seconds) + Double(c.attoseconds) / 1e18) / 2))
    }

    /// The one-line `STATUS=` systemd shows in `systemctl status heartd`.
    static func statusLine(_ pipeline: IngestPipeline) -> String {
        let devices = pipeline.statusNow()
        let connected = devices.filter(\.connected)
        guard !connected.isEmpty else { return "waiting for sensors (\(devices.count) known)" }
        let rates = connected.map { "\($0.device?.name ?? $0.address) \($0.currentBPM.map { "\($0) bpm" } ?? "-")" }
        return "capturing \(connected.count) sensor(s): " + rates.joined(separator: ", ")
    }
}

/// Serves the control socket until graceful shutdown.
public struct ControlService: Service {
    let server: ControlServerHandle

    public init(server: ControlServerHandle) {
        self.server = server
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await server.run()
        }
    }
}

import Foundation
import Ingest
import Logging
import ServiceLifecycle
import SourceEvents
import Synchronization
import Systemd
import Timers
import LogFields

/// Runs capture: feeds the source's events to the pipeline, and ticks it (idle timeouts, checkpoints of a paused
/// stream, retries of a failing store) from one `DeadlineTimer` armed for the earliest deadline the pipeline
/// reports: no periodic wake-up. The systemd watchdog is pinged from the same timer only after the pipeline
/// answered, so a wedged pipeline stops the pings and systemd restarts the daemon (`STATUS=` is not refreshed
/// here: `SystemdStatusLine` sends it when a sensor's state changes). On graceful shutdown every open series is
/// finished and handed to the store writer before `run` returns (`StoreWriterService`, which stops after this one,
/// writes it).
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

    /// Timer keys: the pipeline's next tick, and the next watchdog ping.
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

    /// The timer that ticks the pipeline and, under systemd with `WatchdogSec=`, pings the watchdog at half its
    /// interval.
    private func makeTimer() throws -> DeadlineTimer {
        let pipeline = self.pipeline, notifier = self.notifier
        let period = Self.watchdogPeriod(notifier)
        let timer = try DeadlineTimer(name: "heartd-timer") { timer, now, _ in
            pipeline.tickLive(now: .now())
            guard let notifier, let period else { return }
            try? notifier.watchdog()
            timer.set(Self.systemdKey, now + period)
        }
        if let period { timer.set(Self.systemdKey, DeadlineTimer.now() + min(period, 1)) }
        return timer
    }

    /// Seconds between watchdog pings: half the watchdog interval; `nil` without a watchdog (then nothing
    /// wakes the daemon for systemd at all).
    static func watchdogPeriod(_ notifier: SystemdNotifier?) -> Double? {
        guard let notifier, notifier.isEnabled, let w = notifier.watchdogInterval else { return nil }
        let c = w.components
        return max(0.01, (Double(c.seconds) + Double(c.attoseconds) / 1e18) / 2)
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

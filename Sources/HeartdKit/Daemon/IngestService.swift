import Foundation
import Ingest
import Logging
import ServiceLifecycle
import Systemd

/// Runs capture: feeds the source's events to the pipeline and ticks it once per checkpoint interval (idle
/// timeouts, checkpoints). The systemd watchdog is pinged from the tick loop only after the pipeline answered,
/// so a wedged pipeline stops the pings and systemd restarts the daemon. On graceful shutdown every open series
/// is finished and saved before `run` returns.
public struct IngestService: Service {
    let pipeline: IngestPipeline
    let source: any Source
    let gate: EventGate
    let tickInterval: Duration
    let notifier: SystemdNotifier?
    let logger: Logger

    public init(pipeline: IngestPipeline, source: any Source, gate: EventGate = EventGate(), tickInterval: Duration,
                notifier: SystemdNotifier?, logger: Logger) {
        self.pipeline = pipeline
        self.source = source
        self.gate = gate
        self.tickInterval = tickInterval
        self.notifier = notifier
        self.logger = logger
    }

    public func run() async throws {
        let pipeline = self.pipeline, source = self.source, tickInterval = self.tickInterval
        let notifier = self.notifier, logger = self.logger
        let gate = self.gate
        // Capture runs in its own task so that a shutdown can close the gate *before* cancelling it: the sessions'
        // disconnect events, emitted as they stop, must not finish the open series before finishAll(.shutdown).
        let work = Task {
            await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    // Not `pipeline.consume`: a source that outruns the pipeline (the simulator at high speed)
                    // leaves a backlog in its stream, and iterating it drains the backlog after cancellation,
                    // holding up shutdown for as long as the backlog lasts. Stop at the first event after it.
                    for await event in source.events() {
                        if Task.isCancelled { break }
                        await pipeline.handle(event)
                    }
                    return !Task.isCancelled
                }
                group.addTask {
                    var ticks = 0
                    while !Task.isCancelled {
                        try? await Task.sleep(for: tickInterval)
                        await pipeline.tick(now: .now())
                        try? notifier?.watchdog()
                        ticks += 1
                        if ticks % 10 == 1 { try? notifier?.status(await Self.statusLine(pipeline)) }
                    }
                    return false
                }
                // Either child ending (the source finished, or cancellation) ends the service.
                let ended = await group.next() ?? false
                group.cancelAll()
                return ended
            }
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
                         metadata: ["beats": "\(sink.queuedBeats)", "MESSAGE_ID": "\(MessageID.storeError.hex)"])
        }
        logger.notice("capture stopped, open series finished")
        if sourceEnded {
            // Not a shutdown: the source gave up (the system bus went away). Exit with an error so that
            // systemd's Restart=on-failure starts a fresh daemon.
            throw DaemonError(.capture, "the capture source ended")
        }
    }

    /// The one-line `STATUS=` systemd shows in `systemctl status heartd`.
    static func statusLine(_ pipeline: IngestPipeline) async -> String {
        let devices = await pipeline.status()
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

import Foundation
import HealthModel
import HeartdKit
import Ingest
import Logging
import ServiceLifecycle
import Testing

/// Graceful shutdown of capture, in process: a source that, like live BlueZ capture, reports its sensors'
/// links going down through the event gate while it stops.
@Suite struct IngestServiceShutdownTests {
    struct StopReportingSource: Source {
        let pipeline: IngestPipeline
        let gate: EventGate
        static let address = "A0:9E:1A:7C:00:01"

        func events() -> AsyncStream<SourceEvent> {
            let (stream, continuation) = AsyncStream<SourceEvent>.makeStream()
            let pipeline = self.pipeline, gate = self.gate
            let t0 = Timestamp.now()
            // Fed directly, as BlueZ capture feeds the pipeline on its reader threads.
            pipeline.handleNow(.connected(address: Self.address, device: DeviceInfo(localIdentifier: Self.address), at: t0))
            for i in 0..<10 {
                let at = Timestamp(wall: t0.wall.addingTimeInterval(Double(i) * 0.5), monotonic: t0.monotonic + Double(i) * 0.5)
                pipeline.handleNow(.notification(address: Self.address, bytes: [0x10, 120, 0x00, 0x02], at: at))
            }
            continuation.onTermination = { _ in
                // Stopping capture: each session reports its link as it goes (through the gate, like BlueZCapture).
                if gate.isOpen {
                    pipeline.handleNow(.disconnected(address: Self.address, reason: "capture-stopped", at: .now()))
                }
            }
            return stream
        }
    }

    /// Failed before: capture was cancelled before the gate closed, so the open series ended as "disconnect".
    @Test func openSeriesEndAsShutdownNotAsTheStopsDisconnects() async throws {
        let sink = InMemorySeriesSink()
        let pipeline = IngestPipeline(sink: sink)
        let gate = EventGate()
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let service = IngestService(pipeline: pipeline, source: StopReportingSource(pipeline: pipeline, gate: gate),
                                    gate: gate, tickInterval: .milliseconds(100), notifier: nil, logger: logger)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [.init(service: service)], logger: logger))
        let running = Task { try await group.run() }
        try await Task.sleep(for: .milliseconds(300))
        await group.triggerGracefulShutdown()
        try await running.value
        let reasons = sink.contents.saved.filter { $0.typeIdentifier == Sample.heartbeatSeriesIdentifier }
            .map { $0.metadata[MetadataKey.finishReason] }
        #expect(reasons == ["shutdown"])
        #expect(!gate.isOpen)
    }
}

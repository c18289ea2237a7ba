import Foundation
import HealthModel
import HeartdKit
import Ingest
import IngestTestSupport
import Logging
import Posix
import ServiceLifecycle
import SourceEvents
import Systemd
import TestBus
import Testing
import Glibc

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
                    pipeline.handleNow(.disconnected(address: Self.address, reason: .captureStopped, at: .now()))
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
                                    gate: gate, notifier: nil, logger: logger)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [.init(service: service)], logger: logger))
        let running = Task { try await group.run() }
        #expect(await eventually { !pipeline.openSeries().isEmpty }, "the source's values never reached the pipeline")
        await group.triggerGracefulShutdown()
        try await running.value
        let reasons = sink.contents.saved.filter { $0.typeIdentifier == Sample.heartbeatSeriesIdentifier }
            .map { $0.metadata[MetadataKey.finishReason] }
        #expect(reasons == ["shutdown"])
        #expect(!gate.isOpen)
    }
}

/// The systemd watchdog, pinged by the deadline timer (no periodic tick of its own).
@Suite struct IngestServiceWatchdogTests {
    /// A bound Unix datagram socket that counts what the service sends to it.
    final class NotifySocket {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        let path = NSTemporaryDirectory() + "heartd-notify-\(UUID().uuidString.prefix(8))"

        init() throws {
            let bound = try UnixSocketAddress(path).withSockaddr { bind(fd, $0, $1) }
            try #require(bound == 0)
        }

        deinit {
            close(fd)
            unlink(path)
        }

        /// Every datagram waiting now, as text.
        func drain() -> [String] {
            var out: [String] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if n <= 0 { return out }
                out.append(String(decoding: buffer.prefix(n), as: UTF8.self))
            }
        }
    }

    struct QuietSource: Source {
        func events() -> AsyncStream<SourceEvent> { AsyncStream { _ in } }
    }

    @Test func pingsAtHalfTheWatchdogInterval() async throws {
        let socket = try NotifySocket()
        let notifier = try SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "200000"])
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let service = IngestService(pipeline: IngestPipeline(sink: InMemorySeriesSink()), source: QuietSource(),
                                    notifier: notifier, logger: logger)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [.init(service: service)], logger: logger))
        let running = Task { try await group.run() }
        try await Task.sleep(for: .milliseconds(1050))  // a window of fixed length: the pings in it are counted
        let pings = socket.drain().filter { $0 == "WATCHDOG=1" }.count
        await group.triggerGracefulShutdown()
        try await running.value
        // Every 0.1 s, starting 0.1 s in: about 10 in 1.05 s. A loaded machine may delay a few, never add any.
        #expect(pings >= 6 && pings <= 11, "\(pings) pings")
    }
}

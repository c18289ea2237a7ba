import Foundation
import HealthModel
import HeartRate
import IngestTestSupport
import SourceEvents
import StrapLab
import Synchronization
@testable import Ingest

let addressA = "AA:BB:CC:DD:EE:01"
let t0 = 1_700_000_000.0

/// A timestamp `seconds` after `t0` on both clocks.
func at(_ seconds: Double) -> Timestamp { Timestamp(unixSeconds: t0 + seconds) }

/// A Heart Rate Measurement payload.
func hrm(_ bpm: UInt16 = 60, rr: [UInt16] = [], contact: SensorContact = .detected, energy: UInt16? = nil) -> [UInt8] {
    HeartRateMeasurement(bpm: bpm, contact: contact, energyKilojoules: energy, rrIntervals: rr).encoded()
}

func notification(_ seconds: Double, _ bytes: [UInt8], address: String = addressA) -> SourceEvent {
    .notification(address: address, bytes: bytes, at: at(seconds))
}

func connected(_ seconds: Double, address: String = addressA, device: DeviceInfo? = nil) -> SourceEvent {
    .connected(address: address, device: device, at: at(seconds))
}

func makePipeline(_ settings: IngestSettings = IngestSettings()) -> (IngestPipeline, InMemorySeriesSink) {
    let sink = InMemorySeriesSink()
    return (IngestPipeline(settings: settings, sink: sink), sink)
}

/// Feeds events, each followed by a tick at its time (as replay does).
func feed(_ pipeline: IngestPipeline, _ events: [SourceEvent]) async {
    for event in events {
        await pipeline.handle(event)
        await pipeline.tick(now: event.at)
    }
}

extension InMemorySeriesSink.Contents {
    var heartbeatSeries: [HeartbeatSeriesSample] {
        saved.compactMap { if case .heartbeatSeries(let s) = $0 { s } else { nil } }.sorted { $0.start < $1.start }
    }

    func quantities(_ type: QuantityType) -> [QuantitySample] {
        saved.compactMap { if case .quantity(let q) = $0, q.type == type { q } else { nil } }.sorted { $0.start < $1.start }
    }

    /// Every saved beat as (absolute seconds since t0, flag), in time order.
    var absoluteBeats: [(time: Double, gap: Bool)] {
        heartbeatSeries.flatMap { s in
            s.beats.map { (s.start.timeIntervalSince1970 - t0 + $0.offset, $0.precededByGap) }
        }
    }
}

/// Collects live events from the pipeline's callback.
final class LiveCollector: Sendable {
    private let storage = Mutex<[LiveEvent]>([])
    func append(_ event: LiveEvent) { storage.withLock { $0.append(event) } }
    var events: [LiveEvent] { storage.withLock { $0 } }
}

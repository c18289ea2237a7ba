import Foundation
import HealthModel
import HeartStore
import Ingest

/// The daemon's sink: the ready store's `StoreSink`, or — while `DaemonStore` is not ready — the reason thrown by
/// every call, so that `BackgroundSink` keeps finished series, checkpoints and devices in memory and retries.
struct DaemonStoreSink: SeriesSink {
    let store: DaemonStore

    func save(_ samples: [Sample], closingCheckpoints: [UUID]) throws {
        try store.sink().save(samples, closingCheckpoints: closingCheckpoints)
    }

    func writeCheckpoints(_ open: [SeriesCheckpoint]) throws {
        try store.sink().writeCheckpoints(open)
    }

    func upsertDevice(_ device: DeviceInfo) throws {
        try store.sink().upsertDevice(device)
    }

    func appendCheckpointsWithoutWaiting(_ open: [SeriesCheckpoint]) -> Bool {
        guard let sink = try? store.sink() else { return false }
        return sink.appendCheckpointsWithoutWaiting(open)
    }
}

import Foundation
import HealthModel
import HeartStore
import HeartdKit
import Ingest
import SourceEvents
import Testing

/// The daemon's checkpoint path end to end — pipeline, store writer thread, open-series journal with compactions —
/// against the plain one: recovery after the process dies gives the same samples as a whole snapshot of the open
/// series taken at that moment would.
@Suite struct CheckpointRecoveryTests {
    static let address = "AA:BB:CC:DD:EE:07"

    /// A Heart Rate Measurement: 8-bit bpm, contact detected, one RR interval, energy when given.
    static func measurement(bpm: UInt8, rr: UInt16, energy: UInt16?) -> [UInt8] {
        var bytes: [UInt8] = [0x16 | (energy == nil ? 0 : 0x08), bpm]
        if let energy { bytes += [UInt8(energy & 0xff), UInt8(energy >> 8)] }
        return bytes + [UInt8(rr & 0xff), UInt8(rr >> 8)]
    }

    static func recovered(_ path: String) throws -> [UUID: Sample] {
        let samples = try HeartDatabase(path: path).recoverCheckpoints(finishedAt: Date(timeIntervalSince1970: 0))
        return Dictionary(uniqueKeysWithValues: samples.map { ($0.uuid, $0) })
    }

    @Test func appendsJournaledAndCompactedRecoverAsAWholeSnapshotWould() async throws {
        let dir = try TestDirectory("ckpt-recovery")
        defer { dir.remove() }
        let t0 = 1_700_000_000.0
        var open: [Sample] = []
        do {
            let database = try HeartDatabase(path: dir.file("daemon.sqlite"))
            // A small journal: compacted every few dozen checkpoints, so appends also follow `open_series` rows.
            let writer = try CheckpointWriter(database: database, compactionBytes: 1500)
            let store = BackgroundSink(StoreSink(database: database, checkpoints: writer, logger: .init(label: "t")),
                                       memoryBufferBeats: 10_000)
            store.start()
            let pipeline = IngestPipeline(settings: IngestSettings(checkpointInterval: 1), sink: store)
            await pipeline.handle(.connected(address: Self.address, device: DeviceInfo(name: "S"),
                                             at: Timestamp(unixSeconds: t0)))
            for second in 1...150 {
                let bytes = Self.measurement(bpm: UInt8(55 + second % 30), rr: UInt16(1000 + (second % 7) * 5),
                                             energy: second % 5 == 0 ? UInt16(second / 5) : nil)
                let at = Timestamp(unixSeconds: t0 + Double(second))
                await pipeline.handle(.notification(address: Self.address, bytes: bytes, at: at))
                await pipeline.tick(now: at)
                if second % 3 == 0 { _ = await store.drain(timeout: 10) }  // else merged in the writer's queue
            }
            #expect(await store.drain(timeout: 10))
            #expect(writer.compactions > 0)
            open = pipeline.openSeries(now: Timestamp(unixSeconds: t0 + 150))
            // The process dies here: nothing is finished.
        }
        #expect(open.count == 3, "beats, heart rate and energy open")
        do {
            let whole = try HeartDatabase(path: dir.file("whole.sqlite"))
            try CheckpointWriter(database: whole).write(open)
        }
        let fromAppends = try Self.recovered(dir.file("daemon.sqlite"))
        let fromWhole = try Self.recovered(dir.file("whole.sqlite"))
        #expect(fromAppends.count == 3)
        #expect(fromAppends == fromWhole)
    }
}

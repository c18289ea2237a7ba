import Foundation
import HealthModel
import HeartStore
import HeartdKit
import Ingest
import Logging
import SeededRandom
import Testing

/// Random RR sequences → a replay file → `heartd replay`'s code → a real SQLite store → enumerated beats:
/// the RR intervals come back exactly (beats are whole ticks of 1/1024 s, and so are RR values).
struct ReplayStoreRoundTripTests {
    @Test(arguments: [1, 2, 3])
    func randomRRSurviveReplayStoreAndEnumeration(seed: UInt64) async throws {
        var rng = SplitMix64(seed: seed)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hd-replay-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }

        // 2500 beats (rotates at the default 1000 beats a series), RR 400–1500 ms in ticks, one notification a
        // second carrying the RR values that ended in it, stamped at the last beat plus up to 30 ms of jitter.
        let rr = (0..<2500).map { _ in UInt16.random(in: 410...1536, using: &rng) }
        let t0 = 1_800_000_000.0, address = "AA:BB:CC:00:00:01"
        var lines = [#"{"t": \#(t0), "device": "\#(address)", "event": "connected", "info": {"name": "Strap"}}"#]
        var ticks = 0, pending: [UInt16] = [], nextSecond = 1.0
        for (i, value) in rr.enumerated() {
            ticks += Int(value)
            pending.append(value)
            let seconds = Double(ticks) / 1024
            if seconds >= nextSecond || i == rr.count - 1 {
                let m = HeartRateMeasurementPayload.hex(bpm: UInt8(clamping: 61440 / Int(value)), rr: pending)
                lines.append(#"{"t": \#(t0 + seconds + Double.random(in: 0...0.03, using: &rng)), "device": "\#(address)", "hex": "\#(m)"}"#)
                pending = []
                nextSecond = seconds.rounded(.down) + 1
            }
        }
        let file = dir.appendingPathComponent("recording.jsonl")
        try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)

        let dbPath = dir.appendingPathComponent("store.sqlite").path
        let report = try await Replay(settings: IngestSettings(), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
            .run(file: file, databasePath: dbPath)
        #expect(report.issues.isEmpty)

        let db = try HeartDatabase.openReadOnly(path: dbPath)
        let series = try db.heartbeatSeries(from: Date(timeIntervalSince1970: t0 - 10), to: Date(timeIntervalSince1970: t0 + 10_000))
        #expect(series.count >= 3, "2500 beats rotate at 1000 a series")
        #expect(series.allSatisfy { $0.beats.count <= 1000 })
        let origin = try #require(series.first).start
        let absolute = series.flatMap { s in
            s.beats.map { Int((s.start.addingTimeInterval($0.offset).timeIntervalSince(origin) * 1024).rounded()) }
        }
        let stored = zip(absolute.dropFirst(), absolute).map { UInt16($0 - $1) }
        // The first beat is the chain's anchor (the R-peak the first RR starts from): one beat more than RRs.
        #expect(absolute.count == rr.count + 1)
        #expect(stored == rr)
        #expect(series.dropFirst().allSatisfy { $0.beats.first?.precededByGap == false }, "rotation loses no beat")
        #expect(try db.integrityCheck() == "ok")
    }
}

/// Heart Rate Measurement payloads for test recordings: flags 0x16 (uint8 bpm, contact detected, RR present).
enum HeartRateMeasurementPayload {
    static func hex(bpm: UInt8, rr: [UInt16]) -> String {
        var bytes: [UInt8] = [0x16, bpm]
        for v in rr { bytes += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }
}

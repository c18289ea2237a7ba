import Foundation
import HeartQueries
import HeartStore
import TestBus
import Testing

/// Every range read of `heartctl --db` holds one stored sample at a time: its peak resident memory (the child's
/// VmHWM, `PeakMemory`) over twelve days of a strap (1.3 M beats, 1 M heart-rate values) is within a few MB of its
/// peak over the first two hours of the same store, and under the 64 MB. Loading the range, as these reads
/// did, takes tens of MB more. (Two hours rather than a day as the short range: the same reads, but a debug build's
/// full HRV analysis of a day's 108 000 beats — the short `hrv` and `report` — cost most of this test's time.)
@Suite("heartctl reads in bounded memory", .serialized)
struct HeartctlBoundedMemoryTests {
    static let days = 12

    static func reads(_ db: String, seconds: Double, report: String) -> [(String, [String])] {
        let from = ExportDates.iso(LongStore.t0), to = ExportDates.iso(LongStore.t0.addingTimeInterval(seconds))
        return [
            ("stats per day", ["stats", "--db", db, "--from", from, "--to", to, "--interval", "1d"]),
            ("stats per hour", ["stats", "--db", db, "--from", from, "--to", to, "--interval", "1h"]),
            ("hrv", ["hrv", "--db", db, "--from", from, "--to", to]),
            ("report", ["report", "--db", db, "--from", from, "--to", to, "-o", report]),
            ("series, every page", ["series", "--db", db, "--from", from, "--to", to, "--all", "--limit", "100"]),
        ]
    }

    @Test("peak memory of each read does not grow with the range")
    func peakMemoryIsBounded() throws {
        let dir = try TestDirectory("bounded")
        defer { dir.remove() }
        let heartctl = try BuiltProducts.path("heartctl")
        try LongStore.write(dir.file("long.db"), days: Self.days)
        let small = Self.reads(dir.file("long.db"), seconds: 2 * 3600, report: dir.file("short.html"))
        let large = Self.reads(dir.file("long.db"), seconds: Double(Self.days) * 86_400, report: dir.file("long.html"))
        for ((name, short), (_, longRange)) in zip(small, large) {
            let a = try PeakMemory.run(heartctl, short, output: dir.file("out"))
            let b = try PeakMemory.run(heartctl, longRange, output: dir.file("out"))
            #expect(a.status == 0 && b.status == 0, "\(name): exit \(a.status), \(b.status)")
            #expect(b.peakMiB <= 64, "\(name): \(b.peakMiB) MiB over \(Self.days) days")
            #expect(b.peakMiB - a.peakMiB <= 8, "\(name): \(a.peakMiB) MiB for two hours, \(b.peakMiB) MiB for \(Self.days) days")
        }
        // The series pages listed every sample once.
        _ = try PeakMemory.run(heartctl, large[4].1 + ["--json"], output: dir.file("series.jsonl"))
        let lines = try String(contentsOfFile: dir.file("series.jsonl"), encoding: .utf8).split(separator: "\n")
        #expect(lines.count == Self.days * 48)
    }
}

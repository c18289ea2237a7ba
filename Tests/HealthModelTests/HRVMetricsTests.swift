import Foundation
import HealthModel
import SeededRandom
import Testing

/// Reference values from Fixtures/reference_hrv.json (hrv-analysis, pyhrv, neurokit2; see SOURCES.md).
struct HRVReference: Decodable {
    struct Series: Decodable {
        let n_nni: Int
        let sdnn_ms: Double
        let rmssd_ms: Double
        let nn50: Int
        let pnn50_pct_n_minus_1: Double
        let mean_hr_bpm: Double
    }
    let pyhrv_short: Series

    static func load() throws -> (HRVReference, [Double]) {
        guard let json = Bundle.module.url(forResource: "reference_hrv", withExtension: "json", subdirectory: "Fixtures"),
              let text = Bundle.module.url(forResource: "pyhrv_SampleNNISeriesShort", withExtension: "txt", subdirectory: "Fixtures")
        else { throw FixtureError(reason: "HRV fixtures missing from the test bundle") }
        let reference = try JSONDecoder().decode(HRVReference.self, from: Data(contentsOf: json))
        let rr = try String(contentsOf: text, encoding: .utf8).split(whereSeparator: \.isNewline).map { line in
            guard let v = Double(line.trimmingCharacters(in: .whitespaces)) else { throw FixtureError(reason: "bad line \(line)") }
            return v
        }
        return (reference, rr)
    }
}

func relativelyClose(_ a: Double?, _ b: Double) -> Bool {
    guard let a else { return false }
    return abs(a - b) <= 1e-6 * abs(b)
}

@Suite struct HRVMetricsTests {
    @Test func matchesReferenceLibraries() throws {
        let (reference, rr) = try HRVReference.load()
        let r = reference.pyhrv_short
        #expect(rr.count == r.n_nni)
        let m = try HRVMetrics(rrIntervalsMs: rr)
        #expect(m.count == r.n_nni)
        #expect(m.differenceCount == r.n_nni - 1)
        #expect(relativelyClose(m.sdnnMs, r.sdnn_ms))
        #expect(relativelyClose(m.rmssdMs, r.rmssd_ms))
        #expect(relativelyClose(m.pnn50Percent, r.pnn50_pct_n_minus_1))
        #expect(relativelyClose(m.pnn50Percent, Double(r.nn50) / Double(r.n_nni - 1) * 100))
        #expect(relativelyClose(m.meanHeartRateBpm, r.mean_hr_bpm))
    }

    @Test func referenceSeriesAsBeatsGivesSameMetrics() throws {
        let (reference, rr) = try HRVReference.load()
        var offset = 0.25, beats = [Beat(offset: offset, precededByGap: true)]
        for v in rr {
            offset += v / 1000
            beats.append(Beat(offset: offset, precededByGap: false))
        }
        let m = try HRVMetrics(beats: beats)
        #expect(m.count == reference.pyhrv_short.n_nni)
        #expect(relativelyClose(m.sdnnMs, reference.pyhrv_short.sdnn_ms))
        #expect(relativelyClose(m.rmssdMs, reference.pyhrv_short.rmssd_ms))
    }

    @Test func smallHandComputedExample() throws {
        // RR 800, 860, 790, 800: diffs +60, −70, +10.
        let m = try HRVMetrics(rrIntervalsMs: [800, 860, 790, 800])
        let mean = 812.5
        let sd = (([800, 860, 790, 800] as [Double]).map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / 3).squareRoot()
        #expect(close(m.sdnnMs, sd))
        #expect(close(m.rmssdMs, ((3600.0 + 4900 + 100) / 3).squareRoot()))
        #expect(close(m.pnn50Percent, 200.0 / 3))
        #expect(close(m.meanHeartRateBpm, (75 + 60000.0 / 860 + 60000.0 / 790 + 75) / 4))
    }

    @Test func exactlyFiftyIsNotCounted() throws {
        let m = try HRVMetrics(rrIntervalsMs: [800, 850, 800, 851])
        #expect(close(m.pnn50Percent, 100.0 / 3))
    }

    @Test func errors() {
        #expect(throws: HRVError.self) { try HRVMetrics(rrIntervalsMs: []) }
        #expect { try HRVMetrics(rrIntervalsMs: [800]) } throws: { ($0 as? HRVError)?.code == .tooFewIntervals }
        #expect { try HRVMetrics(rrIntervalsMs: [800, 0]) } throws: { ($0 as? HRVError)?.code == .invalidInterval }
        #expect { try HRVMetrics(rrIntervalsMs: [800, .nan]) } throws: { ($0 as? HRVError)?.code == .invalidInterval }
        #expect { try HRVMetrics(segments: [[800], [], [-1]]) } throws: { ($0 as? HRVError)?.code == .invalidInterval }
    }

    @Test func segmentsPoolDifferencesOnlyWithin() throws {
        let m = try HRVMetrics(segments: [[800, 900], [1200, 1210, 1220]])
        #expect(m.count == 5)
        #expect(m.differenceCount == 3)
        // Differences 100 | 10, 10; the 900 → 1200 jump across the gap is not one of them.
        #expect(close(m.rmssdMs, ((10_000.0 + 100 + 100) / 3).squareRoot()))
        #expect(close(m.pnn50Percent, 100.0 / 3))
        let all: [Double] = [800, 900, 1200, 1210, 1220]
        #expect(close(m.sdnnMs, try HRVMetrics(rrIntervalsMs: all).sdnnMs))
    }

    @Test func singleIntervalSegmentsHaveNoDifferences() throws {
        let m = try HRVMetrics(segments: [[800], [900]])
        #expect(m.count == 2)
        #expect(m.differenceCount == 0)
        #expect(m.rmssdMs == nil)
        #expect(m.pnn50Percent == nil)
        #expect(close(m.sdnnMs, (2 * 50.0 * 50).squareRoot()))
    }

    @Test func beatSegmentation() {
        let beats = [
            Beat(offset: 0, precededByGap: true),
            Beat(offset: 0.8, precededByGap: false),
            Beat(offset: 1.7, precededByGap: false),
            Beat(offset: 5.0, precededByGap: true),   // gap: no 1.7 → 5.0 interval
            Beat(offset: 6.0, precededByGap: true),   // gap right after a gap: a lone beat
            Beat(offset: 6.5, precededByGap: false),
        ]
        let segments = HRVMetrics.segments(of: beats)
        #expect(segments.count == 2)
        #expect(segments.first.map { zip($0, [800.0, 900]).allSatisfy { close($0, $1) } } == true)
        #expect(segments.first?.count == 2)
        #expect(segments.last.map { $0.count == 1 && close($0[0], 500) } == true)
        #expect(HRVMetrics.segments(of: []).isEmpty)
        #expect(HRVMetrics.segments(of: [Beat(offset: 1, precededByGap: false)]).isEmpty)
        // Non-increasing offsets (never produced by the builder) break the segment instead of giving RR ≤ 0.
        let bad = [Beat(offset: 1, precededByGap: false), Beat(offset: 1, precededByGap: false),
                   Beat(offset: 2, precededByGap: false)]
        #expect(HRVMetrics.segments(of: bad) == [[1000]])
    }

    @Test func randomSegmentedMatchesDirectDefinition() throws {
        var rng = SplitMix64(seed: 50)
        for _ in 0..<200 {
            let segments = (0..<Int.random(in: 1...5, using: &rng)).map { _ in
                (0..<Int.random(in: 1...40, using: &rng)).map { _ in Double.random(in: 300...1500, using: &rng) }
            }
            let all = segments.flatMap { $0 }
            guard all.count >= 2 else { continue }
            let diffs = segments.flatMap { s in zip(s.dropFirst(), s).map { $0 - $1 } }
            let m = try HRVMetrics(segments: segments)
            let mean = all.reduce(0, +) / Double(all.count)
            #expect(close(m.sdnnMs, (all.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(all.count - 1)).squareRoot(), 1e-9))
            if diffs.isEmpty {
                #expect(m.rmssdMs == nil)
            } else {
                #expect(close(m.rmssdMs, (diffs.map { $0 * $0 }.reduce(0, +) / Double(diffs.count)).squareRoot(), 1e-9))
                #expect(close(m.pnn50Percent, Double(diffs.filter { abs($0) > 50 }.count) / Double(diffs.count) * 100))
            }
            #expect(close(m.meanHeartRateBpm, all.map { 60_000 / $0 }.reduce(0, +) / Double(all.count)))
        }
    }
}

@Suite struct HRVDerivationTests {
    func series(_ beats: [Beat], uuid: UUID = UUID()) -> HeartbeatSeriesSample {
        HeartbeatSeriesSample(uuid: uuid, start: t0, end: t0.addingTimeInterval(beats.last?.offset ?? 0), beats: beats,
                              device: DeviceInfo(name: "H10", localIdentifier: "AA:BB:CC:DD:EE:FF"),
                              metadata: [MetadataKey.syncIdentifier: "series-1"])
    }

    @Test func derivesOneSpanningPoint() throws {
        let id = UUID()
        let beats = [0.0, 0.8, 1.65, 2.4, 3.3].enumerated().map { Beat(offset: $0.element, precededByGap: $0.offset == 0) }
        let s = series(beats, uuid: id)
        let sample = try #require(s.derivedHRVSample())
        let sdnn = try HRVMetrics(beats: beats).sdnnMs
        #expect(sample.type == .heartRateVariabilitySDNN)
        #expect(sample.start == s.start && sample.end == s.end)
        #expect(sample.points == [QuantityPoint(value: sdnn, start: s.start, end: s.end)])
        #expect(sample.aggregates == QuantityAggregates(average: sdnn, minimum: sdnn, maximum: sdnn, mostRecent: sdnn))
        #expect(sample.device == s.device)
        #expect(sample.metadata == [MetadataKey.derivedFromSeries: id.uuidString])
        #expect(sample.uuid != id)
    }

    @Test func nilWithFewerThanTwoIntervals() {
        #expect(series([]).derivedHRVSample() == nil)
        #expect(series([Beat(offset: 0, precededByGap: true)]).derivedHRVSample() == nil)
        #expect(series([Beat(offset: 0, precededByGap: true), Beat(offset: 1, precededByGap: false)]).derivedHRVSample() == nil)
        // Three beats, but the gap leaves one interval only.
        #expect(series([Beat(offset: 0, precededByGap: true), Beat(offset: 1, precededByGap: false),
                        Beat(offset: 3, precededByGap: true)]).derivedHRVSample() == nil)
        #expect(series([Beat(offset: 0, precededByGap: true), Beat(offset: 1, precededByGap: false),
                        Beat(offset: 2.1, precededByGap: false)]).derivedHRVSample() != nil)
    }

    @Test func derivedFromBuilderOutput() throws {
        var builder = HeartbeatSeriesBuilder(start: t0, device: nil)
        for (i, offset) in [0.0, 0.9, 1.7, 2.6].enumerated() { try builder.addBeat(at: offset, precededByGap: i == 0) }
        let finished = builder.finish()
        let series = try #require(finished)
        let sample = try #require(series.derivedHRVSample(uuid: UUID()))
        #expect(close(sample.aggregates.average, try HRVMetrics(rrIntervalsMs: [900, 800, 900]).sdnnMs))
        #expect(sample.device == nil)
    }
}

import Foundation
import HealthModel
import Testing

/// Reference values from Fixtures/hrv_neurokit2.json, written by scripts/reference/hrv_neurokit2.py (NeuroKit2
/// 0.3.0) on real recordings put on the 1/1024 s grid; see that script for the settings.
struct NeuroKit2Reference: Decodable {
    struct Recording: Decodable {
        let name: String
        let peaks: [Int]
        let classes: [String]
        let corrected_peaks: [Int]
        let time: [String: Double]
        let differences: Int
        let nonlinear: [String: Double]
        let frequency: [String: Double]
        /// astropy's Lomb–Scargle (NeuroKit2's call, "psd" normalisation) on heartd's windows and grid.
        let lomb_scargle: [String: Double]
        /// NeuroKit2's own `hrv_frequency(psd_method="lombscargle")` on the whole recording (not normalised).
        let lomb_scargle_neurokit2: [String: Double]
    }
    let recordings: [Recording]

    static func load() throws -> NeuroKit2Reference {
        guard let url = Bundle.module.url(forResource: "hrv_neurokit2", withExtension: "json", subdirectory: "Fixtures")
        else { throw FixtureError(reason: "hrv_neurokit2.json missing from the test bundle") }
        return try JSONDecoder().decode(NeuroKit2Reference.self, from: Data(contentsOf: url))
    }
}

/// |a − b| ≤ tolerance · |b|.
func withinRelative(_ a: Double?, _ b: Double?, _ tolerance: Double) -> Bool {
    guard let a, let b else { return false }
    return abs(a - b) <= tolerance * abs(b)
}

@Suite struct HRVAgreementTests {
    static let recordings = (try? NeuroKit2Reference.load().recordings) ?? []

    @Test func fixtureHoldsBothRecordingsAndEctopicBeats() throws {
        let names = Self.recordings.map(\.name)
        #expect(names == ["pyhrv_SampleNNISeriesShort.txt", "pyhrv_SampleNNISeriesLong.txt"])
        #expect(Self.recordings.contains { $0.classes.contains("ectopic") })
    }

    @Test(arguments: recordings.map(\.name))
    func artifactClassesMatchNeuroKit2(_ name: String) throws {
        let r = try #require(Self.recordings.first { $0.name == name })
        let correction = RRArtifactCorrection(peaks: r.peaks)
        #expect(correction.classes.count == r.classes.count)
        let ours = correction.classes.map { c -> String in
            switch c {
            case .long, .short: "longshort"
            default: c.rawValue
            }
        }
        let same = zip(ours, r.classes).filter { $0 == $1 }.count
        #expect(Double(same) >= 0.99 * Double(r.classes.count))
        #expect(same == r.classes.count, "identical on \(same) of \(r.classes.count)")
    }

    @Test(arguments: recordings.map(\.name))
    func correctedBeatsMatchNeuroKit2(_ name: String) throws {
        let r = try #require(Self.recordings.first { $0.name == name })
        #expect(RRArtifactCorrection(peaks: r.peaks).peaks == r.corrected_peaks)
    }

    @Test(arguments: recordings.map(\.name))
    func measuresMatchNeuroKit2(_ name: String) throws {
        let r = try #require(Self.recordings.first { $0.name == name })
        let beats = r.peaks.enumerated().map { Beat(offset: Double($1) / 1024, precededByGap: $0 == 0) }
        let a = try HRVAnalysis(beats: beats)
        let t = r.time, nl = r.nonlinear
        #expect(withinRelative(a.time.meanNNMs, t["MeanNN"], 1e-9))
        #expect(withinRelative(a.time.medianNNMs, t["MedianNN"], 1e-9))
        #expect(withinRelative(a.time.metrics.sdnnMs, t["SDNN"], 1e-9))
        #expect(withinRelative(a.time.metrics.rmssdMs, t["RMSSD"], 1e-9))
        // NeuroKit2 divides NN50 and NN20 by differences + 1; heartd by differences (hrv-analysis, pyhrv).
        let rescale = Double(r.differences + 1) / Double(r.differences)
        #expect(a.time.metrics.differenceCount == r.differences)
        #expect(withinRelative(a.time.metrics.pnn50Percent, t["pNN50"].map { $0 * rescale }, 1e-9))
        #expect(withinRelative(a.time.pnn20Percent, t["pNN20"].map { $0 * rescale }, 1e-9))
        #expect(withinRelative(a.poincare?.sd1Ms, nl["SD1"], 1e-9))
        #expect(withinRelative(a.poincare?.sd2Ms, nl["SD2"], 1e-9))
        #expect(withinRelative(a.poincare?.sd1sd2Ratio, nl["SD1SD2"], 1e-9))
        #expect(withinRelative(a.dfaAlpha1, nl["DFA_alpha1"], 1e-6))
        #expect(withinRelative(a.dfaAlpha2, nl["DFA_alpha2"], 1e-6))
    }

    @Test(arguments: recordings.map(\.name))
    func frequencyDomainMatchesNeuroKit2(_ name: String) throws {
        let r = try #require(Self.recordings.first { $0.name == name })
        let beats = r.peaks.enumerated().map { Beat(offset: Double($1) / 1024, precededByGap: $0 == 0) }
        let f = try #require(try HRVAnalysis(beats: beats).frequency)
        let nk = r.frequency
        // The target is 1 %; the same interpolation and Welch settings agree to rounding.
        #expect(withinRelative(f.vlfMs2, nk["VLF"], 1e-9))
        #expect(withinRelative(f.lfMs2, nk["LF"], 1e-9))
        #expect(withinRelative(f.hfMs2, nk["HF"], 1e-9))
        #expect(withinRelative(f.vlfPeakHz, nk["VLF_peak_hz"], 1e-9))
        #expect(withinRelative(f.lfPeakHz, nk["LF_peak_hz"], 1e-9))
        #expect(withinRelative(f.hfPeakHz, nk["HF_peak_hz"], 1e-9))
        #expect(HRVFrequencyDomain.sampleCount(span: Double(r.corrected_peaks.last! - r.corrected_peaks[1]) / 1024)
                == Int(nk["samples"] ?? 0))
    }

    @Test(arguments: recordings.map(\.name))
    func lombScargleMatchesAstropy(_ name: String) throws {
        let r = try #require(Self.recordings.first { $0.name == name })
        let beats = r.peaks.enumerated().map { Beat(offset: Double($1) / 1024, precededByGap: $0 == 0) }
        let f = try #require(try HRVAnalysis(beats: beats).lombScargle)
        let ls = r.lomb_scargle
        // The target is 1 %; the same periodogram evaluated directly agrees with astropy's to rounding.
        #expect(withinRelative(f.vlfMs2, ls["VLF"], 1e-9))
        #expect(withinRelative(f.lfMs2, ls["LF"], 1e-9))
        #expect(withinRelative(f.hfMs2, ls["HF"], 1e-9))
        #expect(withinRelative(f.vlfPeakHz, ls["VLF_peak_hz"], 1e-12))
        #expect(withinRelative(f.lfPeakHz, ls["LF_peak_hz"], 1e-12))
        #expect(withinRelative(f.hfPeakHz, ls["HF_peak_hz"], 1e-12))
        #expect(Double(f.windows) == ls["windows"])
        #expect(withinRelative(f.seconds, ls["seconds"], 1e-12))
    }

    /// The short recording is one 5-minute window: NeuroKit2's own Lomb–Scargle call on it is heartd's computation on
    /// another grid (astropy's autopower), its band powers in ms² · Hz/ms (× 2 · mean spacing gives ms²). VLF is left
    /// out: NeuroKit2's grid starts at 4 · median RR / N (0.0103 Hz here), inside the band.
    @Test func lombScargleOfOneWindowMatchesNeuroKit2() throws {
        let r = try #require(Self.recordings.first { $0.name == "pyhrv_SampleNNISeriesShort.txt" })
        let beats = r.peaks.enumerated().map { Beat(offset: Double($1) / 1024, precededByGap: $0 == 0) }
        let f = try #require(try HRVAnalysis(beats: beats).lombScargle)
        #expect(f.windows == 1)
        let nk = r.lomb_scargle_neurokit2, scale = 2 * (nk["mean_spacing_s"] ?? .nan)
        #expect(withinRelative(f.lfMs2, nk["LF"].map { $0 * scale }, 0.01))
        #expect(withinRelative(f.hfMs2, nk["HF"].map { $0 * scale }, 0.01))
        #expect(withinRelative(f.lfHfRatio, nk["LFHF"], 0.01))
    }
}

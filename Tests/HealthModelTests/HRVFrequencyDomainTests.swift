import Foundation
import HealthModel
import Testing

@Suite struct HRVFrequencyDomainTests {
    /// Intervals of a heart at 800 ms modulated by `amplitude` ms at `hz`, with their end times.
    func modulated(seconds: Double, hz: Double, amplitude: Double) -> (times: [Double], intervalsMs: [Double]) {
        var t = 0.0, times: [Double] = [], rr: [Double] = []
        while t < seconds {
            let v = 800 + amplitude * sin(2 * Double.pi * hz * t)
            t += v / 1000
            times.append(t)
            rr.append(v)
        }
        return (times, rr)
    }

    @Test func breathingAtAQuarterHertzIsHighFrequencyPower() throws {
        let f = try #require(HRVFrequencyDomain(segments: [modulated(seconds: 600, hz: 0.25, amplitude: 40)]))
        #expect(f.hfMs2 > 10 * (f.lfMs2 + f.vlfMs2))
        #expect(abs(try #require(f.hfPeakHz) - 0.25) < 0.005)
        #expect(f.hfNu > 90)
        #expect(abs(f.vlfPercent + f.lfPercent + f.hfPercent - 100) < 1e-9)
        #expect(abs(f.lfNu + f.hfNu - 100) < 1e-9)
        // A sine of amplitude A carries A²/2 of variance: nearly all of it in HF.
        #expect(abs(f.hfMs2 - 800) < 80)
        #expect(f.windows == 3) // 600 s: 256-s windows overlapping by half
    }

    @Test func slowWaveIsLowFrequencyPower() throws {
        let f = try #require(HRVFrequencyDomain(segments: [modulated(seconds: 600, hz: 0.1, amplitude: 40)]))
        #expect(f.lfMs2 > 10 * f.hfMs2)
        #expect(abs(try #require(f.lfPeakHz) - 0.1) < 0.005)
        #expect(try #require(f.lfHfRatio) > 10)
    }

    @Test func needsTwoMinutesWithoutAGap() {
        #expect(HRVFrequencyDomain(segments: [modulated(seconds: 100, hz: 0.25, amplitude: 40)]) == nil)
        let a = modulated(seconds: 100, hz: 0.25, amplitude: 40), b = modulated(seconds: 100, hz: 0.25, amplitude: 40)
        #expect(HRVFrequencyDomain(segments: [a, b]) == nil) // 200 s in all, never joined across the gap
        #expect(HRVFrequencyDomain(segments: [modulated(seconds: 130, hz: 0.25, amplitude: 40)]) != nil)
    }

    @Test func longSegmentsPoolTheirWindows() throws {
        let one = modulated(seconds: 600, hz: 0.25, amplitude: 40)
        let f = try #require(HRVFrequencyDomain(segments: [one, one, modulated(seconds: 200, hz: 0.1, amplitude: 40)]))
        #expect(f.windows == 6) // the 200-s segment is left out beside two long ones
        let single = try #require(HRVFrequencyDomain(segments: [one]))
        #expect(abs(f.hfMs2 - single.hfMs2) < 1e-9 * single.hfMs2)
    }

    @Test func lombScargleFindsBreathingWithoutResampling() throws {
        let f = try #require(HRVFrequencyDomain(lombScargleSegments: [modulated(seconds: 610, hz: 0.25, amplitude: 40)]))
        #expect(f.windows == 2) // over 600 s: two 5-minute windows
        #expect(f.hfMs2 > 10 * (f.lfMs2 + f.vlfMs2))
        #expect(abs(try #require(f.hfPeakHz) - 0.25) < 0.002)
        // A sine of amplitude A carries A²/2 of variance: the density integrates to it (ms²), as Welch's does.
        #expect(abs(f.hfMs2 - 800) < 80)
        #expect(abs(f.vlfPercent + f.lfPercent + f.hfPercent - 100) < 1e-9)
        let slow = try #require(HRVFrequencyDomain(lombScargleSegments: [modulated(seconds: 600, hz: 0.1, amplitude: 40)]))
        #expect(abs(try #require(slow.lfPeakHz) - 0.1) < 0.002)
        #expect(try #require(slow.lfHfRatio) > 10)
    }

    @Test func lombScargleNeedsTwoMinutesWithoutAGap() throws {
        let a = modulated(seconds: 100, hz: 0.25, amplitude: 40)
        #expect(HRVFrequencyDomain(lombScargleSegments: [a, a]) == nil) // never joined across the gap
        let f = try #require(HRVFrequencyDomain(lombScargleSegments: [a, modulated(seconds: 130, hz: 0.25, amplitude: 40)]))
        #expect(f.windows == 1)
        #expect(f.seconds < 130 && f.seconds > 125)
    }

    @Test func lombScargleWindowsAreFiveMinutesOfOneSegment() throws {
        let long = modulated(seconds: 1000, hz: 0.25, amplitude: 40)
        let f = try #require(HRVFrequencyDomain(lombScargleSegments: [long, modulated(seconds: 200, hz: 0.25, amplitude: 40)]))
        #expect(f.windows == 4) // 1000 s: three windows of 333 s; 200 s: one
        #expect(abs(f.hfMs2 - 800) < 80)
        // Unevenly sampled on purpose: every interval's own end time, none interpolated.
        let jittered = (times: long.times.enumerated().map { $1 + ($0 % 3 == 0 ? 0.05 : 0) }, intervalsMs: long.intervalsMs)
        let g = try #require(HRVFrequencyDomain(lombScargleSegments: [jittered]))
        #expect(abs(try #require(g.hfPeakHz) - 0.25) < 0.002)
    }

    @Test func analysisWithoutLombScargleStillDecodes() throws {
        let a = try HRVAnalysis(rrIntervalsMs: modulated(seconds: 400, hz: 0.25, amplitude: 40).intervalsMs)
        #expect(a.lombScargle != nil)
        var json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(a)) as? [String: Any])
        json["lomb_scargle"] = nil
        let old = try JSONDecoder().decode(HRVAnalysis.self, from: JSONSerialization.data(withJSONObject: json))
        #expect(old.lombScargle == nil)
        #expect(old.frequency == a.frequency)
    }
}

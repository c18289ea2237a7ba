import Foundation
import HealthModel
@testable import HeartdKit
import HeartQueries
import Ingest
import Testing

/// `LiveDFAMonitor` fed the pipeline's live events as a strap sends them (one notification a second): a replayed
/// real RR recording with ectopic beats (pyhrv's SampleNNISeriesLong).
@Suite struct LiveDFAMonitorTests {
    static let device = "A0:9E:1A:12:34:56"
    static let start = Date(timeIntervalSince1970: 1_764_355_200)

    /// pyhrv's long sample NN series (4684 intervals, 10 ectopic, 4 missed), committed with the HRV reference fixtures.
    static func recording() throws -> [Double] {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("HealthModelTests/Fixtures/pyhrv_SampleNNISeriesLong.txt").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(whereSeparator: \.isNewline).compactMap { Double($0) }
    }

    /// The beats of `rr` (ms) as `beats` events, grouped into one-second notifications, on the 1/1024 s grid.
    static func events(_ rr: [Double]) -> [LiveEvent] {
        var t = 0.0, notification: [LiveBeat] = [], events: [LiveEvent] = []
        var second = 0
        for (i, v) in rr.enumerated() {
            t += v
            let time = start.addingTimeInterval((t * 1.024).rounded() / 1024)
            if Int(t / 1000) != second, !notification.isEmpty {
                events.append(.beats(address: device, beats: notification))
                notification = []
                second = Int(t / 1000)
            }
            notification.append(LiveBeat(time: time, precededByGap: i == 0))
        }
        events.append(.beats(address: device, beats: notification))
        return events
    }

    @Test func readingsEveryFiveSecondsAgreeWithTheModel() throws {
        let rr = Array(try Self.recording().prefix(600))
        let monitor = LiveDFAMonitor()
        var readings: [WatchPayload.DFAAlpha1] = []
        for e in Self.events(rr) { if let r = monitor.observe(e, wanted: { _ in true }) { readings.append(r) } }
        #expect(readings.count >= 80, "\(readings.count)")
        let last = try #require(readings.last)
        #expect(last.device == Self.device && last.windowFull)
        // The same beats, up to the last reading's beat, straight into the model give the same window.
        var model = LiveDFAAlpha1()
        var t = 0.0
        for (i, v) in rr.enumerated() {
            t += v
            let offset = (t * 1.024).rounded() / 1024
            guard Self.start.addingTimeInterval(offset) <= last.at else { break }
            _ = model.add(Beat(offset: offset, precededByGap: i == 0))
        }
        let expected = try #require(model.reading())
        #expect(last.intervals == expected.intervals)
        #expect(last.artifactPercent == expected.artifactPercent)
        #expect(last.alpha1 == expected.alpha1)
        #expect(readings.contains { $0.state == .measured && ($0.alpha1 ?? 0) > 0.3 })
        // The first reading has one beat: nothing to measure yet.
        #expect(readings.first?.state == .tooFewIntervals && readings.first?.alpha1 == nil)
    }

    @Test func withheldAboveFivePercentArtifacts() throws {
        var rr = Array(try Self.recording().prefix(600))
        for k in stride(from: 300, to: 590, by: 12) { rr[k] -= 200; rr[k + 1] += 200 }  // ~8 % ectopic beats
        let monitor = LiveDFAMonitor()
        var readings: [WatchPayload.DFAAlpha1] = []
        for e in Self.events(rr) { if let r = monitor.observe(e, wanted: { _ in true }) { readings.append(r) } }
        let last = try #require(readings.last)
        #expect(last.artifactPercent > 5, "\(last)")
        #expect(last.state == .withheldArtifacts && last.alpha1 == nil, "\(last)")
        #expect(readings.contains { $0.state == .measured }, "clean windows before the ectopic run are measured")
    }

    @Test func nothingIsComputedUnlessWantedAndADisconnectBreaksTheChain() throws {
        let events = Self.events(Array(try Self.recording().prefix(420)))
        let monitor = LiveDFAMonitor()
        let session = Session(start: Self.start, devices: [Self.device])
        var asked = 0
        for e in events.prefix(events.count - 15) {
            #expect(monitor.observe(e, wanted: { _ in asked += 1; return false }) == nil)
        }
        #expect(asked > 0)
        #expect(monitor.latest(for: session).isEmpty)
        // Wanted from now: the next update already has the whole window (the beats were kept).
        var next: WatchPayload.DFAAlpha1?
        for e in events.suffix(15) where next == nil {
            next = monitor.observe(e, wanted: { _ in true })
        }
        let reading = try #require(next)
        #expect(reading.intervals > 100, "\(reading)")
        #expect(monitor.latest(for: session) == [reading])
        _ = monitor.observe(.disconnected(address: Self.device, reason: .linkLost, at: Date()), wanted: { _ in true })
        #expect(monitor.latest(for: session).isEmpty)
    }
}

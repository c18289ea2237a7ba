import Foundation
import HealthModel
@testable import Ingest
import SeededRandom
import SourceEvents
import StrapLab
import Testing

@Suite struct ReplayReaderTests {
    @Test func parsesEventsReportsBadLinesAndIgnoresUnknownFields() throws {
        let text = """
        # recorded by heartd
        {"t": 100.0, "device": "aa:bb:cc:dd:ee:01", "event": "connected", "info": {"name": "H10", "manufacturer": "Polar", "model": "H10", "hardware": "1", "firmware": "5.0", "software": "s", "serial": "C0FFEE", "location": "chest", "color": "red"}, "extra": 1}
        {"t": 101.0, "device": "AA:BB:CC:DD:EE:01", "hex": "10 3c 00 04", "rssi": -60}
        not json at all

        {"t": 102.0, "device": "AA:BB:CC:DD:EE:01"}
        {"device": "AA:BB:CC:DD:EE:01", "hex": "1000"}
        {"t": 103.0, "device": "AA:BB:CC:DD:EE:01", "hex": "zz"}
        {"t": 104.0, "device": "AA:BB:CC:DD:EE:01", "event": "exploded"}
        {"t": 105.0, "device": "AA:BB:CC:DD:EE:01", "event": "battery", "percent": 87}
        {"t": 106.0, "device": "AA:BB:CC:DD:EE:01", "event": "disconnected", "reason": "link loss"}
        """
        let (events, issues) = ReplayReader.parse(text)
        #expect(issues.map(\.line) == [4, 6, 7, 8, 9])
        #expect(issues[1].reason.contains("\"hex\" or \"event\""))
        #expect(issues[2].reason.contains("missing \"t\""))
        #expect(events.count == 4)
        guard case .connected(let address, let device?, let at) = events[0] else {
            Issue.record("first event is not a connection")
            return
        }
        #expect(address == "AA:BB:CC:DD:EE:01")
        #expect(at == Timestamp(unixSeconds: 100))
        #expect(device.name == "H10" && device.firmwareVersion == "5.0" && device.hardwareVersion == "1")
        #expect(device.localIdentifier == "AA:BB:CC:DD:EE:01")
        #expect(device.metadata == [MetadataKey.serialNumber: "C0FFEE", MetadataKey.bodySensorLocation: "chest"])
        #expect(events[1] == .notification(address: "AA:BB:CC:DD:EE:01", bytes: [0x10, 0x3C, 0x00, 0x04],
                                           at: Timestamp(unixSeconds: 101)))
        #expect(events[2] == .battery(address: "AA:BB:CC:DD:EE:01", percent: 87, at: Timestamp(unixSeconds: 105)))
        #expect(events[3] == .disconnected(address: "AA:BB:CC:DD:EE:01", reason: .recorded("link loss"), at: Timestamp(unixSeconds: 106)))
    }

    @Test func hexRoundTrips() {
        let bytes: [UInt8] = [0, 1, 0x0F, 0x10, 0xAB, 0xFF]
        #expect(ReplayReader.hex(bytes) == "00010f10abff")
        #expect(ReplayReader.bytes(fromHex: ReplayReader.hex(bytes)) == bytes)
        #expect(ReplayReader.bytes(fromHex: "abc") == nil)
        #expect(ReplayReader.bytes(fromHex: "") == [])
    }

    @Test func replayWithoutConnectedImplicitlyConnectsAndStillIngestsAfterBadLines() async throws {
        let lines = [
            #"{"t": 10, "device": "AA:BB:CC:DD:EE:02", "hex": "\#(ReplayReader.hex(hrm(60, rr: [1024])))"}"#,
            #"{"t": 11, "device": "AA:BB:CC:DD:EE:02", "hex": "1"}"#,
            #"{"t": 11, "device": "AA:BB:CC:DD:EE:02", "hex": "\#(ReplayReader.hex(hrm(60, rr: [1024])))"}"#,
        ]
        let source = ReplaySource(text: lines.joined(separator: "\n"))
        #expect(source.issues == [ReplayIssue(line: 2, code: .invalidHex, reason: "\"hex\" is not an even number of hex digits")])
        let (pipeline, sink) = makePipeline()
        await pipeline.consume(source, tickWithEventTime: true)
        let status = try #require(await pipeline.status().first)
        #expect(status.connected)
        #expect(status.address == "AA:BB:CC:DD:EE:02")
        #expect(status.beatsInOpenSeries == 3)
        #expect(sink.contents.devices["AA:BB:CC:DD:EE:02"] != nil)
    }
}

/// Random RR sequences written as a replay file come out of the pipeline as beats exactly on the cumulative
/// RR ticks.
@Suite struct ReplayRoundTripTests {
    @Test(arguments: [1 as UInt64, 2, 3, 42])
    func randomRRSurvivesReplayExactly(seed: UInt64) async throws {
        var rng = SplitMix64(seed: seed)
        var rr: [UInt16] = []
        var lines = [#"{"t": 5000, "device": "AA:BB:CC:DD:EE:03", "event": "connected", "info": {"name": "R"}}"#]
        var ticks = 0
        while rr.count < 2500 {
            // 0–2 beats per notification, RR 300–1200 ticks: notifications stay under the gap threshold apart.
            let group = (0..<Int.random(in: 0...2, using: &rng)).map { _ in UInt16.random(in: 300...1200, using: &rng) }
            rr += group
            ticks += group.reduce(0) { $0 + Int($1) }
            // Arrival a little after the last beat (jitter below the clock tolerance).
            let t = 5001 + Double(ticks) / 1024 + Double.random(in: 0...0.05, using: &rng)
            lines.append(#"{"t": \#(t), "device": "AA:BB:CC:DD:EE:03", "hex": "\#(ReplayReader.hex(hrm(70, rr: group)))"}"#)
        }
        let source = ReplaySource(text: lines.joined(separator: "\n"))
        #expect(source.issues.isEmpty)
        let (pipeline, sink) = makePipeline(IngestSettings(checkpointInterval: 60))
        await pipeline.consume(source, tickWithEventTime: true)
        await pipeline.finishAll(reason: .shutdown)

        let series = sink.contents.heartbeatSeries
        let counters = try #require(await pipeline.status().first).counters
        #expect(counters.gapsByRule == ["connection": 1])
        #expect(series.count == (rr.count + 1 + 999) / 1000)
        let beats = series.flatMap(\.beats)
        #expect(beats.count == rr.count + 1)
        #expect(beats.first?.precededByGap == true)
        #expect(beats.dropFirst().filter(\.precededByGap).count == 0)
        // Inside a series: offsets are exact tick multiples and differ by exactly the RR values.
        var reconstructed: [UInt16] = []
        for (k, s) in series.enumerated() {
            let offsetTicks = s.beats.map { $0.offset * 1024 }
            #expect(offsetTicks.allSatisfy { $0 == $0.rounded() })
            if k > 0 {
                // Across a rotation: the series starts at the beat that did not fit in the previous one.
                let previous = series[k - 1]
                let step = (s.start.timeIntervalSince(previous.start) - (previous.beats.last?.offset ?? 0)) * 1024
                reconstructed.append(UInt16(step.rounded()))
                #expect(abs(step - step.rounded()) < 1e-3)
            }
            for (a, b) in zip(offsetTicks, offsetTicks.dropFirst()) { reconstructed.append(UInt16(b - a)) }
        }
        #expect(reconstructed.count == rr.count)
        #expect(zip(reconstructed, rr).allSatisfy { $0 == $1 })
    }
}

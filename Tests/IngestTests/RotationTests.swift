import Foundation
import HealthModel
import IngestTestSupport
import SourceEvents
import Testing
@testable import Ingest

/// Rotation on every trigger, never losing a beat.
@Suite struct RotationTests {
    /// One beat per second for `count` seconds starting at `from` (plus the anchor beat of the first).
    func steadyBeats(from: Double = 1, count: Int, bpm: UInt16 = 60) -> [SourceEvent] {
        (0..<count).map { notification(from + Double($0), hrm(bpm, rr: [1024])) }
    }

    func checkNoBeatLost(_ pipeline: IngestPipeline, _ sink: InMemorySeriesSink) async throws {
        let counters = try #require(await pipeline.status().first).counters
        let saved = sink.contents.heartbeatSeries.reduce(0) { $0 + $1.count }
        #expect(saved == counters.beats)
        #expect(counters.droppedBeatsOutOfOrder == 0)
    }

    @Test func maxBeatsRotatesBeforeTheBuilderRefusesAndContinuesWithoutAGap() async throws {
        let (pipeline, sink) = makePipeline(IngestSettings(maxBeats: 10))
        await feed(pipeline, steadyBeats(count: 35))
        await pipeline.finishAll(reason: .shutdown)
        let series = sink.contents.heartbeatSeries
        #expect(series.map(\.count) == [10, 10, 10, 6])
        #expect(series.map { $0.metadata[MetadataKey.finishReason] } == ["max-beats", "max-beats", "max-beats", "shutdown"])
        let beats = sink.contents.absoluteBeats
        #expect(beats.count == 36)
        #expect(beats.map(\.gap) == [true] + Array(repeating: false, count: 35))
        for (i, beat) in beats.enumerated() { #expect(abs(beat.time - Double(i)) < 1e-6) }
        // Each continued series starts at its first beat.
        #expect(series.allSatisfy { $0.beats.first?.offset == 0 })
        // The heart-rate and energy series rotate with the set.
        #expect(sink.contents.quantities(.heartRate).count == 4)
        try await checkNoBeatLost(pipeline, sink)
    }

    @Test func maxBeatsRotatesInsideOneNotification() async throws {
        let (pipeline, sink) = makePipeline(IngestSettings(maxBeats: 3))
        await feed(pipeline, [notification(1, hrm(rr: [256, 256, 256, 256])), notification(2, hrm(rr: [256, 256, 256, 256]))])
        await pipeline.finishAll(reason: .shutdown)
        #expect(sink.contents.heartbeatSeries.map(\.count) == [3, 3, 3])
        #expect(sink.contents.absoluteBeats.map(\.time) == [0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2])
        try await checkNoBeatLost(pipeline, sink)
    }

    @Test func maxDurationRotates() async throws {
        let (pipeline, sink) = makePipeline(IngestSettings(maxDuration: 10))
        await feed(pipeline, steadyBeats(count: 25))
        await pipeline.finishAll(reason: .shutdown)
        let series = sink.contents.heartbeatSeries
        #expect(series.count == 3)
        #expect(series.dropLast().allSatisfy { $0.metadata[MetadataKey.finishReason] == "max-duration" })
        #expect(series.allSatisfy { $0.end.timeIntervalSince($0.start) <= 10 })
        #expect(sink.contents.absoluteBeats.map(\.gap) == [true] + Array(repeating: false, count: 25))
        try await checkNoBeatLost(pipeline, sink)
    }

    @Test func idleTimeoutRotatesOnTheNextNotification() async throws {
        let (pipeline, sink) = makePipeline()
        await pipeline.handle(connected(0))
        for event in steadyBeats(count: 5) + steadyBeats(from: 60, count: 3) { await pipeline.handle(event) }
        await pipeline.finishAll(reason: .shutdown)
        let series = sink.contents.heartbeatSeries
        #expect(series.map(\.count) == [6, 4])
        #expect(series.map { $0.metadata[MetadataKey.finishReason] } == ["idle", "shutdown"])
        #expect(series[1].beats.first?.precededByGap == true)
        #expect(try #require(await pipeline.status().first).counters.gapsByRule["notification-gap"] == 1)
        try await checkNoBeatLost(pipeline, sink)
    }

    @Test func idleTimeoutRotatesOnATick() async throws {
        let (pipeline, sink) = makePipeline()
        await feed(pipeline, steadyBeats(count: 5))
        await pipeline.tick(now: at(20))
        #expect(sink.contents.heartbeatSeries.isEmpty)
        await pipeline.tick(now: at(40))
        let series = sink.contents.heartbeatSeries
        #expect(series.count == 1)
        #expect(series.first?.metadata[MetadataKey.finishReason] == "idle")
        #expect(try #require(await pipeline.status().first).beatsInOpenSeries == 0)
        // The last heart-rate value holds at most gapThreshold.
        let hr = try #require(sink.contents.quantities(.heartRate).first)
        #expect(hr.points.last.map { $0.end.timeIntervalSince($0.start) } == 3)
        try await checkNoBeatLost(pipeline, sink)
    }

    @Test func disconnectFinishesTheSetWithDeviceAndReason() async throws {
        let (pipeline, sink) = makePipeline()
        let info = DeviceInfo(name: "Polar H10", manufacturer: "Polar Electro Oy",
                              metadata: [MetadataKey.serialNumber: "C0FFEE"])
        await feed(pipeline, [connected(0, device: info)] + steadyBeats(count: 5)
                   + [.disconnected(address: addressA, reason: .deviceRemoved, at: at(5.5))])
        let saved = sink.contents.saved
        #expect(Set(saved.map(\.typeIdentifier)) == [Sample.heartbeatSeriesIdentifier, QuantityType.heartRate.identifier,
                                                      QuantityType.heartRateVariabilitySDNN.identifier])
        #expect(saved.allSatisfy { $0.metadata[MetadataKey.finishReason] == "disconnect" })
        #expect(saved.allSatisfy { $0.device?.name == "Polar H10" && $0.device?.localIdentifier == addressA })
        #expect(saved.allSatisfy { $0.metadata[MetadataKey.serialNumber] == "C0FFEE" })
        #expect(sink.contents.devices[addressA]?.manufacturer == "Polar Electro Oy")
        let status = try #require(await pipeline.status().first)
        #expect(!status.connected)
        #expect(status.seriesFinished == 2)
        try await checkNoBeatLost(pipeline, sink)
    }

    @Test func hrvSampleIsDerivedFromInSegmentRR() async throws {
        let (pipeline, sink) = makePipeline()
        // RR 820, 922, 1024 ticks; a gap; then 717 after the (flagged) anchor beat. The interval across the gap
        // is not an RR; the one after the anchor is.
        await feed(pipeline, [
            notification(1, hrm(rr: [820])), notification(2, hrm(rr: [922])), notification(3, hrm(rr: [1024])),
            notification(8, hrm(rr: [717])),
        ])
        await pipeline.finishAll(reason: .shutdown)
        let hrv = try #require(sink.contents.quantities(.heartRateVariabilitySDNN).first)
        let series = try #require(sink.contents.heartbeatSeries.first)
        #expect(hrv.metadata[MetadataKey.derivedFromSeries] == series.uuid.uuidString)
        #expect(series.beats.map(\.precededByGap) == [true, false, false, false, true, false])
        let rr = [820.0, 922, 1024, 717].map { $0 * 1000 / 1024 }
        let mean = rr.reduce(0, +) / 4
        let sd = (rr.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / 3).squareRoot()
        #expect(abs((hrv.aggregates.average ?? 0) - sd) < 1e-9)
        #expect(hrv.start == series.start && hrv.end == series.end)
    }

    @Test func noHRVWithFewerThanTwoIntervals() async throws {
        let (pipeline, sink) = makePipeline()
        await feed(pipeline, [notification(1, hrm(rr: [1024]))])
        await pipeline.finishAll(reason: .shutdown)
        #expect(sink.contents.heartbeatSeries.count == 1)
        #expect(sink.contents.quantities(.heartRateVariabilitySDNN).isEmpty)
    }
}

@Suite struct ConnectionTests {
    @Test func deviceInfoLearntAfterConnectingUpdatesWithoutRotating() async throws {
        let (pipeline, sink) = makePipeline()
        await feed(pipeline, [
            connected(0), notification(1, hrm(rr: [1024])),
            connected(1.5, device: DeviceInfo(name: "Late", metadata: [MetadataKey.bodySensorLocation: "chest"])),
            notification(2, hrm(rr: [1024])),
        ])
        await pipeline.finishAll(reason: .shutdown)
        let series = sink.contents.heartbeatSeries
        #expect(series.map(\.count) == [3])
        #expect(series.first?.beats.map(\.precededByGap) == [true, false, false])
        #expect(series.first?.device?.name == "Late")
        #expect(series.first?.metadata[MetadataKey.bodySensorLocation] == "chest")
        #expect(sink.contents.devices[addressA]?.name == "Late")
    }

    @Test func statusReportsTheLiveState() async throws {
        let (pipeline, _) = makePipeline()
        await feed(pipeline, [
            connected(0, device: DeviceInfo(name: "S")), notification(1, hrm(72, rr: [1024])),
            .battery(address: addressA, percent: 55, at: at(1.2)), notification(2, hrm(74, rr: [1024])),
        ])
        let status = try #require(await pipeline.status().first)
        #expect(status.connected)
        #expect(status.currentBPM == 74)
        #expect(status.batteryPercent == 55)
        #expect(status.beatsInOpenSeries == 3)
        #expect(status.lastNotification == at(2).wall)
        #expect(status.seriesFinished == 0)
        #expect(status.counters.notifications == 2)
    }

    @Test func liveEventsReportBeatsHeartRateAndFinishedSeries() async throws {
        let collected = LiveCollector()
        let sink = InMemorySeriesSink()
        let pipeline = IngestPipeline(sink: sink, onLiveEvent: { collected.append($0) })
        await feed(pipeline, [connected(0), notification(1, hrm(60, rr: [1024])),
                              .disconnected(address: addressA, reason: .linkLost, at: at(2))])
        let events = collected.events
        #expect(events.first == .connected(address: addressA, device: DeviceInfo(localIdentifier: addressA), at: at(0).wall))
        #expect(events.contains(.heartRate(address: addressA, bpm: 60, at: at(1).wall)))
        #expect(events.contains(.beats(address: addressA, beats: [LiveBeat(time: at(0).wall, precededByGap: true),
                                                                  LiveBeat(time: at(1).wall, precededByGap: false)])))
        let finished = events.compactMap { if case .seriesFinished(_, let uuid, _, .disconnect) = $0 { uuid } else { nil } }
        #expect(Set(finished) == Set(sink.contents.saved.map(\.uuid)))
        #expect(events.last == .disconnected(address: addressA, reason: .linkLost, at: at(2).wall))
    }

    @Test func liveEventsReportSkinContactWhenItChanges() async throws {
        let collected = LiveCollector()
        let pipeline = IngestPipeline(sink: InMemorySeriesSink(), onLiveEvent: { collected.append($0) })
        await feed(pipeline, [connected(0), notification(1, hrm(60, rr: [1024])), notification(2, hrm(60, rr: [1024])),
                              notification(3, hrm(0, contact: .notDetected)), notification(4, hrm(0, contact: .notDetected)),
                              notification(5, hrm(62, rr: [1000])),
                              notification(6, hrm(62, rr: [1000], contact: .notSupported))])
        let contact = collected.events.compactMap { if case .contact(_, let detected, let t) = $0 { (detected, t) } else { nil } }
        // First reported, lost, back; repeats and "cannot tell" say nothing.
        #expect(contact.map(\.0) == [true, false, true])
        #expect(contact.map(\.1) == [at(1).wall, at(3).wall, at(5).wall])
        #expect(await pipeline.status().first?.contact == true)
    }
}

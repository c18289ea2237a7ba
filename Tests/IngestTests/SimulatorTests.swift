import Foundation
import HealthModel
import HeartRate
import SourceEvents
import Testing
@testable import Ingest

@Suite struct SimulatorTests {
    @Test func recordingIsThePyhrvSample() {
        #expect(SimulatorRecording.nnIntervalsMs.count == 337)
        #expect(SimulatorRecording.nnIntervalsMs.first == 859)
        #expect(SimulatorRecording.nnIntervalsMs.allSatisfy { (719...1195).contains($0) })
    }

    @Test func scriptSendsAboutOneNotificationPerSecondWithTheRecordingsRR() {
        var script = SimulatorScript(recording: [1000, 500, 1500])
        var rr: [UInt16] = []
        var times: [Double] = []
        for _ in 0..<12 {
            let (elapsed, m) = script.next()
            times.append(elapsed)
            rr += m.rrIntervals
            #expect(m.contact == .detected)
        }
        #expect(times == (1...12).map(Double.init))
        // Beats at 1, 1.5, 3, 4, 4.5, 6, … s: four rounds of the recording in 12 s.
        #expect(rr == Array([[1024, 512, 1536], [1024, 512, 1536], [1024, 512, 1536], [1024, 512, 1536]].joined()))
    }

    @Test func simulatedSensorFeedsThePipelineWithTheRecordingExactly() async throws {
        let start = Timestamp(unixSeconds: 2_000_000_000)
        let sensor = SimulatedSensor(speed: .infinity, clock: .simulated(start: start), notificationLimit: 400)
        let (pipeline, sink) = makePipeline()
        await pipeline.consume(sensor, tickWithEventTime: true)
        let status = try #require(await pipeline.status().first)
        #expect(status.address == SimulatedSensor.defaultAddress)
        #expect(!status.connected)
        #expect(status.counters.notifications == 400)
        #expect(status.counters.gapsByRule == ["connection": 1])
        #expect(status.counters.malformed == 0)
        #expect(sink.contents.devices[SimulatedSensor.defaultAddress]?.name == "heartd simulated sensor")
        // Every RR of the recording (looping) comes out as the spacing of consecutive beats; the first beat is the
        // anchor the first RR starts from.
        let beats = sink.contents.heartbeatSeries.flatMap { s in s.beats.map { s.start.timeIntervalSince1970 + $0.offset } }
        let spacing = zip(beats, beats.dropFirst()).map { Int((($1 - $0) * 1024).rounded()) }
        let recording = SimulatorRecording.nnIntervalsMs.map { Int((Double($0) * 1.024).rounded()) }
        let expected = (0..<spacing.count).map { recording[$0 % recording.count] }
        #expect(spacing.count > 400)
        #expect(spacing == expected)
        let energy = sink.contents.quantities(.activeEnergyBurned).reduce(0) { $0 + ($1.aggregates.sum ?? 0) }
        #expect(energy == 100) // 0.25 kJ/s over 400 s; the baseline at 1 s reads 0
    }

    @Test func realTimeSensorCanBeStoppedByTheConsumer() async throws {
        let sensor = SimulatedSensor(address: "00:00:00:00:00:01", speed: 50)
        var count = 0
        for await event in sensor.events() {
            if case .notification(let address, let bytes, _) = event {
                #expect(address == "00:00:00:00:00:01")
                #expect(throws: Never.self) { try HeartRateMeasurement(decoding: bytes) }
                count += 1
                if count == 3 { break }
            }
        }
        #expect(count == 3)
    }
}

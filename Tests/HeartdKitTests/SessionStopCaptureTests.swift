import Control
import Foundation
import HealthModel
@testable import HeartdKit
import HeartQueries
import HeartStore
import Ingest
import IngestTestSupport
import Logging
import SourceEvents
import TestBus
import Testing

/// `session.stop` replies as soon as the session's end and its statistics without the HRV analysis are stored; the
/// analysis (`SessionStatistics.analysis`, ~¼ s for a 24-hour session in release) follows on a thread of its own
/// (`SessionAnalyses`) and is added to the stored session. A notification is handled on the thread that received it
/// (the D-Bus reader's), under the pipeline's lock only, so one handled while a session stops or its analysis runs
/// never waits for either: capture runs on.
@Suite struct SessionStopCaptureTests {
    static let device = "A0:9E:1A:00:00:30"

    @Test(.timeLimit(.minutes(1)))
    func aNotificationHandledDuringAStopNeverWaitsForTheAnalysis() async throws {
        let dir = try TestDirectory("stop")
        defer { dir.remove() }
        let database = try HeartDatabase(path: dir.file("store.sqlite"))
        // Three hours of beats stored in the session: its analysis takes a while even in a debug build.
        let start = Date().addingTimeInterval(-3 * 3600)
        var beats: [Beat] = [], t = 0.0
        for i in 0..<12_000 {
            t += 0.85 + 0.08 * sin(Double(i) / 5) + (i % 97 == 0 ? 0.4 : 0)
            beats.append(Beat(offset: t, precededByGap: i == 0))
        }
        try database.save([.heartbeatSeries(HeartbeatSeriesSample(
            start: start, end: start.addingTimeInterval(t + 0.001), beats: beats,
            device: DeviceInfo(localIdentifier: Self.device)))])
        let session = try database.startSession(Session(label: "stop", start: start, devices: [Self.device]))
        let clock = ContinuousClock()
        let analysisTime = clock.measure {
            #expect(SessionStatistics.analysis([HeartbeatSeriesSample(start: start, end: start.addingTimeInterval(t + 0.001),
                                                                      beats: beats, device: nil)],
                                               from: start, to: Date()) != nil)
        }

        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let store = BackgroundSink(StoreSink(database: database, logger: logger), memoryBufferBeats: 100_000)
        store.start()
        defer { store.stop() }
        let pipeline = IngestPipeline(sink: store)
        let monitor = ActiveSessionMonitor()
        let handler = DaemonControlHandler(pipeline: pipeline, database: database, hub: LiveEventHub(logger: logger),
                                           capture: FixedCaptureControl(kind: .simulator), mode: .simulate, store: store,
                                           monitor: monitor)
        try applyActiveSessions(pipeline: pipeline, database: database, monitor: monitor)
        pipeline.handleNow(.connected(address: Self.device, device: nil, at: .now()))
        let feeder = NotificationFeeder(pipeline: pipeline, address: Self.device)

        feeder.measure(true)
        let t0 = clock.now
        let stopped = try await handler.stopSession(["uuid": .string(session.uuid.uuidString)])
        let stopTime = clock.now - t0
        #expect(stopped.end != nil && (stopped.statistics?.beats ?? 0) >= beats.count, "the reply carries the statistics")
        #expect(stopped.statistics?.rmssdMs != nil)
        #expect(stopped.statistics?.analysis == nil, "the reply does not wait for the analysis")
        // At the store reads' low priority: on a machine busy with other tests it may wait its turn.
        let analysed = await eventually(timeout: 45) { try database.session(uuid: session.uuid)?.statistics?.analysis != nil }
        let analysisDone = clock.now - t0
        feeder.measure(false)
        let fed = feeder.finish()

        #expect(analysed, "the analysis was added to the stored session after the reply")
        let stored = try database.session(uuid: session.uuid)
        #expect(stored?.anchor ?? 0 > stopped.anchor ?? 0, "with a new anchor, so sync sends the session again")
        var plain = stored?.statistics
        plain?.analysis = nil
        #expect(plain == stopped.statistics, "the rest of the statistics as the reply had them")
        #expect(fed.handled >= 3, "notifications were handled while the session stopped (\(fed.handled) in \(analysisDone))")
        // Were the analysis on the notification path, one notification would wait about as long as it runs.
        #expect(fed.longest < analysisTime / 4, """
            longest notification \(fed.longest) during a stop of \(stopTime) and its analysis (done after \
            \(analysisDone)); the analysis alone takes \(analysisTime)
            """)
    }

    /// `session.show` of an ended session whose analysis is not stored (yet) computes it for its answer.
    @Test func showingASessionStoppedWithoutItsAnalysisComputesIt() throws {
        let database = try HeartDatabase.inMemory()
        let start = Date().addingTimeInterval(-3600)
        var beats: [Beat] = [], t = 0.0
        for i in 0..<600 {
            t += 0.85 + 0.08 * sin(Double(i) / 5)
            beats.append(Beat(offset: t, precededByGap: i == 0))
        }
        try database.save([.heartbeatSeries(HeartbeatSeriesSample(
            start: start, end: start.addingTimeInterval(t + 0.001), beats: beats,
            device: DeviceInfo(localIdentifier: Self.device)))])
        let session = try database.startSession(Session(label: "show", start: start, devices: [Self.device]))
        _ = try database.stopSession(uuid: session.uuid, end: start.addingTimeInterval(t + 1), analysis: false)
        let shown = try StoreQueries(database: database).answer(SessionShowCall.self, UUIDParams(uuid: session.uuid.uuidString))
        #expect(shown.statistics?.analysis != nil)
        #expect(try database.session(uuid: session.uuid)?.statistics?.analysis == nil, "computed for the answer, not stored")
    }
}

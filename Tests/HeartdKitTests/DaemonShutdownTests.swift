import Foundation
import HeartStore
import HealthModel
import Testing
import Glibc

/// SIGTERM finishes every open series quickly and saves them with finish reason `shutdown`.
@Suite("heartd graceful shutdown")
struct DaemonShutdownTests {
    @Test("SIGTERM: exit within 2 s, every open series saved with reason shutdown, no checkpoint left")
    func sigtermFinishesOpenSeries() throws {
        let dir = try TestDirectory("term")
        defer { dir.remove() }
        // Long series: nothing finishes on its own before the signal.
        let daemon = try DaemonProcess(dir: dir, speed: 20, settings: ["series.max_duration_seconds=3600"])
        defer { daemon.stop() }
        let client = try daemon.client()
        var beatsBefore = 0
        let deadline = Date().addingTimeInterval(10)
        while beatsBefore < 30, Date() < deadline {
            usleep(100_000)
            beatsBefore = TestJSON.beats(inStatus: try client.callObject("status"))
        }
        #expect(beatsBefore >= 30)
        let sent = Date()
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeout: 10))
        let took = Date().timeIntervalSince(sent)
        #expect(took < 2, "SIGTERM to exit took \(took) s")
        #expect(daemon.process.terminationStatus == 0, "clean exit:\n\(daemon.log())")

        let store = try HeartDatabase.openReadOnly(path: daemon.db)
        let samples = try store.samples(limit: 100_000)
        let reasons = Set(samples.map { $0.metadata[MetadataKey.finishReason] ?? "none" })
        #expect(reasons == ["shutdown"], "only the open series were finished, by shutdown: \(reasons)")
        let types = Set(samples.map(\.typeIdentifier))
        #expect(types.contains(Sample.heartbeatSeriesIdentifier))
        #expect(types.contains(QuantityType.heartRate.identifier))
        let storedBeats = samples.filter { $0.typeIdentifier == Sample.heartbeatSeriesIdentifier }.reduce(0) { $0 + $1.count }
        #expect(storedBeats >= beatsBefore, "every beat counted before the signal is stored")
        #expect(try store.checkpoints().isEmpty, "no open series left for recovery")
        let journal = try Data(contentsOf: URL(fileURLWithPath: daemon.db + "-open"))
        #expect(journal.count < 64, "the open-series journal is emptied once nothing is open (\(journal.count) bytes)")
        #expect(try integrityCheck(daemon.db) == "ok")
    }

    @Test("SIGTERM while the source outruns the pipeline (unthrottled simulator): still exits within 2 s")
    func sigtermWithBacklog() throws {
        let dir = try TestDirectory("termfast")
        defer { dir.remove() }
        // Effectively unthrottled: the simulator queues events faster than the pipeline handles them.
        let daemon = try DaemonProcess(dir: dir, speed: 1e9, settings: ["series.max_duration_seconds=3600"])
        defer { daemon.stop() }
        usleep(1_500_000)  // the scenario: let the backlog build before the signal
        let beatsBefore = TestJSON.beats(inStatus: try daemon.client().callObject("status"))
        let sent = Date()
        daemon.signal(SIGTERM)
        let exited = daemon.waitForExit(timeout: 10)
        let took = Date().timeIntervalSince(sent)
        #expect(exited && took < 2, "SIGTERM to exit took \(took) s (exited: \(exited))")
        guard exited else { return }
        let store = try HeartDatabase.openReadOnly(path: daemon.db)
        let samples = try store.samples(type: Sample.heartbeatSeriesIdentifier, limit: 100_000)
        // At this speed series rotate on their own; the last one is the one shutdown finished.
        #expect(samples.last?.metadata[MetadataKey.finishReason] == "shutdown")
        #expect(samples.allSatisfy { $0.metadata[MetadataKey.recovered] == nil })
        #expect(samples.reduce(0) { $0 + $1.count } >= beatsBefore)
        #expect(try store.checkpoints().isEmpty)
    }
}

import Foundation
import HealthModel
import IngestTestSupport
import SourceEvents
import Testing
@testable import Ingest

/// Series belong to at most one session: a session's start and stop rotate the open series of its devices without
/// losing or flagging a beat, and a disconnect inside a session ends the series, not the session.
@Suite struct SessionRotationTests {
    func steady(from: Double, count: Int, address: String = addressA) -> [SourceEvent] {
        (0..<count).map { notification(from + Double($0), hrm(60, rr: [1024]), address: address) }
    }

    @Test func startAndStopRotateWithoutLosingOrFlaggingABeat() async throws {
        let (pipeline, sink) = makePipeline()
        let session = Session(label: "round 1", start: Date(timeIntervalSince1970: t0 + 5.5), devices: [addressA])
        await feed(pipeline, steady(from: 1, count: 5))
        pipeline.setActiveSessions([session], at: at(5.5))
        await feed(pipeline, steady(from: 6, count: 5))
        var ended = session
        ended.end = Date(timeIntervalSince1970: t0 + 10.5)
        pipeline.setActiveSessions([], at: at(10.5))
        await feed(pipeline, steady(from: 11, count: 5))
        await pipeline.finishAll(reason: .shutdown)

        let series = sink.contents.heartbeatSeries
        #expect(series.count == 3)
        #expect(series.map { $0.metadata[MetadataKey.session] } == [nil, session.uuid.uuidString, nil])
        #expect(series.map { $0.metadata[MetadataKey.sessionLabel] } == [nil, "round 1", nil])
        #expect(series.map { $0.metadata[MetadataKey.finishReason] } == ["session", "session", "shutdown"])
        // Every beat kept, only the very first flagged: the chain continues across both rotations.
        let beats = sink.contents.absoluteBeats
        #expect(beats.count == 16)
        #expect(beats.map(\.gap) == [true] + Array(repeating: false, count: 15))
        // The tagged series lies wholly inside the session.
        let inside = series[1]
        #expect(inside.start >= session.start && inside.end <= ended.end!)
        // The quantity series rotate and are tagged too.
        #expect(sink.contents.quantities(.heartRate).map { $0.metadata[MetadataKey.session] } == [nil, session.uuid.uuidString, nil])
    }

    @Test func aDisconnectInsideASessionEndsTheSeriesNotTheSession() async throws {
        let (pipeline, sink) = makePipeline()
        let session = Session(label: "night", start: Date(timeIntervalSince1970: t0))
        pipeline.setActiveSessions([session], at: at(0))
        await feed(pipeline, [connected(0.5)] + steady(from: 1, count: 4)
                   + [.disconnected(address: addressA, reason: .linkLost, at: at(4.5)), connected(8)]
                   + steady(from: 9, count: 3))
        await pipeline.finishAll(reason: .shutdown)
        let series = sink.contents.heartbeatSeries
        #expect(series.count == 2)
        #expect(series.allSatisfy { $0.metadata[MetadataKey.session] == session.uuid.uuidString })
        #expect(series.map { $0.metadata[MetadataKey.finishReason] } == ["disconnect", "shutdown"])
        #expect(series.map { $0.beats.first?.precededByGap } == [true, true])
    }

    @Test func sessionsOnDifferentDevicesTagOnlyTheirOwn() async throws {
        let addressB = "AA:BB:CC:DD:EE:02"
        let (pipeline, sink) = makePipeline()
        let a = Session(label: "a", start: Date(timeIntervalSince1970: t0), devices: [addressA])
        let b = Session(label: "b", start: Date(timeIntervalSince1970: t0), devices: [addressB])
        pipeline.setActiveSessions([a, b], at: at(0))
        await feed(pipeline, steady(from: 1, count: 3) + steady(from: 1.5, count: 3, address: addressB))
        await pipeline.finishAll(reason: .shutdown)
        let byDevice = Dictionary(grouping: sink.contents.heartbeatSeries) { $0.device?.localIdentifier ?? "" }
        #expect(byDevice[addressA]?.map { $0.metadata[MetadataKey.sessionLabel] } == ["a"])
        #expect(byDevice[addressB]?.map { $0.metadata[MetadataKey.sessionLabel] } == ["b"])
    }

    @Test func aSessionsOwnMetadataGoesOnItsSeriesButNotItsReservedKeys() async throws {
        let (pipeline, sink) = makePipeline()
        let session = Session(label: "r7", start: Date(timeIntervalSince1970: t0), devices: [addressA],
                              metadata: ["game": "round-7", MetadataKey.syncIdentifier: "lab-1", MetadataKey.syncVersion: "2",
                                         MetadataKey.finishReason: "forged", "HeartdSession": "forged"])
        pipeline.setActiveSessions([session], at: at(0))
        await feed(pipeline, steady(from: 1, count: 3))
        await pipeline.finishAll(reason: .shutdown)
        let series = sink.contents.heartbeatSeries
        #expect(series.count == 1)
        let meta = try #require(series.first?.metadata)
        #expect(meta["game"] == "round-7")
        #expect(meta[MetadataKey.session] == session.uuid.uuidString)
        #expect(meta[MetadataKey.syncIdentifier] == nil && meta[MetadataKey.syncVersion] == nil)
        #expect(meta[MetadataKey.finishReason] == "shutdown")
        #expect(sink.contents.quantities(.heartRate).allSatisfy { $0.metadata["game"] == "round-7" })
    }
}

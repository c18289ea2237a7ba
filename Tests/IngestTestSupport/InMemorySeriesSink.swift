import Foundation
import HealthModel
import Ingest
import Synchronization

/// A sink that keeps everything in memory, for tests and `--dry-run` style use. It can be told to fail
/// (as a full disk would) to exercise the pipeline's buffering.
public final class InMemorySeriesSink: SeriesSink {
    /// Everything the sink holds.
    public struct Contents: Sendable {
        /// Finished samples, in the order they were saved.
        public var saved: [Sample] = []
        /// Open-series checkpoints by UUID (latest write wins; closed ones removed).
        public var checkpoints: [UUID: Sample] = [:]
        /// Devices by address.
        public var devices: [String: DeviceInfo] = [:]
        /// Number of calls to `save` that succeeded.
        public var saveCalls = 0
        /// Number of calls to `writeCheckpoints`, failed ones included.
        public var checkpointCalls = 0
        /// Every checkpoint written, as handed over, one entry per call that succeeded.
        public var checkpointLog: [[SeriesCheckpoint]] = []
        /// Number of calls that threw because `failing` was set.
        public var failedCalls = 0
        /// When true every call throws `SinkError(.full, …)`.
        public var failing = false
    }

    private let state = Mutex(Contents())

    public init() {}

    /// A copy of the current contents.
    public var contents: Contents { state.withLock { $0 } }

    /// Makes every following call fail (true) or succeed (false).
    public func setFailing(_ failing: Bool) {
        state.withLock { $0.failing = failing }
    }

    public func save(_ samples: [Sample], closingCheckpoints: [UUID]) throws {
        try state.withLock { s throws(SinkError) in
            try Self.check(&s)
            s.saved.append(contentsOf: samples)
            for id in closingCheckpoints { s.checkpoints[id] = nil }
            s.saveCalls += 1
        }
    }

    /// Holds each checkpoint as the sample it describes: a whole one as it is, a change applied to the one held
    /// (`Sample.applying`); a change that does not follow it throws, as the store does.
    public func writeCheckpoints(_ open: [SeriesCheckpoint]) throws {
        try state.withLock { s throws(SinkError) in
            s.checkpointCalls += 1
            try Self.check(&s)
            var updated = s.checkpoints
            for checkpoint in open {
                switch checkpoint {
                case .full(let sample): updated[sample.uuid] = sample
                case .appended(let change):
                    guard let applied = updated[change.uuid]?.applying(change) else {
                        throw SinkError(.unavailable, "checkpoint change of \(change.uuid) follows nothing held")
                    }
                    updated[change.uuid] = applied
                }
            }
            s.checkpoints = updated
            s.checkpointLog.append(open)
        }
    }

    public func upsertDevice(_ device: DeviceInfo) throws {
        try state.withLock { s throws(SinkError) in
            try Self.check(&s)
            s.devices[device.localIdentifier ?? ""] = device
        }
    }

    private static func check(_ s: inout Contents) throws(SinkError) {
        if s.failing {
            s.failedCalls += 1
            throw SinkError(.full, "in-memory sink told to fail")
        }
    }
}

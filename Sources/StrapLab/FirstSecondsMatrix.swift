import Ingest

/// Issue 30, item 0, as one reusable measurement: every fault class starting in the first seconds of a
/// connection and of a reconnection, at several arrival jitters and seeds; clean runs with a reconnection; and
/// senders that notify only when a beat ends (`StrapSender`). `TimelineFirstSecondsTests` asserts on it with a
/// few seeds, `heartbench timeline --first-seconds` prints it with many (docs/INGEST.md, "From the first
/// notification").
public enum FirstSecondsMatrix {
    /// The fault starts at these notifications of the connection (the 2nd, 5th, …).
    public static let offsets = [2, 5, 10, 30, 45]
    /// Arrival lateness is uniform in [0, jitter] (seconds).
    public static let jitters = [0.02, 0.06, 0.2, 0.4]
    /// The classes whose faults happen while the link stays up, and the loud one.
    public static let faults: [FaultClass] = [.singleLoss, .burstLoss, .rrLess, .contactFlap, .drift, .highRate,
                                              .slowHeart, .loud]

    public struct Cell: Sendable {
        public var offset: Int
        public var jitter: Double
        public var tally: TimelineTally
    }

    /// One class after a connect or a reconnect: a tally per (offset, jitter) over `seeds`.
    public static func cells(_ fault: FaultClass, afterReconnect: Bool, seeds: Range<UInt64>) async -> [Cell] {
        var cells: [Cell] = []
        for offset in offsets {
            for jitter in jitters {
                var tally = TimelineTally()
                for seed in seeds {
                    let scenario = StrapScenario.firstSeconds(fault, seed: seed, offset: offset, jitter: jitter,
                                                              afterReconnect: afterReconnect)
                    tally.add(await TimelineScore.score(StrapGenerator.generate(scenario)))
                }
                cells.append(Cell(offset: offset, jitter: jitter, tally: tally))
            }
        }
        return cells
    }

    /// Fault-free runs of `notifications` with a reconnection halfway, at `jitter`: only the two connections
    /// may be flagged.
    public static func clean(jitter: Double, seeds: Range<UInt64>, notifications: Int = 600) async -> TimelineTally {
        var tally = TimelineTally()
        for seed in seeds {
            var scenario = StrapScenario(fault: .clean, seed: seed, notifications: notifications)
            scenario.maxJitter = jitter
            scenario.outage = notifications / 2..<notifications / 2 + 4
            tally.add(await TimelineScore.score(StrapGenerator.generate(scenario)))
        }
        return tally
    }

    /// Fault-free runs of a sender that notifies when a beat ends, at `bpm` and `jitter`, with a reconnection
    /// after `StrapScenario.reconnectOutage`: only the two connections may be flagged.
    public static func perBeat(_ sender: StrapSender, bpm: Double, jitter: Double, seeds: Range<UInt64>,
                               recording: [Int] = SimulatorRecording.nnIntervalsMs) async -> TimelineTally {
        var tally = TimelineTally()
        for seed in seeds {
            let scenario = StrapScenario.perBeat(sender, seed: seed, bpm: bpm, jitter: jitter, recording: recording)
            tally.add(await TimelineScore.score(StrapGenerator.generate(scenario, recording: recording)))
        }
        return tally
    }
}

import Ingest
import SeededRandom

/// The fault classes of issue 10: what goes wrong between a chest strap and heartd while the link stays up
/// (the quiet ones) and the loud ones the loud rules already handle.
public enum FaultClass: String, Sendable, CaseIterable {
    /// Jitter and drift only: no beat is missing, so nothing but the connection may be flagged.
    case clean
    /// About one notification in 25 lost on its own (the sensor's queue overflowed, the host stalled).
    case singleLoss = "single-loss"
    /// Two to five consecutive notifications lost.
    case burstLoss = "burst-loss"
    /// One to ten consecutive notifications sent without RR (beat detection failed), heart rate held.
    case rrLess = "rr-less"
    /// One to five notifications with skin contact "not detected".
    case contactFlap = "contact-flap"
    /// Sensor clock ±100 ppm against the host, with single losses.
    case drift
    /// RR scaled by 0.36 (≈ 190 bpm): three or four RR values per notification, with single losses and
    /// short RR-less stretches.
    case highRate = "high-rate"
    /// RR scaled by 1.3 (≈ 50 bpm): many notifications legitimately carry no RR; with single losses.
    case slowHeart = "slow-heart"
    /// A sensor that never sends RR (heart rate only), with single losses: no beats, no gaps.
    case noRR = "no-rr"
    /// Disconnects, pauses longer than the gap threshold, an RR of 0.
    case loud
}

/// One generated run: a real RR recording played by a simulated strap with one fault class.
public struct StrapScenario: Sendable, Hashable {
    public var fault: FaultClass
    public var seed: UInt64
    /// Notifications the strap sends (lost ones included).
    public var notifications: Int
    /// Notifications at the start left alone, while the cadence model learns.
    public var warmUp: Int
    /// Arrival lateness is uniform in [0, maxJitter] seconds on top of `latency`.
    public var maxJitter: Double
    /// Sensor clock against the host's, parts per million.
    public var driftPPM: Double
    /// RR values are the recording's times this.
    public var rrScale: Double
    /// The strap's notification period on its own clock (seconds).
    public var period: Double
    /// Constant link latency (seconds).
    public var latency: Double
    /// When set, faults of the class start exactly at these notification indices (lengths still seeded) and
    /// nowhere else, warm-up or not: notification j is sent j + 1 periods after the connection.
    public var faultStarts: [Int]?
    /// When set, the link is lost for these notifications and reconnects at the next one (a fresh connection).
    public var outage: Range<Int>?
    /// When the strap notifies: at its cadence (the default) or when a beat ends.
    public var sender = StrapSender.cadence

    /// The scenario for a fault class and seed: jitter cycles through 20, 100, 200, 400 ms with the seed; drift,
    /// phases and where faults fall come from the seed.
    public init(fault: FaultClass, seed: UInt64, notifications: Int = 300, warmUp: Int = 70) {
        var rng = SplitMix64(seed: seed ^ 0x5EED)
        self.fault = fault
        self.seed = seed
        self.notifications = notifications
        self.warmUp = warmUp
        maxJitter = [0.02, 0.1, 0.2, 0.4][Int(seed % 4)]
        driftPPM = fault == .drift ? (Bool.random(using: &rng) ? 100 : -100) : Double.random(in: -100...100, using: &rng)
        rrScale = fault == .highRate ? 0.36 : fault == .slowHeart ? 1.3 : 1
        period = 1
        latency = 0.015
    }
}

extension StrapScenario {
    /// Where `firstSeconds` puts the outage: the link is lost 60 notifications in, for 3 (a disconnect, no
    /// notification for longer than the gap threshold, then a fresh connection).
    public static let reconnectOutage = 60..<63

    /// A run whose one fault of `fault`'s class starts `offset` seconds after the connection (the `offset`-th
    /// notification of it) or, `afterReconnect`, after the reconnection that follows `reconnectOutage`; arrival
    /// lateness uniform in [0, `jitter`]; drift and phases from the seed. Long enough for the longest fault and
    /// 15 clean notifications after it.
    public static func firstSeconds(_ fault: FaultClass, seed: UInt64, offset: Int, jitter: Double,
                                    afterReconnect: Bool) -> StrapScenario {
        let connection = afterReconnect ? reconnectOutage.upperBound : 0
        var scenario = StrapScenario(fault: fault, seed: seed, notifications: connection + offset + 25)
        scenario.maxJitter = jitter
        scenario.faultStarts = [connection + offset - 1]
        if afterReconnect { scenario.outage = reconnectOutage }
        return scenario
    }
}

extension StrapScenario {
    /// A fault-free run of a sender that notifies when a beat ends (`sender` not `.cadence`): the recording
    /// scaled to `bpm` on average, arrival lateness uniform in [0, `jitter`], the link lost for
    /// `reconnectOutage` and reconnected; drift and phases from the seed. Long enough for 25 notifications after
    /// the reconnection.
    public static func perBeat(_ sender: StrapSender, seed: UInt64, bpm: Double, jitter: Double,
                               recording: [Int] = SimulatorRecording.nnIntervalsMs) -> StrapScenario {
        var scenario = StrapScenario(fault: .clean, seed: seed, notifications: reconnectOutage.upperBound + 25)
        let meanMs = Double(recording.reduce(0, +)) / Double(max(1, recording.count))
        scenario.sender = sender
        scenario.rrScale = 60_000 / bpm / meanMs
        scenario.maxJitter = jitter
        scenario.outage = reconnectOutage
        return scenario
    }
}

import HeartRate
import Ingest
import SeededRandom
import SourceEvents

/// One source event of a generated run, with the truth about it.
public struct StrapStep: Sendable {
    public var event: SourceEvent
    /// The true beats (indices into `StrapRecording.rr`) whose RR values this notification delivers, plausible
    /// and with skin contact, oldest first; empty for every other event.
    public var delivered: Range<Int>
}

/// What a strap sent and the host saw for one scenario, with the true beats behind it.
public struct StrapRecording: Sendable {
    public var scenario: StrapScenario
    /// `rr[k]`: ticks (1/1024 s, the sensor's clock) from beat k − 1 to beat k; `rr[0]` is 0.
    public var rr: [Int]
    public var steps: [StrapStep]
    /// Notifications per injected fault (`lost`, `no-rr`, `no-contact`, `zero-rr`, `disconnected`).
    public var injected: [String: Int]
    /// `beatTicks[k]`: beat k on the sensor clock (ticks since the strap started).
    public var beatTicks: [Int] = []
    /// Every notification the strap sent, lost ones included (`heartbench timeline --list-misses` prints them).
    public var sent: [StrapNotification] = []
}

/// One notification as the strap sent it: when, which true beats it held, and its fault (`normal` when none).
public struct StrapNotification: Sendable, Hashable {
    /// Sensor seconds since the strap started.
    public var send: Double
    /// The true beats completed in its window.
    public var window: Range<Int>
    /// `normal`, `lost`, `no-rr`, `no-contact`, `zero-rr` or `disconnected`.
    public var fault: String
    /// Host seconds since the first connection at which it arrived, nil if it did not.
    public var arrival: Double?
}

/// Turns a real RR recording into what a chest strap sends and the host receives (pure, deterministic per seed).
///
/// The strap beats at the recording's RR (scaled, looped from a seeded start, first beat at a seeded phase) and
/// notifies every `period` seconds of its own clock with the RR of the beats completed since its previous
/// notification, and the heart rate of the last of them (held when there is none). The host receives at
/// `send·(1 + drift) + latency + U(0, maxJitter)`, in order. Other senders notify when a beat ends
/// (`StrapSender`). Faults of the scenario's class are injected after
/// the warm-up, each followed by at least four clean notifications, or exactly where the scenario says
/// (`faultStarts`, `outage`).
public enum StrapGenerator {
    public static let address = "5A:7A:90:00:00:01"
    /// Host times start here (seconds), small so that dates keep sub-microsecond precision.
    public static let epoch = 1000.0

    enum Kind: String { case normal, lost, noRR = "no-rr", noContact = "no-contact", zeroRR = "zero-rr", disconnected }

    public static func generate(_ s: StrapScenario, recording: [Int] = SimulatorRecording.nnIntervalsMs) -> StrapRecording {
        var rng = SplitMix64(seed: s.seed)
        let kinds = plan(s, rng: &rng)
        // True beats on the sensor clock, in ticks.
        var rr = [0], ticks = [Int.random(in: 0..<Int(s.period * 1024), using: &rng)]
        var next = Int.random(in: 0..<recording.count, using: &rng)
        func beat() {
            let value = Int((Double(recording[next % recording.count]) * s.rrScale * 1.024).rounded())
            rr.append(value)
            ticks.append(ticks[ticks.count - 1] + value)
            next += 1
        }
        while Double(ticks[ticks.count - 1]) / 1024 < Double(s.notifications + 1) * s.period { beat() }
        var schedule = s.sender.schedule(count: s.notifications, ticks: ticks, period: s.period)
        while schedule == nil {
            beat()
            schedule = s.sender.schedule(count: s.notifications, ticks: ticks, period: s.period)
        }
        var steps = [StrapStep(event: .connected(address: address, device: nil, at: Timestamp(unixSeconds: epoch)),
                               delivered: 0..<0)]
        var injected: [String: Int] = [:]
        var bpm: UInt16 = 60, lastArrival = 0.0, connected = true
        var sent: [StrapNotification] = []
        for (j, (send, window)) in (schedule ?? []).enumerated() {
            if let last = window.last, last > 0 { bpm = UInt16(clamping: Int((60 * 1024 / Double(rr[last])).rounded())) }
            let arrival = max(lastArrival + 0.0005, send * (1 + s.driftPPM * 1e-6) + s.latency
                              + Double.random(in: 0...s.maxJitter, using: &rng))
            let kind = kinds[j]
            if kind != .normal { injected[kind.rawValue, default: 0] += 1 }
            let arrives = kind != .lost && kind != .disconnected
            sent.append(StrapNotification(send: send, window: window, fault: kind.rawValue, arrival: arrives ? arrival : nil))
            switch kind {
            case .lost: continue
            case .disconnected:
                if connected {
                    steps.append(StrapStep(event: .disconnected(address: address, reason: .linkLost,
                                                                at: at(lastArrival + 0.3)), delivered: 0..<0))
                    connected = false
                }
                continue
            default: break
            }
            lastArrival = arrival
            if !connected {
                steps.append(StrapStep(event: .connected(address: address, device: nil, at: at(arrival - 0.2)),
                                       delivered: 0..<0))
                connected = true
            }
            var values = s.fault == .noRR || kind == .noRR ? [] : window.map { UInt16(rr[$0]) }
            var delivered = s.fault == .noRR || kind != .normal ? 0..<0 : window
            if kind == .zeroRR, !window.isEmpty {
                values[0] = 0
                delivered = window.dropFirst()
            }
            let measurement = HeartRateMeasurement(bpm: bpm, contact: kind == .noContact ? .notDetected : .detected,
                                                   rrIntervals: values)
            steps.append(StrapStep(event: .notification(address: address, bytes: measurement.encoded(), at: at(arrival)),
                                   delivered: delivered))
        }
        return StrapRecording(scenario: s, rr: rr, steps: steps, injected: injected, beatTicks: ticks, sent: sent)
    }

    static func at(_ seconds: Double) -> Timestamp { Timestamp(unixSeconds: epoch + seconds) }

    /// Which notifications suffer which fault.
    static func plan(_ s: StrapScenario, rng: inout SplitMix64) -> [Kind] {
        var kinds = [Kind](repeating: .normal, count: s.notifications)
        if let outage = s.outage {
            for i in outage.clamped(to: 0..<s.notifications) { kinds[i] = .disconnected }
        }
        if let starts = s.faultStarts {
            for start in starts where (0..<s.notifications).contains(start) {
                let (kind, length) = fault(s.fault, rng: &rng)
                for i in start..<min(s.notifications, start + length) { kinds[i] = kind }
            }
            return kinds
        }
        var j = s.warmUp
        while j < s.notifications - 6 {
            guard Double.random(in: 0..<1, using: &rng) < 0.04 else {
                j += 1
                continue
            }
            let (kind, length) = fault(s.fault, rng: &rng)
            for i in j..<min(s.notifications - 5, j + length) { kinds[i] = kind }
            j += length + 4
        }
        return kinds
    }

    static func fault(_ fault: FaultClass, rng: inout SplitMix64) -> (Kind, Int) {
        switch fault {
        case .clean: (.normal, 1)
        case .singleLoss, .drift, .slowHeart, .noRR: (.lost, 1)
        case .burstLoss: (.lost, Int.random(in: 2...5, using: &rng))
        case .rrLess: (.noRR, Int.random(in: 1...10, using: &rng))
        case .contactFlap: (.noContact, Int.random(in: 1...5, using: &rng))
        case .highRate: Bool.random(using: &rng) ? (.lost, 1) : (.noRR, Int.random(in: 1...3, using: &rng))
        case .loud:
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: (.disconnected, Int.random(in: 3...8, using: &rng))
            case 1: (.lost, Int.random(in: 4...6, using: &rng))
            default: (.zeroRR, 1)
            }
        }
    }
}

import Foundation

/// One person's effort over a session, from their heart rate as it arrives: the time in each zone (`HeartZone`, by %
/// of HRmax), effort points and, when weight and age are known, calories. Pure: no clock, no I/O; the caller feeds
/// each heart rate with its time.
///
/// - Time: each heart rate counts from its time until the next one, at most `maxGapSeconds` (a silent sensor, a lost
///   link: a gap longer than that counts only up to the bound, not the whole silence).
/// - **Effort points**, as Myzone's MEPs: per minute in zone, grey 1, blue 2, green 3, yellow 4, red 4 (below 50 %
///   HRmax: none), prorated by the second.
/// - **Calories**: Keytel et al. 2005 (J Sports Sci 23(3):289–297), energy expenditure from heart rate, weight (kg)
///   and age (years) without VO₂max:
///   - men:   kcal/min = (−55.0969 + 0.6309·HR + 0.1988·weight + 0.2017·age) / 4.184
///   - women: kcal/min = (−20.4022 + 0.4472·HR − 0.1263·weight + 0.074·age) / 4.184
///   - sex unknown: the mean of the two. A negative rate (a heart rate at rest) counts as zero. The equation was fitted
///     for exercise (heart rates above ~90 bpm); below 50 % HRmax it adds nothing here.
public struct EffortTally: Sendable, Hashable {
    /// What the calorie equation needs of the person; `hrmax` sets the zones.
    public struct Person: Sendable, Hashable {
        public var hrmax: Int
        public var ageYears: Double?
        public var weightKg: Double?
        public var sex: Sex?

        public init(hrmax: Int, ageYears: Double? = nil, weightKg: Double? = nil, sex: Sex? = nil) {
            self.hrmax = hrmax
            self.ageYears = ageYears
            self.weightKg = weightKg
            self.sex = sex
        }
    }

    public enum Sex: String, Codable, Sendable {
        case female, male
    }

    /// Who wears the strap; `wornBy(_:)` changes it mid-session, the effort so far kept.
    public private(set) var person: Person
    public let maxGapSeconds: Double
    /// Seconds in each zone so far (`rest` included).
    public private(set) var secondsInZone: [HeartZone: Double] = [:]
    /// Effort points so far.
    public private(set) var points: Double = 0
    /// Kilocalories so far, nil without weight or age.
    public private(set) var kilocalories: Double?
    private var last: Reading?

    private struct Reading: Sendable, Hashable {
        var bpm: Int
        var time: Date
    }

    public init(person: Person, maxGapSeconds: Double = 5) {
        self.person = person
        self.maxGapSeconds = maxGapSeconds
        if person.weightKg != nil && person.ageYears != nil { kilocalories = 0 }
    }

    /// The strap changed hands, or its person's HRmax, age or weight changed: what was counted stays, what follows
    /// counts for `person`.
    public mutating func wornBy(_ person: Person) {
        guard person != self.person else { return }
        self.person = person
        if person.weightKg != nil && person.ageYears != nil && kilocalories == nil { kilocalories = 0 }
    }

    /// Effort points per minute in a zone (Myzone's scale).
    public static func pointsPerMinute(_ zone: HeartZone) -> Double {
        switch zone {
        case .rest: 0
        case .grey: 1
        case .blue: 2
        case .green: 3
        case .yellow, .red: 4
        }
    }

    /// Keytel et al. 2005: kilocalories a minute at `bpm`; nil without weight or age; never negative.
    public static func kilocaloriesPerMinute(bpm: Double, person: Person) -> Double? {
        guard let weight = person.weightKg, let age = person.ageYears else { return nil }
        let male = (-55.0969 + 0.6309 * bpm + 0.1988 * weight + 0.2017 * age) / 4.184
        let female = (-20.4022 + 0.4472 * bpm - 0.1263 * weight + 0.074 * age) / 4.184
        let rate: Double = switch person.sex {
        case .male: male
        case .female: female
        case nil: (male + female) / 2
        }
        return max(0, rate)
    }

    /// The zone of a heart rate for this person (the whole percentage, as the tile shows it).
    public func zone(bpm: Int) -> HeartZone {
        HeartZone(percent: (Double(bpm) * 100 / Double(max(1, person.hrmax))).rounded())
    }

    /// A heart rate at `time`: the previous one counts up to now (at most `maxGapSeconds`). A time before the
    /// previous one (a clock step) counts nothing and restarts from here.
    public mutating func add(bpm: Int, at time: Date) {
        defer { last = Reading(bpm: bpm, time: time) }
        guard let last else { return }
        let seconds = min(time.timeIntervalSince(last.time), maxGapSeconds)
        guard seconds > 0 else { return }
        let zone = zone(bpm: last.bpm)
        secondsInZone[zone, default: 0] += seconds
        points += Self.pointsPerMinute(zone) * seconds / 60
        if zone != .rest, let rate = Self.kilocaloriesPerMinute(bpm: Double(last.bpm), person: person) {
            kilocalories = (kilocalories ?? 0) + rate * seconds / 60
        }
    }

    /// The heart rate stopped (no contact, a lost link): the last one counts no further than `time` (still at most
    /// `maxGapSeconds`), and the next heart rate starts afresh.
    public mutating func pause(at time: Date) {
        guard let last else { return }
        add(bpm: last.bpm, at: time)
        self.last = nil
    }
}

import Foundation
import WebConfig

/// A tile's effort this session as the browser gets it (`EffortTally`): effort points (Myzone's 1–4 a minute in
/// zone, one decimal), kilocalories (Keytel et al. 2005; absent without `web.age` and `web.weight_kg`) and whole
/// seconds in each zone that has any, keyed by the zone's name.
public struct EffortView: Codable, Sendable, Hashable {
    public var points: Double
    public var kcal: Int?
    public var zoneSeconds: [String: Int]

    public init(_ tally: EffortTally) {
        points = (tally.points * 10).rounded() / 10
        kcal = tally.kilocalories.map { Int($0.rounded()) }
        zoneSeconds = Dictionary(uniqueKeysWithValues: tally.secondsInZone.filter { $0.value >= 1 }.map { ($0.key.rawValue, Int($0.value)) })
    }
}

/// The person behind every sensor for the effort tally until people are kept per strap: HRmax from `HRMaxTable`,
/// age, weight and sex from `web.age`, `web.weight_kg` and `web.sex` (0 or "": unknown).
public struct EffortPeople: Sendable, Hashable {
    public var ageYears: Double?
    public var weightKg: Double?
    public var sex: EffortTally.Sex?

    public init(ageYears: Double? = nil, weightKg: Double? = nil, sex: EffortTally.Sex? = nil) {
        self.ageYears = ageYears
        self.weightKg = weightKg
        self.sex = sex
    }

    public init(settings: WebSettings) {
        self.init(ageYears: settings.ageYears > 0 ? Double(settings.ageYears) : nil,
                  weightKg: settings.weightKg > 0 ? Double(settings.weightKg) : nil,
                  sex: EffortTally.Sex(rawValue: settings.sex))
    }

    public func person(for address: String, hrmax: HRMaxTable) -> EffortTally.Person {
        EffortTally.Person(hrmax: hrmax.hrmax(for: address).bpm, ageYears: ageYears, weightKg: weightKg, sex: sex)
    }
}

import Foundation
import LiveFeed
import WebConfig

/// A tile's effort this session as the browser gets it (`EffortTally`): effort points (Myzone's 1–4 a minute in
/// zone, one decimal), kilocalories (Keytel et al. 2005; absent without an age and a weight: `EffortPeople`) and whole
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

/// The person behind a sensor for the effort tally: the one assigned to the strap (`person.assign`: their HRmax, or
/// one from their age; their age and weight), and for what they leave unset the defaults `web.age`, `web.weight_kg`
/// and `HRMaxTable`; sex from `web.sex` (people carry none). 0 or "": unknown.
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

    public func person(for device: LiveDevice, hrmax: HRMaxTable) -> EffortTally.Person {
        let someone = device.person
        return EffortTally.Person(hrmax: device.personHeartRateMaximum ?? hrmax.hrmax(for: device.address).bpm,
                                  ageYears: someone?.age.map(Double.init) ?? ageYears,
                                  weightKg: someone?.weightKg ?? weightKg, sex: sex)
    }
}

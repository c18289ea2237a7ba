import Foundation

/// A person who wears a strap (a participant, a gym member, the one at the desk): a name and what % of maximum heart
/// rate, zones and calories need. One type for the store, the daemon, heartctl and the network services.
///
/// `strap` is the Bluetooth address (upper case) assigned to the person now; a strap has at most one person at a
/// time and a person at most one strap. The series and sessions recorded while it is assigned carry the person
/// (`MetadataKey.person`, `MetadataKey.personName`), which is the assignment's history: the store keeps only the
/// present one.
public struct Person: Codable, Sendable, Hashable, Identifiable {
    public var uuid: UUID
    public var name: String
    /// Maximum heart rate in beats per minute, when known (else estimated from `age`: `estimatedMaximum`).
    public var heartRateMaximum: Int?
    /// Age in years.
    public var age: Int?
    public var weightKg: Double?
    /// Resting heart rate in beats per minute.
    public var restingHeartRate: Int?
    /// The strap assigned now (Bluetooth address, upper case), or nil.
    public var strap: String?
    /// The change anchor of the latest save; nil before it is stored.
    public var anchor: Int64?

    public init(uuid: UUID = UUID(), name: String, heartRateMaximum: Int? = nil, age: Int? = nil, weightKg: Double? = nil,
                restingHeartRate: Int? = nil, strap: String? = nil, anchor: Int64? = nil) {
        self.uuid = uuid
        self.name = name
        self.heartRateMaximum = heartRateMaximum
        self.age = age
        self.weightKg = weightKg
        self.restingHeartRate = restingHeartRate
        self.strap = strap
        self.anchor = anchor
    }

    public var id: UUID { uuid }

    /// HRmax: the person's own, else Tanaka's estimate from age (208 − 0.7 × age, Tanaka, Monahan & Seals 2001), else
    /// nil.
    public var effectiveHeartRateMaximum: Int? {
        heartRateMaximum ?? age.map { Int((208 - 0.7 * Double($0)).rounded()) }
    }

    /// The tags the series and sessions recorded while the person wears a strap carry.
    public var tags: Metadata {
        [MetadataKey.person: uuid.uuidString, MetadataKey.personName: name]
    }

    /// The type identifier of people in tombstones and change lists.
    public static let typeIdentifier = "HeartdPerson"

    /// Accepted ranges: wider than people are, narrow enough to catch a typo (HRmax 1900, weight in grams).
    public static let heartRateMaximumRange = 100...240
    public static let ageRange = 5...110
    public static let weightRange = 20.0...300.0
    public static let restingHeartRateRange = 25...120
    public static let nameLength = 1...100

    /// Checks the name and every figure against the accepted ranges.
    public func validate() throws(PersonError) {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard Self.nameLength.contains(trimmed.count), trimmed == name else {
            throw PersonError(.invalidName, "a name is 1 to \(Self.nameLength.upperBound) characters without leading or trailing spaces")
        }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw PersonError(.invalidName, "a name holds no control characters")
        }
        if let v = heartRateMaximum, !Self.heartRateMaximumRange.contains(v) {
            throw PersonError(.outOfRange, "HRmax \(v) is outside \(Self.heartRateMaximumRange) bpm")
        }
        if let v = age, !Self.ageRange.contains(v) { throw PersonError(.outOfRange, "age \(v) is outside \(Self.ageRange)") }
        if let v = weightKg, !v.isFinite || !Self.weightRange.contains(v) {
            throw PersonError(.outOfRange, "weight \(v) kg is outside \(Self.weightRange) kg")
        }
        if let v = restingHeartRate, !Self.restingHeartRateRange.contains(v) {
            throw PersonError(.outOfRange, "resting heart rate \(v) is outside \(Self.restingHeartRateRange) bpm")
        }
    }
}

/// Why a person was refused.
public struct PersonError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// Empty, too long, padded with spaces or holding control characters.
        case invalidName
        /// A figure outside its accepted range.
        case outOfRange
    }

    public let code: Code
    public let detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(code.rawValue): \(detail)" }
}

extension MetadataKey {
    /// On a series or session recorded while a strap was assigned to a person: the person's UUID.
    public static let person = "HeartdPerson"
    /// On a series or session recorded while a strap was assigned to a person: the person's name then.
    public static let personName = "HeartdPersonName"
}

/// Units heartd stores. Raw values are HealthKit's unit strings.
public enum HealthUnit: String, Codable, Sendable, Hashable {
    case countPerMinute = "count/min"
    case kilojoule = "kJ"
    case millisecond = "ms"
}

/// How the values of a quantity type combine (HealthKit's `HKQuantityAggregationStyle`).
public enum AggregationStyle: String, Codable, Sendable, Hashable {
    /// Values add up (energy): a finished sample carries the sum.
    case cumulative
    /// Plain mean of the values (HRV SDNN).
    case discreteArithmetic
    /// Mean weighted by each value's duration (heart rate); see docs/DATA-MODEL.md for the rule.
    case discreteTemporallyWeighted
}

/// A quantity type: identifier, canonical unit and aggregation style.
public struct QuantityType: Codable, Sendable, Hashable {
    public let identifier: String
    public let unit: HealthUnit
    public let aggregation: AggregationStyle

    public init(identifier: String, unit: HealthUnit, aggregation: AggregationStyle) {
        self.identifier = identifier
        self.unit = unit
        self.aggregation = aggregation
    }

    public static let heartRate = QuantityType(
        identifier: "HKQuantityTypeIdentifierHeartRate", unit: .countPerMinute, aggregation: .discreteTemporallyWeighted)
    public static let activeEnergyBurned = QuantityType(
        identifier: "HKQuantityTypeIdentifierActiveEnergyBurned", unit: .kilojoule, aggregation: .cumulative)
    public static let heartRateVariabilitySDNN = QuantityType(
        identifier: "HKQuantityTypeIdentifierHeartRateVariabilitySDNN", unit: .millisecond, aggregation: .discreteArithmetic)

    /// Every type heartd knows, for lookups by identifier or short name.
    public static let all: [QuantityType] = [.heartRate, .activeEnergyBurned, .heartRateVariabilitySDNN]

    /// Short names used on the command line and the control socket: `heart-rate`, `energy`, `hrv`.
    public var shortName: String {
        switch identifier {
        case QuantityType.heartRate.identifier: "heart-rate"
        case QuantityType.activeEnergyBurned.identifier: "energy"
        case QuantityType.heartRateVariabilitySDNN.identifier: "hrv"
        default: identifier
        }
    }

    public static func named(_ name: String) -> QuantityType? {
        all.first { $0.shortName == name || $0.identifier == name }
    }
}

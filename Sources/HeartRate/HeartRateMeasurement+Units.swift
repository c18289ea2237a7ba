extension HeartRateMeasurement {
    /// The RR intervals in seconds (raw value / 1024), oldest first.
    public var rrIntervalsSeconds: [Double] { rrIntervals.map { Double($0) / 1024 } }

    /// The RR intervals in milliseconds (raw value · 1000 / 1024), oldest first.
    public var rrIntervalsMilliseconds: [Double] { rrIntervals.map { Double($0) * 1000 / 1024 } }
}

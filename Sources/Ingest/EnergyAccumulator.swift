/// Turns the sensor's cumulative Energy Expended readings (kJ since the sensor's last reset, uint16) into
/// increments.
///
/// - The first reading after a connection is the baseline: no increment.
/// - A reading lower than the previous one means the sensor reset: the increment is the new reading.
/// - 0xFFFF is the ceiling: the sensor stops counting there, so once a reading is 65535 increments stop
///   (further 65535 readings add nothing) until the sensor resets (a lower reading), which counts as above.
struct EnergyAccumulator: Sendable {
    static let ceiling: UInt16 = 0xFFFF

    private(set) var last: UInt16?
    /// Monotonic seconds of the last reading.
    private(set) var lastTime: Double?

    /// An increment in kJ over [start, end] (monotonic seconds), or nil when there is nothing to add.
    mutating func add(_ reading: UInt16, at time: Double) -> (kilojoules: Double, start: Double, end: Double)? {
        defer {
            last = reading
            lastTime = time
        }
        guard let previous = last, let previousTime = lastTime else { return nil }
        let increment: Int
        if reading < previous {
            increment = Int(reading)
        } else if previous == Self.ceiling {
            increment = 0
        } else {
            increment = Int(reading) - Int(previous)
        }
        guard increment > 0 else { return nil }
        return (Double(increment), previousTime, time)
    }

    /// Forgets the baseline (a new connection).
    mutating func reset() {
        last = nil
        lastTime = nil
    }
}

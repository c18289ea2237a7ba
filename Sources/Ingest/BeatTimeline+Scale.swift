/// The timeline's scale: ticks of 1/1024 s from the origin, and monotonic seconds.
extension BeatTimeline {
    var isAnchored: Bool { position != nil }

    /// Monotonic seconds of the chain's last beat, if anchored.
    var positionSeconds: Double? {
        guard let origin, let position else { return nil }
        return origin + Double(position) / Self.ticksPerSecond
    }

    /// Monotonic seconds of a tick.
    func seconds(ofTicks ticks: Int) -> Double? {
        origin.map { $0 + Double(ticks) / Self.ticksPerSecond }
    }

    static func isPlausible(_ rr: UInt16, settings: IngestSettings) -> Bool {
        let ms = Double(rr) * 1000 / ticksPerSecond
        return rr != 0 && ms >= settings.rrMinMs && ms <= settings.rrMaxMs
    }

    /// The tick nearest to monotonic `seconds`, once the origin is set.
    func ticks(at seconds: Double) -> Int? {
        guard let origin else { return nil }
        return Int(((seconds - origin) * Self.ticksPerSecond).rounded())
    }
}

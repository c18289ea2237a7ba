import HealthModel

/// The compact on-disk form of a heartbeat series (about 2 bytes per beat at resting and active rates).
///
/// Format version 1: `[0x01] varint(count) count × varint((deltaTicks << 1) | precededByGap)`.
/// Offsets are quantized to ticks of 1/1024 s, the resolution of the sensor's RR intervals. The ingest
/// pipeline produces offsets that are exact multiples of 1/1024 s, and those round-trip exactly; any other
/// offset comes back within 1/2048 s. The first delta is measured from offset 0.
public enum HeartbeatSeriesCoding {
    public static let version: UInt8 = 1
    public static let ticksPerSecond: Double = 1024
    /// Largest tick count kept exact in a Double.
    private static let maxTicks: Double = 9_007_199_254_740_992 // 2^53

    /// Encodes beats whose offsets are finite, non-negative and non-decreasing.
    public static func encode(_ beats: [Beat]) throws(SeriesCodingError) -> [UInt8] {
        var w = ByteWriter(capacity: 2 + beats.count * 2 + 8)
        try encode(beats[...], into: &w)
        return w.bytes
    }

    /// Appends the encoding of `beats` to `w` (a checkpoint's tail, without a blob of its own).
    static func encode(_ beats: ArraySlice<Beat>, into w: inout ByteWriter) throws(SeriesCodingError) {
        w.byte(version)
        w.varint(UInt64(beats.count))
        var previous: Int64 = 0
        for (i, beat) in zip(0..., beats) {
            let scaled = (beat.offset * ticksPerSecond).rounded()
            guard scaled.isFinite, scaled >= 0, scaled < maxTicks else {
                throw SeriesCodingError(.unencodable, "beat \(i) has offset \(beat.offset) s, not a finite non-negative time")
            }
            let ticks = Int64(scaled)
            guard ticks >= previous else {
                throw SeriesCodingError(.unencodable, "beat \(i) at \(beat.offset) s comes before the previous beat")
            }
            w.varint(UInt64(ticks - previous) << 1 | (beat.precededByGap ? 1 : 0))
            previous = ticks
        }
    }

    /// Decodes a blob made by `encode`; throws `SeriesCodingError` on any malformed input.
    public static func decode(_ bytes: [UInt8]) throws(SeriesCodingError) -> [Beat] {
        var r = ByteReader(bytes)
        let v = try r.byte()
        guard v == version else { throw SeriesCodingError(.unknownVersion, "heartbeat series format \(v) is unknown") }
        let count = try r.varint()
        guard count <= UInt64(r.remaining) else {
            throw SeriesCodingError(.inconsistent, "blob announces \(count) beats but holds only \(r.remaining) bytes")
        }
        var beats: [Beat] = []
        beats.reserveCapacity(Int(count))
        var ticks: UInt64 = 0
        for i in 0..<Int(count) {
            let entry = try r.varint()
            let (sum, overflow) = ticks.addingReportingOverflow(entry >> 1)
            guard !overflow, sum < (1 << 53) else {
                throw SeriesCodingError(.inconsistent, "beat \(i) offset overflows")
            }
            ticks = sum
            beats.append(Beat(offset: Double(ticks) / ticksPerSecond, precededByGap: entry & 1 == 1))
        }
        guard r.isAtEnd else { throw SeriesCodingError(.inconsistent, "\(r.remaining) bytes follow the last beat") }
        return beats
    }
}

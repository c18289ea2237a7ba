import HeartRate

/// Nanoseconds per `HeartRateMeasurement(decoding:)` over a realistic mix of payloads, against a hand-written
/// loop that reads the same fields without building a value (a lower bound: no array for the RR values).
struct DecodeBenchmark {
    struct Result {
        var iterations: Int
        var nanosecondsPerDecode: Double
        var baselineNanoseconds: Double
        /// Sums of the decoded fields; printed so the optimizer cannot drop the work.
        var checksum: UInt64
        var baselineChecksum: UInt64
    }

    /// The mix: mostly 0x16 (contact, 1–2 RR), some 0x10 (RR, no contact bits), 0x1e (energy + RR) every 10th,
    /// 0x06 (no beat in that second) and one 16-bit value.
    static let payloads: [[UInt8]] = [
        [0x16, 72, 0x50, 0x03],
        [0x16, 70, 0x48, 0x03, 0x60, 0x03],
        [0x16, 75, 0x20, 0x03],
        [0x10, 68, 0x80, 0x03],
        [0x16, 74, 0x30, 0x03],
        [0x1e, 73, 0x10, 0x27, 0x38, 0x03],
        [0x16, 71, 0x44, 0x03, 0x52, 0x03],
        [0x06, 71],
        [0x16, 69, 0x70, 0x03],
        [0x17, 0x48, 0x00, 0x50, 0x03],
    ]

    let iterations: Int

    func run() -> Result {
        let payloads = Self.payloads
        let (checksum, seconds) = Stopwatch.measure { () -> UInt64 in
            var sum: UInt64 = 0
            for i in 0..<iterations {
                guard let m = try? HeartRateMeasurement(decoding: payloads[i % payloads.count]) else { continue }
                sum &+= UInt64(m.bpm) &+ UInt64(m.energyKilojoules ?? 0)
                for rr in m.rrIntervals { sum &+= UInt64(rr) }
            }
            return sum
        }
        let (baseline, baselineSeconds) = Stopwatch.measure { () -> UInt64 in
            var sum: UInt64 = 0
            for i in 0..<iterations { sum &+= Self.rawFieldSum(payloads[i % payloads.count]) }
            return sum
        }
        let n = Double(iterations)
        return Result(iterations: iterations, nanosecondsPerDecode: seconds * 1e9 / n,
                      baselineNanoseconds: baselineSeconds * 1e9 / n, checksum: checksum, baselineChecksum: baseline)
    }

    /// The same fields summed straight from the bytes (no validation errors, no allocation).
    static func rawFieldSum(_ bytes: [UInt8]) -> UInt64 {
        guard let flags = bytes.first else { return 0 }
        var i = 1
        var sum: UInt64 = 0
        if flags & 0x01 != 0 {
            guard bytes.count >= 3 else { return 0 }
            sum &+= UInt64(bytes[1]) | UInt64(bytes[2]) << 8
            i = 3
        } else {
            guard bytes.count >= 2 else { return 0 }
            sum &+= UInt64(bytes[1])
            i = 2
        }
        if flags & 0x08 != 0, i + 1 < bytes.count {
            sum &+= UInt64(bytes[i]) | UInt64(bytes[i + 1]) << 8
            i += 2
        }
        if flags & 0x10 != 0 {
            while i + 1 < bytes.count {
                sum &+= UInt64(bytes[i]) | UInt64(bytes[i + 1]) << 8
                i += 2
            }
        }
        return sum
    }
}

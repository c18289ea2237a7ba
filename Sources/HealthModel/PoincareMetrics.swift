/// Poincaré plot descriptors of RR intervals (Brennan et al. 2001), with NeuroKit2's and hrv-analysis's
/// conventions: for successive pairs (RRₙ, RRₙ₊₁), SD1 is the sample standard deviation (n − 1) of
/// (RRₙ − RRₙ₊₁)/√2 and SD2 that of (RRₙ + RRₙ₊₁)/√2. Pairs are taken only inside a gap-free segment and pooled.
public struct PoincareMetrics: Codable, Sendable, Hashable {
    public var sd1Ms: Double
    public var sd2Ms: Double
    /// SD1 / SD2.
    public var sd1sd2Ratio: Double
    /// Number of successive pairs.
    public var pairs: Int

    public init(sd1Ms: Double, sd2Ms: Double, pairs: Int) {
        self.sd1Ms = sd1Ms
        self.sd2Ms = sd2Ms
        sd1sd2Ratio = sd1Ms / sd2Ms
        self.pairs = pairs
    }

    /// nil with fewer than 2 successive pairs.
    public init?(segments: [[Double]]) {
        var x1: [Double] = [], x2: [Double] = []
        let root2 = 2.0.squareRoot()
        for s in segments where s.count >= 2 {
            for k in 1 ..< s.count {
                x1.append((s[k - 1] - s[k]) / root2)
                x2.append((s[k - 1] + s[k]) / root2)
            }
        }
        guard x1.count >= 2 else { return nil }
        self.init(sd1Ms: Self.sampleStandardDeviation(x1), sd2Ms: Self.sampleStandardDeviation(x2), pairs: x1.count)
    }

    static func sampleStandardDeviation(_ x: [Double]) -> Double {
        let mean = x.reduce(0, +) / Double(x.count)
        var ss = 0.0
        for v in x { ss += (v - mean) * (v - mean) }
        return (ss / Double(x.count - 1)).squareRoot()
    }

    enum CodingKeys: String, CodingKey {
        case sd1Ms = "sd1_ms", sd2Ms = "sd2_ms", sd1sd2Ratio = "sd1_sd2", pairs
    }

    /// SD1/SD2 is recomputed from SD1 and SD2, so a ratio sent as null (SD2 = 0) comes back as it was.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(sd1Ms: try c.decode(Double.self, forKey: .sd1Ms), sd2Ms: try c.decode(Double.self, forKey: .sd2Ms),
                  pairs: try c.decode(Int.self, forKey: .pairs))
    }

    /// `sd1_sd2` is null when SD2 is 0 (intervals alternating around a constant sum): JSON has no infinity or NaN,
    /// and a session's statistics must still be stored.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(sd1Ms, forKey: .sd1Ms)
        try c.encode(sd2Ms, forKey: .sd2Ms)
        try c.encode(sd1sd2Ratio.isFinite ? sd1sd2Ratio : nil, forKey: .sd1sd2Ratio)
        try c.encode(pairs, forKey: .pairs)
    }
}

extension Duration {
    /// The duration in seconds, as a `Double` (what `TimeInterval`, timeouts and rates are counted in).
    public var seconds: Double {
        let (whole, atto) = components
        return Double(whole) + Double(atto) / 1e18
    }
}

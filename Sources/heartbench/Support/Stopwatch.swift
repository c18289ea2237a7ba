/// Timing helpers. Every figure heartbench prints is measured on `ContinuousClock` (monotonic).
enum Stopwatch {
    /// Seconds `body` takes, with its result.
    static func measure<T>(_ body: () throws -> T) rethrows -> (result: T, seconds: Double) {
        let clock = ContinuousClock()
        let start = clock.now
        let result = try body()
        return (result, (clock.now - start).seconds)
    }

    /// Seconds the async `body` takes, with its result.
    static func measureAsync<T>(_ body: () async throws -> T) async rethrows -> (result: T, seconds: Double) {
        let clock = ContinuousClock()
        let start = clock.now
        let result = try await body()
        return (result, (clock.now - start).seconds)
    }

    /// The median of `runs` timings of `body` (seconds; at least one run), and the last result (keep it to
    /// defeat dead-code elimination).
    static func median<T>(runs: Int, _ body: () throws -> T) rethrows -> (result: T, seconds: Double) {
        let firstRun = try measure(body)
        var last = firstRun.result
        var times = [firstRun.seconds]
        for _ in 1..<max(runs, 1) {
            let (result, seconds) = try measure(body)
            times.append(seconds)
            last = result
        }
        return (last, times.sorted()[times.count / 2])
    }
}

/// Polls `condition` every `interval` until it holds or `timeout` seconds pass; returns whether it held. A condition
/// that throws has not held yet (a query against a daemon or a server that is still starting or restarting).
///
/// For a test that waits for something to happen: the wait ends as soon as it has, and a loaded machine gets the whole
/// `timeout` instead of failing after a fixed sleep. (A check that something does *not* happen needs a bounded wait
/// of its own: this returns at the first moment the condition holds.)
///
///     #expect(await eventually { store.status.checkpointFailures > 0 })
public func eventually(timeout: Double = 20, every interval: Duration = .milliseconds(50),
                       isolation: isolated (any Actor)? = #isolation,
                       _ condition: () async throws -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(timeout)
    while clock.now < deadline {
        if (try? await condition()) == true { return true }
        try? await Task.sleep(for: interval)
    }
    return (try? await condition()) == true
}

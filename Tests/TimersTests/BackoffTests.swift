import Testing
import Timers

@Suite struct BackoffTests {
    @Test func backoffDoublesCapsAndJitters() {
        var b = Backoff(initial: 1, maximum: 60, factor: 2, jitter: 0.2)
        let mid = (0..<8).map { _ in b.next(random: 0.5) }
        #expect(mid == [1, 2, 4, 8, 16, 32, 60, 60])
        b.reset()
        #expect(abs(b.next(random: 0) - 0.8) < 1e-9)
        #expect(abs(b.next(random: 0.999999) - 2.4) < 1e-4)
    }
}

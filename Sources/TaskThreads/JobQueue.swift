/// The pool's first-in first-out queue of jobs ready to run: a ring buffer that grows by doubling and never
/// shrinks (a burst's capacity is kept for the next one; a few KB at most).
struct JobQueue {
    private var slots: [UnownedJob?] = Array(repeating: nil, count: 16)
    private var head = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func append(_ job: UnownedJob) {
        if count == slots.count { grow() }
        slots[(head + count) & (slots.count - 1)] = job
        count += 1
    }

    mutating func popFirst() -> UnownedJob? {
        guard count > 0 else { return nil }
        let job = slots[head]
        slots[head] = nil
        head = (head + 1) & (slots.count - 1)
        count -= 1
        return job
    }

    /// Doubles the capacity (always a power of two, so an index wraps with a mask), oldest job first.
    private mutating func grow() {
        var bigger: [UnownedJob?] = Array(repeating: nil, count: slots.count * 2)
        for i in 0..<count { bigger[i] = slots[(head + i) & (slots.count - 1)] }
        slots = bigger
        head = 0
    }
}

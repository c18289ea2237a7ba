/// Jobs waiting for a time (`Task.sleep`, `Clock.sleep`): a binary min-heap ordered by deadline (CLOCK_MONOTONIC
/// nanoseconds), then by arrival, so jobs due at the same time run in the order they were scheduled.
struct TimedJobs {
    struct Entry {
        let deadline: UInt64
        let sequence: UInt64
        let job: UnownedJob

        func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence
        }
    }

    private var heap: [Entry] = []
    private var nextSequence: UInt64 = 0

    var isEmpty: Bool { heap.isEmpty }
    var count: Int { heap.count }

    /// The earliest deadline, if any job waits.
    var earliest: UInt64? { heap.first?.deadline }

    mutating func insert(_ job: UnownedJob, deadline: UInt64) {
        heap.append(Entry(deadline: deadline, sequence: nextSequence, job: job))
        nextSequence &+= 1
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest job if its deadline is at or before `now`.
    mutating func popDue(now: UInt64) -> UnownedJob? {
        guard let first = heap.first, first.deadline <= now else { return nil }
        let last = heap.removeLast()
        guard !heap.isEmpty else { return first.job }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].precedes(heap[smallest]) { smallest = left }
            if right < heap.count, heap[right].precedes(heap[smallest]) { smallest = right }
            guard smallest != parent else { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return first.job
    }
}

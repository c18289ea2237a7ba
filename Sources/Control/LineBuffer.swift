/// Splits a byte stream into newline-terminated lines with a maximum line length.
///
/// Pure value type; used by the server (per connection) and the client.
struct LineBuffer: Sendable {
    enum Line: Equatable {
        /// A complete line without its terminating `\n` (a trailing `\r` is dropped too).
        case line([UInt8])
        /// More than `maxLineBytes` arrived without a newline; the buffer is now unusable.
        case overflow
    }

    let maxLineBytes: Int
    private var storage: [UInt8] = []
    private var start = 0
    private(set) var overflowed = false

    init(maxLineBytes: Int) { self.maxLineBytes = maxLineBytes }

    /// Bytes buffered but not yet returned as a line.
    var pendingCount: Int { storage.count - start }

    mutating func append(_ bytes: some Collection<UInt8>) {
        guard !overflowed else { return }
        storage.append(contentsOf: bytes)
    }

    /// The next complete line, `.overflow` once the limit is broken, or `nil` when more input is needed.
    mutating func next() -> Line? {
        guard !overflowed else { return .overflow }
        if let newline = storage[start...].firstIndex(of: UInt8(ascii: "\n")) {
            guard newline - start <= maxLineBytes else { return fail() }
            var end = newline
            if end > start, storage[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            let line = Array(storage[start..<end])
            start = newline + 1
            compact()
            return .line(line)
        }
        if pendingCount > maxLineBytes { return fail() }
        return nil
    }

    private mutating func fail() -> Line {
        overflowed = true
        storage = []
        start = 0
        return .overflow
    }

    private mutating func compact() {
        if start == storage.count {
            storage.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 65536, start > storage.count / 2 {
            storage.removeFirst(start)
            start = 0
        }
    }
}

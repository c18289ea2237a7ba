import Glibc
import SourceEvents

/// Reads a replay input (docs/REPLAY.md) as it comes, in bounded memory whatever its size: a file, standard
/// input (`-`) or text in memory, split into lines (`\n` or `\r\n`, the last one may lack its newline), each
/// parsed by the fast scanner or, for any other shape, by the full decoder. Bad lines become `issues` with
/// their line numbers; reading goes on. Not thread-safe: one reader at a time.
public final class ReplayStream {
    /// Lines longer than this are reported (`.lineTooLong`) and skipped without being held in memory.
    public static let maxLineBytes = 1 << 20
    /// Issues kept for the report; later ones are only counted (`issueCount`).
    public static let keptIssues = 1000

    /// The input as given (`-` for standard input, `<text>` for text in memory).
    public let name: String
    /// The first `keptIssues` unusable lines.
    public private(set) var issues: [ReplayIssue] = []
    /// Every unusable line, kept or not.
    public private(set) var issueCount = 0
    /// Lines read so far (what the last line number was).
    public private(set) var lineCount = 0
    /// Events returned so far.
    public private(set) var eventCount = 0

    private enum Input {
        case descriptor(Int32, close: Bool)
        case memory([UInt8], offset: Int)
    }

    private var input: Input
    private var buffer: UnsafeMutableBufferPointer<UInt8>
    private var start = 0, end = 0
    private var atEOF = false
    /// Inside a line longer than `maxLineBytes`: its bytes are dropped up to the next newline.
    private var skippingLongLine = false
    private var scanner = ReplayLineScanner()

    /// Opens `path` (`-`: standard input). Throws when it cannot be opened or is a directory; an empty input
    /// (`/dev/null`) is not an error.
    public convenience init(path: String, bufferSize: Int = 1 << 16) throws(ReplayError) {
        if path == "-" {
            try self.init(fileDescriptor: STDIN_FILENO, name: "-", closeWhenDone: false, bufferSize: bufferSize)
            return
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ReplayError.system(errno, path: path) }
        try self.init(fileDescriptor: fd, name: path, closeWhenDone: true, bufferSize: bufferSize)
    }

    /// Reads from an open descriptor (a pipe, a socket, a file), closing it at the end when `closeWhenDone`.
    public init(fileDescriptor fd: Int32, name: String, closeWhenDone: Bool, bufferSize: Int = 1 << 16) throws(ReplayError) {
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            if closeWhenDone { close(fd) }
            throw ReplayError(.isDirectory, path: name, detail: "is a directory, not a replay file")
        }
        self.name = name
        input = .descriptor(fd, close: closeWhenDone)
        buffer = .allocate(capacity: max(bufferSize, 2))
    }

    /// Reads replay text held in memory (tests, `ReplaySource(text:)`).
    public init(text: String, bufferSize: Int = 1 << 16) {
        name = "<text>"
        input = .memory(Array(text.utf8), offset: 0)
        buffer = .allocate(capacity: max(bufferSize, 2))
    }

    deinit {
        buffer.deallocate()
        if case .descriptor(let fd, close: true) = input { close(fd) }
    }

    /// The next events, at most `limit`; empty when the input is exhausted. Throws if reading fails midway
    /// (what was returned before stays valid).
    public func nextEvents(limit: Int = 1024) throws(ReplayError) -> [SourceEvent] {
        var events: [SourceEvent] = []
        events.reserveCapacity(min(limit, 1024))
        while events.count < limit, let line = try nextLine() {
            lineCount += 1
            parse(UnsafeBufferPointer(line), into: &events)
        }
        eventCount += events.count
        return events
    }

    /// Every remaining event (for inputs known to be small).
    public func readAll() throws(ReplayError) -> [SourceEvent] {
        var all: [SourceEvent] = []
        while true {
            let batch = try nextEvents()
            if batch.isEmpty { return all }
            all += batch
        }
    }

    private func parse(_ raw: UnsafeBufferPointer<UInt8>, into events: inout [SourceEvent]) {
        var line = raw
        if line.last == UInt8(ascii: "\r") { line = UnsafeBufferPointer(rebasing: line.dropLast()) }
        if skippedLongLine {
            skippedLongLine = false
            return record(ReplayIssue(line: lineCount, code: .lineTooLong, reason: "longer than \(Self.maxLineBytes) bytes; skipped"))
        }
        switch scanner.scan(line, number: lineCount, into: &events) {
        case .appended: return
        case .issue(let issue): return record(issue)
        case .unsupported: break
        }
        guard let text = String(validating: line, as: UTF8.self) else {
            return record(ReplayIssue(line: lineCount, code: .invalidUTF8, reason: "not valid UTF-8"))
        }
        switch ReplayReader.parseLine(text, number: lineCount) {
        case .success(let event?): events.append(event)
        case .success(nil): break
        case .failure(let issue): record(issue)
        }
    }

    private func record(_ issue: ReplayIssue) {
        issueCount += 1
        if issues.count < Self.keptIssues { issues.append(issue) }
    }

    /// Set when the line being returned was too long (its bytes are gone; an empty line stands for it).
    private var skippedLongLine = false

    /// The next line without its newline, valid until the next call; nil at the end of the input.
    private func nextLine() throws(ReplayError) -> UnsafeMutableBufferPointer<UInt8>? {
        while true {
            if let newline = find(UInt8(ascii: "\n")) {
                defer { start = newline + 1 }
                if skippingLongLine {
                    skippingLongLine = false
                    skippedLongLine = true
                    return UnsafeMutableBufferPointer(rebasing: buffer[newline..<newline])
                }
                return UnsafeMutableBufferPointer(rebasing: buffer[start..<newline])
            }
            if atEOF {
                guard start < end || skippingLongLine else { return nil }
                defer { start = end; skippingLongLine = false }
                skippedLongLine = skippingLongLine
                return UnsafeMutableBufferPointer(rebasing: buffer[start..<(skippingLongLine ? start : end)])
            }
            try fill()
        }
    }

    private func find(_ byte: UInt8) -> Int? {
        guard start < end, let base = buffer.baseAddress,
              let hit = memchr(base + start, Int32(byte), end - start) else { return nil }
        return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
    }

    /// Makes room (moving the partial line to the front, growing the buffer for a long line up to
    /// `maxLineBytes`, or dropping a line beyond that) and reads more.
    private func fill() throws(ReplayError) {
        if start > 0 {
            if start < end, let base = buffer.baseAddress { memmove(base, base + start, end - start) }
            end -= start
            start = 0
        }
        if end == buffer.count {
            if skippingLongLine || buffer.count > Self.maxLineBytes {
                skippingLongLine = true
                end = 0
            } else {
                let bigger = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: min(buffer.count * 2, Self.maxLineBytes + 1))
                _ = bigger.initialize(fromContentsOf: buffer)
                buffer.deallocate()
                buffer = bigger
            }
        }
        let count = try read(into: UnsafeMutableBufferPointer(rebasing: buffer[end...]))
        if count == 0 { atEOF = true }
        end += count
    }

    private func read(into target: UnsafeMutableBufferPointer<UInt8>) throws(ReplayError) -> Int {
        switch input {
        case .memory(let bytes, let offset):
            let count = min(target.count, bytes.count - offset)
            bytes.withUnsafeBufferPointer { source in
                _ = UnsafeMutableBufferPointer(rebasing: target[0..<count])
                    .initialize(fromContentsOf: source[offset..<(offset + count)])
            }
            input = .memory(bytes, offset: offset + count)
            return count
        case .descriptor(let fd, _):
            while true {
                let count = readDescriptor(fd, target.baseAddress, target.count)
                if count >= 0 { return count }
                if errno != EINTR { throw ReplayError.system(errno, path: name) }
            }
        }
    }
}

/// `read(2)` (the class's own `read(into:)` hides the C function inside it).
private func readDescriptor(_ fd: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ count: Int) -> Int {
    read(fd, buffer, count)
}

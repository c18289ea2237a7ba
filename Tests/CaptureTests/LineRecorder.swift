import Foundation
import Logging

/// Records every log line (message and merged metadata) a logger built on it writes.
final class LineRecorder: @unchecked Sendable {  // `lines` behind `lock`
    struct Line {
        let level: Logger.Level
        let message: String
        let metadata: Logger.Metadata
    }

    private let lock = NSLock()
    private var recorded: [Line] = []
    var lines: [Line] { lock.lock(); defer { lock.unlock() }; return recorded }

    func handler() -> some LogHandler { Handler(recorder: self) }

    /// Waits until the lines `filter` keeps are not empty (polls every 10 ms); returns them.
    @discardableResult
    func wait(_ what: String, timeout: Double = 10, _ filter: (Line) -> Bool) async throws -> [Line] {
        try await eventually(what, timeout: timeout) { let kept = lines.filter(filter); return kept.isEmpty ? nil : kept }
    }

    fileprivate func append(_ line: Line) { lock.lock(); recorded.append(line); lock.unlock() }

    private struct Handler: LogHandler {
        let recorder: LineRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .debug
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            recorder.append(Line(level: event.level, message: event.message.description, metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
        }
    }
}

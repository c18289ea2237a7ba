import Control
import Foundation
import HealthModel
import HeartStore

/// `export`: every sample overlapping [from, to) (whole samples, not trimmed), optionally of one device,
/// in start order, through a streaming exporter.
public struct ExportQuery: Sendable {
    public var format: ExportFormat
    public var from: Date
    public var to: Date
    public var device: String?

    public init(format: ExportFormat, from: Date, to: Date, device: String?) {
        self.format = format
        self.from = from
        self.to = to
        self.device = device
    }

    public init(_ p: QueryParameters) throws(ControlError) {
        let name = try p.string("format") ?? "csv"
        guard let format = ExportFormat(rawValue: name) else {
            throw ControlError(.invalidParams, "unknown format '\(name)': use \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let to = try p.date("to") ?? p.now
        let from = try p.date("from") ?? to.addingTimeInterval(-86400)
        guard from < to else { throw ControlError(.invalidParams, "'from' must be before 'to'") }
        self.init(format: format, from: from, to: to, device: try p.string("device"))
    }

    /// Runs the export; `progress` gets (samples done, samples in all) after each sample. Returns the sample count.
    @discardableResult
    public func run(database: HeartDatabase, emit: (String) -> Void,
                    progress: (Int, Int) -> Void = { _, _ in }) throws -> Int {
        let summaries = try database.samples(device: device, from: from, to: to)
        var exporter = format.makeExporter()
        exporter.begin(emit: emit)
        for (i, summary) in summaries.enumerated() {
            if let sample = try database.sample(uuid: summary.uuid) {
                try exporter.write(sample, emit: emit)
            }
            progress(i + 1, summaries.count)
        }
        exporter.end(emit: emit)
        return summaries.count
    }
}

extension StoreQueries {
    /// An export as control events: `chunk` {text} of about 32 KiB, `progress` {done, total} every 100 samples,
    /// then `end` {samples} — or `error` {message}. The daemon streams these on its socket; heartctl --db
    /// consumes the same events locally.
    public func exportStream(_ query: ExportQuery) -> AsyncStream<ControlEvent> {
        let database = self.database
        return AsyncStream(bufferingPolicy: .unbounded) { continuation in
            let task = Task.detached {
                var buffer = ""
                do {
                    let count = try query.run(database: database, emit: { text in
                        buffer += text
                        if buffer.utf8.count >= 32 * 1024 {
                            continuation.yield(ControlEvent("chunk", fields: ["text": .string(buffer)]))
                            buffer = ""
                        }
                    }, progress: { done, total in
                        if done % 100 == 0 || done == total {
                            continuation.yield(ControlEvent("progress", fields: ["done": .int(done), "total": .int(total)]))
                        }
                    })
                    if !buffer.isEmpty { continuation.yield(ControlEvent("chunk", fields: ["text": .string(buffer)])) }
                    continuation.yield(ControlEvent("end", fields: ["samples": .int(count)], isFinal: true))
                } catch {
                    continuation.yield(ControlEvent("error", fields: ["message": .string("\(error)")], isFinal: true))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// `exportStream` for a request's params, as a throwing stream (invalid params throw).
    public func exportEvents(_ params: [String: JSONValue]) -> AsyncThrowingStream<ControlEvent, any Error> {
        let query: ExportQuery
        do {
            query = try ExportQuery(QueryParameters(params))
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
        let events = exportStream(query)
        return AsyncThrowingStream { continuation in
            let task = Task {
                for await e in events { continuation.yield(e) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

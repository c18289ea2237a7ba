import Control
import Foundation
import HealthModel
import HeartStore

/// `export`: every sample in a scope — overlapping [from, to) (whole samples, not trimmed), optionally of one device,
/// with metadata (or of one session) — in start order, through a streaming exporter.
public struct ExportQuery: Sendable {
    public var format: ExportFormat
    public var from: Date
    public var to: Date
    public var device: String?
    public var metadata: MetadataPredicate

    public init(format: ExportFormat, from: Date, to: Date, device: String?, metadata: MetadataPredicate = [:]) {
        self.format = format
        self.from = from
        self.to = to
        self.device = device
        self.metadata = metadata
    }

    public init(format: ExportFormat, scope: QueryScope) throws(ControlError) {
        guard let from = scope.from, let to = scope.to else { throw ControlError(.internalError, "an export without a range") }
        guard from < to else { throw ControlError(.invalidParams, "'from' must be before 'to'") }
        self.init(format: format, from: from, to: to, device: scope.device, metadata: scope.metadata)
    }

    /// The format a request names (default `csv`).
    public static func format(_ p: QueryParameters) throws(ControlError) -> ExportFormat {
        let name = try p.string("format") ?? "csv"
        guard let format = ExportFormat(rawValue: name) else {
            throw ControlError(.invalidParams, "unknown format '\(name)': use \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return format
    }

    /// Runs the export; `progress` gets (samples done, samples in all) after each sample. Returns the sample count.
    @discardableResult
    public func run(database: HeartDatabase, emit: (String) -> Void,
                    progress: (Int, Int) -> Void = { _, _ in }) throws -> Int {
        let summaries = try database.samples(device: device, from: from, to: to, metadata: metadata)
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
    /// An export as control events: `chunk` {text} of about 32 KiB ({base64} for a binary format: each chunk decodes
    /// on its own), `progress` {done, total} every 100 samples,
    /// then `end` {samples} — or `error` {message}. The daemon streams these on its socket; heartctl --db
    /// consumes the same events locally.
    public func exportStream(_ query: ExportQuery) -> AsyncStream<ControlEvent> {
        let database = self.database
        return AsyncStream(bufferingPolicy: .unbounded) { continuation in
            let field = query.format.isBinary ? "base64" : "text"
            let task = Task.detached {
                var buffer = ""
                do {
                    let count = try query.run(database: database, emit: { text in
                        buffer += text
                        if buffer.utf8.count >= 32 * 1024 {
                            continuation.yield(ControlEvent("chunk", fields: [field: .string(buffer)]))
                            buffer = ""
                        }
                    }, progress: { done, total in
                        if done % 100 == 0 || done == total {
                            continuation.yield(ControlEvent("progress", fields: ["done": .int(done), "total": .int(total)]))
                        }
                    })
                    if !buffer.isEmpty { continuation.yield(ControlEvent("chunk", fields: [field: .string(buffer)])) }
                    continuation.yield(ControlEvent("end", fields: ["samples": .int(count)], isFinal: true))
                } catch {
                    continuation.yield(ControlEvent("error", fields: ["message": .string("\(error)")], isFinal: true))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The export a request asks for (`format` and the scope of `export`, a session's span included).
    public func exportQuery(_ params: [String: JSONValue], now: Date = Date()) throws(ControlError) -> ExportQuery {
        do {
            return try ExportQuery(format: try ExportQuery.format(QueryParameters(params, now: now)),
                                   scope: try resolvedScope(of: .export, params, now: now))
        } catch let error as ControlError {
            throw error
        } catch {
            throw ControlError(.unavailable, "store: \(error)")
        }
    }

    /// `exportStream` for a request's params, as a throwing stream (invalid params throw).
    public func exportEvents(_ params: [String: JSONValue]) -> AsyncThrowingStream<ControlEvent, any Error> {
        let query: ExportQuery
        do {
            query = try exportQuery(params)
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

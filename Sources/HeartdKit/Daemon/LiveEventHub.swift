import BlueZ
import Control
import Foundation
import HeartQueries
import Ingest
import Logging
import Synchronization
import Systemd
import LogFields

/// Fans the pipeline's live events out to `watch` clients and writes the key ones to the journal with their
/// MESSAGE_ID. Called synchronously on the pipeline: it only yields into bounded per-watcher buffers (a slow
/// watcher loses its oldest events, never slows capture; the socket server drops it if it stops reading).
public final class LiveEventHub: Sendable {
    private let watchers = Mutex<[UUID: AsyncStream<ControlEvent>.Continuation]>([:])
    private let logger: Logger
    /// Events buffered per watcher before the oldest are dropped.
    public static let watcherBuffer = 1024

    public init(logger: Logger) {
        self.logger = logger
    }

    public var watcherCount: Int { watchers.withLock { $0.count } }

    /// A new watcher's stream; it unsubscribes itself when the consumer goes away.
    public func subscribe(device: String? = nil) -> AsyncStream<ControlEvent> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<ControlEvent>.makeStream(bufferingPolicy: .bufferingNewest(Self.watcherBuffer))
        continuation.onTermination = { [weak self] _ in
            _ = self?.watchers.withLock { $0.removeValue(forKey: id) }
        }
        let filtered = device
        watchers.withLock { $0[id] = continuation }
        guard let filtered else { return stream }
        return AsyncStream { out in
            let task = Task {
                for await event in stream where event.fields["device"]?.stringValue == filtered { out.yield(event) }
                out.finish()
            }
            out.onTermination = { _ in task.cancel() }
        }
    }

    public func publish(_ event: LiveEvent) {
        journal(event)
        let snapshot = watchers.withLock { Array($0.values) }
        guard !snapshot.isEmpty else { return }
        let control = Self.controlEvent(event).encodedOnce()
        for c in snapshot { c.yield(control) }
    }

    /// Ends every watcher's stream (daemon shutdown).
    public func finishAll() {
        let all = watchers.withLock { w in defer { w.removeAll() }; return Array(w.values) }
        for c in all { c.finish() }
    }

    private func journal(_ event: LiveEvent) {
        switch event {
        case .connected(let address, let device, _):
            var fields: Logger.Metadata = [
                LogField.messageID.key: "\(MessageID.deviceConnected.hex)", LogField.device.key: "\(address)",
                "name": "\(device?.name ?? "")",
            ]
            if let adapter = device?.metadata[BlueZMetadataKey.adapter] { fields[LogField.adapter.key] = "\(adapter)" }
            logger.notice("device connected", metadata: fields)
        case .disconnected(let address, let reason, _):
            logger.notice("device disconnected", metadata: [
                LogField.messageID.key: "\(MessageID.deviceDisconnected.hex)", LogField.device.key: "\(address)", "reason": "\(reason)",
            ])
        case .seriesFinished(let address, let uuid, let type, let reason):
            logger.info("series finished", metadata: [
                LogField.messageID.key: "\(MessageID.seriesFinished.hex)", LogField.device.key: "\(address)",
                LogField.series.key: "\(uuid)", "type": "\(type)", "reason": "\(reason.rawValue)",
            ])
        case .beats(let address, let beats):
            for b in beats where b.precededByGap {
                logger.info("beats may be missing before this beat", metadata: [
                    LogField.messageID.key: "\(MessageID.gap.hex)", LogField.device.key: "\(address)", "at": "\(ExportDates.iso(b.time))",
                ])
            }
        case .heartRate, .battery:
            break
        }
    }

    static func controlEvent(_ event: LiveEvent) -> ControlEvent {
        func t(_ d: Date) -> JSONValue { .string(ExportDates.iso(d)) }
        switch event {
        case .connected(let address, let device, let at):
            return ControlEvent(WatchEvent.connected.rawValue, fields: ["device": .string(address), "at": t(at),
                                                      "info": device.map { JSONBridge.value($0) } ?? .null])
        case .disconnected(let address, let reason, let at):
            return ControlEvent(WatchEvent.disconnected.rawValue, fields: ["device": .string(address), "reason": .string(reason.description), "at": t(at)])
        case .heartRate(let address, let bpm, let at):
            return ControlEvent(WatchEvent.heartRate.rawValue, fields: ["device": .string(address), "bpm": .int(bpm), "at": t(at)])
        case .beats(let address, let beats):
            return ControlEvent(WatchEvent.beats.rawValue, fields: ["device": .string(address), "beats": .array(beats.map {
                .object(["time": t($0.time), "gap": .bool($0.precededByGap)])
            })])
        case .battery(let address, let percent, let at):
            return ControlEvent(WatchEvent.battery.rawValue, fields: ["device": .string(address), "percent": .int(percent), "at": t(at)])
        case .seriesFinished(let address, let uuid, let type, let reason):
            return ControlEvent(WatchEvent.seriesFinished.rawValue, fields: ["device": .string(address), "uuid": .string(uuid.uuidString),
                                                            "type": .string(type), "reason": .string(reason.rawValue)])
        }
    }
}

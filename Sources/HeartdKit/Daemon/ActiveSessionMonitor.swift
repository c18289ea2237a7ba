import Foundation
import HealthModel
import HeartQueries
import HeartStore
import Ingest
import Synchronization

/// The live statistics of the active sessions (`status.sessions`), kept from the pipeline's live events as they
/// happen, so `status` costs no store read however long a session runs. A session the daemon finds active when it
/// starts (after a restart or a crash) is first fed what the store holds of it — one read, then live values.
final class ActiveSessionMonitor: Sendable {
    private struct Entry: Sendable {
        var session: Session
        var statistics: LiveSessionStatistics
    }

    private let entries = Mutex<[UUID: Entry]>([:])
    /// Each device's live DFA α1; `status` shows the latest reading of a session's devices.
    let dfa: LiveDFAMonitor

    init(dfa: LiveDFAMonitor = LiveDFAMonitor()) {
        self.dfa = dfa
    }

    /// Whether an active session covers `device`.
    func covers(device: String) -> Bool {
        entries.withLock { $0.values.contains { $0.session.covers(device: device) } }
    }

    /// Tracks exactly `sessions` (the active ones): new ones start from what the store holds of them, ended ones go.
    func track(_ sessions: [Session], database: HeartDatabase, now: Date = Date()) {
        let known = entries.withLock { Set($0.keys) }
        var seeded: [UUID: Entry] = [:]
        for session in sessions where !known.contains(session.uuid) {
            seeded[session.uuid] = Entry(session: session, statistics: Self.stored(session, database: database, until: now))
        }
        let active = Set(sessions.map(\.uuid))
        entries.withLock { entries in
            entries = entries.filter { active.contains($0.key) }
            entries.merge(seeded) { current, _ in current }
        }
    }

    /// Feeds a live event to the sessions that cover its device. Called on the pipeline: cheap.
    func observe(_ event: LiveEvent) {
        entries.withLock { entries in
            guard !entries.isEmpty else { return }
            for (id, var entry) in entries {
                switch event {
                case .beats(let address, let beats) where entry.session.covers(device: address):
                    for beat in beats { entry.statistics.addBeat(device: address, at: beat.time, startsSegment: beat.precededByGap) }
                case .heartRate(let address, let bpm, let at) where entry.session.covers(device: address):
                    entry.statistics.addHeartRate(device: address, bpm: Double(bpm), at: at)
                case .disconnected(let address, _, _), .seriesFinished(let address, _, Sample.heartbeatSeriesIdentifier, _):
                    // The next beat opens a new series (or follows a reconnect): no RR interval across it.
                    entry.statistics.breakSegment(device: address)
                default:
                    continue
                }
                entries[id] = entry
            }
        }
    }

    /// Every tracked session's statistics so far, oldest first.
    func status(now: Date = Date()) -> [ActiveSessionStatus] {
        entries.withLock { Array($0.values) }.sorted { $0.session.start < $1.session.start }.map { entry in
            let s = entry.statistics
            return ActiveSessionStatus(
                uuid: entry.session.uuid, label: entry.session.label, start: entry.session.start,
                devices: entry.session.devices, elapsedSeconds: max(0, now.timeIntervalSince(entry.session.start)).rounded(),
                beats: s.beats, currentBPM: s.currentBPM, averageBPM: s.averageBPM, rmssdMs: s.rmssdMs,
                dfaAlpha1: dfa.latest(for: entry.session))
        }
    }

    /// The session's stored beats and heart rate up to `until`, device by device, each series a segment of its own.
    static func stored(_ session: Session, database: HeartDatabase, until: Date) -> LiveSessionStatistics {
        var statistics = LiveSessionStatistics(start: session.start)
        guard until > session.start else { return statistics }
        let devices: [String]
        if session.devices.isEmpty {
            devices = ((try? database.devices()) ?? []).compactMap(\.address)
        } else {
            devices = session.devices
        }
        for device in devices {
            for series in (try? database.heartbeatSeries(from: session.start, to: until, device: device)) ?? [] {
                for (i, beat) in series.beats.enumerated() {
                    statistics.addBeat(device: device, at: series.start.addingTimeInterval(beat.offset),
                                       startsSegment: i == 0 || beat.precededByGap)
                }
            }
            for point in (try? database.quantities(type: .heartRate, from: session.start, to: until, device: device)) ?? [] {
                statistics.addHeartRate(device: device, bpm: point.value, at: point.start)
            }
        }
        return statistics
    }
}

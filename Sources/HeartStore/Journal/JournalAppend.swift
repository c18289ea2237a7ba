import Foundation
import HealthModel

/// One append to the open-series journal, encoded but not yet written: the framed records, and what the journal
/// will know of each series once they are (`JournaledSeries`). Built before anything is written, so an append is
/// all or nothing.
struct JournalAppend {
    private(set) var bytes: [UInt8] = []
    private(set) var states: [(uuid: UUID, state: JournaledSeries)] = []

    /// A whole series becomes a full record; a `SeriesAppend` to a series in `journaled` a delta record of just its
    /// items (checked against the journaled item count: a change that does not follow it throws `.conflict`); one to
    /// a series not journaled since the journal was emptied (it was compacted) a full record of `base(append)` — the
    /// series as the database holds it with the change applied.
    init(_ updates: [SeriesCheckpoint], updatedAt: Date, journaled: [(uuid: UUID, state: JournaledSeries)],
         base: (SeriesAppend) throws(StoreError) -> (record: CheckpointRecord, count: Int)) throws(StoreError) {
        bytes.reserveCapacity(updates.count * 80)  // a delta of a beat or two points takes ~50
        states.reserveCapacity(updates.count)
        for update in updates {
            switch update {
            case .full(let sample):
                let record = try CheckpointRecord(sample: sample, updatedAt: updatedAt)
                JournalRecordCoding.frameFull(record, into: &bytes)
                states.append((sample.uuid, JournaledSeries(record, count: SeriesItems(sample).count)))
            case .appended(let append):
                // The same series twice in one call builds on the first (the pipeline sends each once).
                let earlier = states.last { $0.uuid == append.uuid } ?? journaled.first { $0.uuid == append.uuid }
                guard var state = earlier?.state else {
                    let (record, count) = try base(append)
                    JournalRecordCoding.frameFull(record, into: &bytes)
                    states.append((append.uuid, JournaledSeries(record, count: count)))
                    continue
                }
                guard state.accepts(append) else {
                    throw StoreError(.conflict, "checkpoint of series \(append.uuid) out of step: \(state.count) items "
                                     + "journaled, the change follows \(append.after)")
                }
                let tail: [UInt8]
                do {
                    tail = try append.items.encoded(seriesStart: state.start)
                } catch {
                    throw StoreError(.invalidSample, "series \(append.uuid) cannot be encoded: \(error)")
                }
                JournalRecordCoding.frameDelta(
                    JournalDelta(uuid: append.uuid, end: append.end, updatedAt: updatedAt, keep: append.keeping, tail: tail),
                    into: &bytes)
                state.count = append.count
                states.append((append.uuid, state))
            }
        }
    }

    /// `journaled` once these records are written: each series' state replaced or added.
    func applied(to journaled: inout [(uuid: UUID, state: JournaledSeries)]) {
        for (uuid, state) in states {
            if let i = journaled.firstIndex(where: { $0.uuid == uuid }) {
                journaled[i].state = state
            } else {
                journaled.append((uuid, state))
            }
        }
    }
}

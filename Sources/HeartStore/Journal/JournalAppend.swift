import Foundation
import HealthModel

/// One append to the open-series journal, encoded but not yet written: the framed records (in the journal's
/// `frames` buffer), and what the journal will know of each series once they are (`JournaledSeries`). Built
/// before anything is written, so an append is all or nothing.
struct JournalAppend {
    private(set) var states: [(uuid: UUID, state: JournaledSeries)] = []

    /// A whole series becomes a full record; a `SeriesAppend` to a series in `journaled` a delta record of just its
    /// items (checked against the journaled item count: a change that does not follow it throws `.conflict`); one to
    /// a series not journaled since the journal was emptied (it was compacted) a full record of `base(append)` — the
    /// series as the database holds it with the change applied.
    ///
    /// `frames` is emptied first and receives the records; `tail` is scratch space for a delta's items. Both are
    /// the journal's, kept from call to call, so a checkpoint allocates no byte buffer.
    init(_ updates: [SeriesCheckpoint], updatedAt: Date, journaled: [(uuid: UUID, state: JournaledSeries)],
         frames bytes: inout [UInt8], tail: inout [UInt8],
         base: (SeriesAppend) throws(StoreError) -> (record: CheckpointRecord, count: Int)) throws(StoreError) {
        bytes.removeAll(keepingCapacity: true)
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
                var writer = ByteWriter.reusing(&tail)
                do {
                    try append.items.encode(seriesStart: state.start, into: &writer)
                } catch {
                    throw StoreError(.invalidSample, "series \(append.uuid) cannot be encoded: \(error)")
                }
                var delta = JournalDelta(uuid: append.uuid, end: append.end, updatedAt: updatedAt, keep: append.keeping,
                                         tail: [])
                swap(&delta.tail, &writer.bytes)
                JournalRecordCoding.frameDelta(delta, into: &bytes)
                swap(&tail, &delta.tail)  // the scratch goes back, unshared, for the next delta
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

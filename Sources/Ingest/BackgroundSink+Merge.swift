import HealthModel

extension BackgroundSink {
    /// Adds `newer` checkpoints after `pending` ones: a series already waiting gets one checkpoint for both. False
    /// when a change did not follow the one waiting (it replaces it; the pipeline must then send it whole).
    static func merge(_ newer: [SeriesCheckpoint], after pending: inout [SeriesCheckpoint]) -> Bool {
        guard !pending.isEmpty else {
            pending = newer  // the usual case: the writer took the previous ones
            return true
        }
        var inStep = true
        for update in newer {
            guard let i = pending.firstIndex(where: { $0.uuid == update.uuid }) else {
                pending.append(update)
                continue
            }
            if let merged = pending[i].followed(by: update) {
                pending[i] = merged
            } else {
                pending[i] = update
                inStep = false
            }
        }
        return inStep
    }
}

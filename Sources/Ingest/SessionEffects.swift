import HealthModel

/// What handling one event produced, for the pipeline to deliver.
struct SessionEffects: Sendable {
    var batches: [(batch: PendingBatch, reason: FinishReason)] = []
    var live: [LiveEvent] = []
    var devices: [DeviceInfo] = []

    /// Empty again, keeping the arrays' storage.
    mutating func clear() {
        batches.removeAll(keepingCapacity: true)
        live.removeAll(keepingCapacity: true)
        devices.removeAll(keepingCapacity: true)
    }
}

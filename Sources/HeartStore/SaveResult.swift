import Foundation

/// What `HeartDatabase.save` did with each sample.
public struct SaveResult: Sendable, Hashable, Codable {
    /// Samples written, in the order given.
    public var saved: [UUID]
    /// Samples not written, with the reason.
    public var skipped: [SkippedSample]
    /// Samples removed because a saved sample replaced them (same sync identifier, higher version).
    public var replaced: [UUID]

    public init(saved: [UUID] = [], skipped: [SkippedSample] = [], replaced: [UUID] = []) {
        self.saved = saved
        self.skipped = skipped
        self.replaced = replaced
    }
}

/// A sample `save` refused, and why.
public struct SkippedSample: Sendable, Hashable, Codable {
    public enum Reason: String, Sendable, Hashable, Codable {
        /// A sample with this UUID is already stored.
        case duplicateUUID
        /// A sample with this UUID was deleted; UUIDs are never reused.
        case deleted
        /// A sample with the same sync identifier and an equal or higher sync version is stored.
        case staleSyncVersion
        /// The sample has a sync identifier but no integer sync version.
        case invalidSyncVersion
        /// The series cannot be encoded (non-finite, negative or decreasing beat offsets, absurd dates).
        case invalidContents
    }

    public var uuid: UUID
    public var reason: Reason
    public var detail: String

    public init(uuid: UUID, reason: Reason, detail: String) {
        self.uuid = uuid
        self.reason = reason
        self.detail = detail
    }
}

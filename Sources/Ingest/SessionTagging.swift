import HealthModel

/// Which session a device's series belong to: the active session covering the device (named in its `devices`, or
/// covering every device) that started last, so a series belongs to at most one session. Its tags are the series
/// metadata `MetadataKey.session` (UUID) and `MetadataKey.sessionLabel`, and the session's own metadata keys as they
/// are (`game=round-7` on the session gives `game=round-7` on its series), except the reserved ones
/// (`MetadataKey.isReserved`: HealthKit's `HKMetadataKey…` and heartd's `Heartd…`), which the series sets itself.
struct SessionTagging: Sendable {
    let active: [Session]

    init(_ active: [Session]) {
        self.active = active.filter(\.isActive).sorted { ($0.start, $0.uuid.uuidString) < ($1.start, $1.uuid.uuidString) }
    }

    func tags(for address: String) -> Metadata {
        guard let session = active.last(where: { $0.covers(device: address) }) else { return [:] }
        var tags = session.metadata.filter { !MetadataKey.isReserved($0.key) }
        tags[MetadataKey.session] = session.uuid.uuidString
        tags[MetadataKey.sessionLabel] = session.label
        return tags
    }
}

import HealthModel

/// What a device's series carry beside their own metadata: the session they belong to and the person wearing the
/// strap.
///
/// The session is the active one covering the device (named in its `devices`, or covering every device) that
/// started last, so a series belongs to at most one session. Its tags are `MetadataKey.session` (UUID) and
/// `MetadataKey.sessionLabel`, and the session's own metadata keys as they are (`game=round-7` on the session gives
/// `game=round-7` on its series), except the reserved ones (`MetadataKey.isReserved`: HealthKit's `HKMetadataKey…`
/// and heartd's `Heartd…`), which the series sets itself. The person assigned to the strap adds `Person.tags`
/// (`MetadataKey.person`, `MetadataKey.personName`).
struct SessionTagging: Sendable {
    let active: [Session]
    /// The person wearing each strap, by upper-case address.
    let wearers: [String: Person]

    init(_ active: [Session], people: [Person] = []) {
        self.active = active.filter(\.isActive).sorted { ($0.start, $0.uuid.uuidString) < ($1.start, $1.uuid.uuidString) }
        var wearers: [String: Person] = [:]
        for person in people { if let strap = person.strap { wearers[strap.uppercased()] = person } }
        self.wearers = wearers
    }

    func tags(for address: String) -> Metadata {
        var tags: Metadata = wearers[address.uppercased()]?.tags ?? [:]
        guard let session = active.last(where: { $0.covers(device: address) }) else { return tags }
        tags.merge(session.metadata.filter { !MetadataKey.isReserved($0.key) }) { person, _ in person }
        tags[MetadataKey.session] = session.uuid.uuidString
        tags[MetadataKey.sessionLabel] = session.label
        return tags
    }
}

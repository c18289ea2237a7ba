/// The access class of a control method.
public enum ControlAccess: String, Sendable, Hashable {
    /// Queries and `watch`: root or members of the socket group.
    case read
    /// Changes (forget a device, delete data, reload): root or members of the admin group.
    case admin
    /// Starting and stopping sessions: root, the admin group, or the session group (the read group when none).
    case session
}

/// A named group resolved to its gid.
public struct GroupIdentity: Sendable, Hashable {
    public var name: String
    public var gid: UInt32
    public init(name: String, gid: UInt32) { self.name = name; self.gid = gid }

    /// Resolves `name` in the group database.
    public static func resolve(_ name: String) throws(ControlSocketError) -> GroupIdentity {
        guard let gid = UserDatabase.gid(ofGroup: name) else {
            throw ControlSocketError(.unknownGroup, "group '\(name)' does not exist")
        }
        return GroupIdentity(name: name, gid: gid)
    }
}

/// Decides whether a peer may call a method of a given access class. Pure logic.
///
/// - root (uid 0) may do everything;
/// - `read` needs membership of `readGroup` (or of `adminGroup`); with no read group, anyone who
///   can open the socket may read;
/// - `session` needs membership of `sessionGroup` (or of `adminGroup`); with no session group, what `read` needs;
/// - `admin` needs membership of `adminGroup`; with no admin group, only root.
public struct AccessPolicy: Sendable, Hashable {
    public var readGroup: GroupIdentity?
    public var adminGroup: GroupIdentity?
    /// Who may start and stop sessions besides root and admins; nil: whoever may read.
    public var sessionGroup: GroupIdentity?

    public init(readGroup: GroupIdentity?, adminGroup: GroupIdentity?, sessionGroup: GroupIdentity? = nil) {
        self.readGroup = readGroup
        self.adminGroup = adminGroup
        self.sessionGroup = sessionGroup
    }

    /// `nil` when allowed, else a `permission-denied` error naming the missing group.
    public func check(_ peer: PeerCredentials, access: ControlAccess, method: String) -> ControlError? {
        if peer.uid == 0 { return nil }
        let isAdmin = adminGroup.map { peer.isMember(of: $0.gid) } ?? false
        switch access {
        case .read:
            guard let readGroup else { return nil }
            if peer.isMember(of: readGroup.gid) || isAdmin { return nil }
            return ControlError(.permissionDenied, "method '\(method)' requires membership of group '\(readGroup.name)' (uid \(peer.uid) is not a member)")
        case .session:
            guard let sessionGroup else { return check(peer, access: .read, method: method) }
            if peer.isMember(of: sessionGroup.gid) || isAdmin { return nil }
            return ControlError(.permissionDenied, "method '\(method)' requires membership of group '\(sessionGroup.name)' (uid \(peer.uid) is not a member)")
        case .admin:
            if isAdmin { return nil }
            let needed = adminGroup.map { "root or membership of group '\($0.name)'" } ?? "root"
            return ControlError(.permissionDenied, "method '\(method)' requires \(needed) (uid \(peer.uid))")
        }
    }
}

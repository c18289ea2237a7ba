import Glibc
import Posix

/// Who is on the other end of a Unix socket, from the kernel (`SO_PEERCRED`), plus the peer's
/// supplementary groups.
public struct PeerCredentials: Sendable, Hashable, CustomStringConvertible {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
    /// Supplementary groups (may include `gid`).
    public var groups: [UInt32]

    public init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32] = []) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    /// Whether the peer's primary or a supplementary group is `gid`.
    public func isMember(of gid: UInt32) -> Bool { self.gid == gid || groups.contains(gid) }

    public var description: String { "pid=\(pid) uid=\(uid) gid=\(gid) groups=\(groups)" }

    /// Reads the credentials of the peer connected to `fd`.
    ///
    /// Groups come from `SO_PEERGROUPS` (the peer process's actual supplementary groups, Linux ≥ 4.13);
    /// when the kernel does not support it, from the user database (`getpwuid_r` + `getgrouplist`).
    public static func of(socket fd: Int32) throws(ControlSocketError) -> PeerCredentials {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; } — declared only under _GNU_SOURCE.
        var raw: (Int32, UInt32, UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &raw, &length) == 0 else {
            throw ControlSocketError(.systemCall, "getsockopt(SO_PEERCRED): \(errnoText())")
        }
        var credentials = PeerCredentials(pid: raw.0, uid: raw.1, gid: raw.2)
        credentials.groups = peerGroups(fd) ?? UserDatabase.groups(ofUID: raw.1, primaryGID: raw.2)
        return credentials
    }

    private static func peerGroups(_ fd: Int32) -> [UInt32]? {
        let soPeerGroups: Int32 = 59
        var groups = [UInt32](repeating: 0, count: 64)
        var length = socklen_t(groups.count * 4)
        for _ in 0..<2 {
            if getsockopt(fd, SOL_SOCKET, soPeerGroups, &groups, &length) == 0 {
                return Array(groups.prefix(Int(length) / 4))
            }
            guard errno == ERANGE else { return nil }
            groups = [UInt32](repeating: 0, count: Int(length) / 4 + 1)
        }
        return nil
    }
}

/// Lookups in the user and group databases (NSS).
public enum UserDatabase {
    /// The gid of group `name`, or `nil` when there is no such group.
    public static func gid(ofGroup name: String) -> UInt32? {
        var group = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getgrnam_r(name, &group, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return group.gr_gid
    }

    /// The name of group `gid`, or `nil`.
    public static func name(ofGroup gid: UInt32) -> String? {
        var group = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getgrgid_r(gid, &group, &buffer, buffer.count, &result) == 0, result != nil, let name = group.gr_name else { return nil }
        return String(cString: name)
    }

    /// The groups the database gives user `uid` (`getgrouplist`), always including `primaryGID`.
    public static func groups(ofUID uid: UInt32, primaryGID: UInt32) -> [UInt32] {
        var passwd = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getpwuid_r(uid, &passwd, &buffer, buffer.count, &result) == 0, result != nil, let name = passwd.pw_name else {
            return [primaryGID]
        }
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, primaryGID, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            guard getgrouplist(name, primaryGID, &groups, &count) >= 0 else { return [primaryGID] }
        }
        return Array(groups.prefix(Int(count)))
    }
}


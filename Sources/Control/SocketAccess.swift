import Glibc
import Posix

/// Why a client may not open a socket path: the file or directory that refuses it and the group that owns it,
/// so that a permission error can tell the user which group to join instead of "is it running?".
public struct SocketAccess: Sendable, Equatable {
    /// The path that refuses the caller: a directory it may not enter, or the socket it may not write.
    public let blocker: String
    /// The group owning `blocker` (its name, or the numeric gid when the group database has none).
    public let group: String

    /// The first directory on `path` the caller may not search, else the socket itself when it may not write it;
    /// `nil` when nothing on the path refuses the caller (or a component does not exist).
    public static func blocker(of path: String) -> SocketAccess? {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/").dropLast() {
            prefix += "/" + component
            if access(prefix, X_OK) != 0 { return errno == ENOENT ? nil : SocketAccess(path: prefix) }
        }
        if access(path, W_OK) != 0 { return errno == ENOENT ? nil : SocketAccess(path: path) }
        return nil
    }

    private init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        blocker = path
        if let entry = getgrgid(info.st_gid), let name = entry.pointee.gr_name {
            group = String(cString: name)
        } else {
            group = String(info.st_gid)
        }
    }

    /// The error for a refused `connect(2)`, naming the group to join when it can be found.
    static func denied(path: String, errno code: Int32) -> ControlSocketError {
        guard let access = blocker(of: path) else {
            return ControlSocketError(.permissionDenied, "connect \(path): \(errnoText(code))")
        }
        return ControlSocketError(.permissionDenied,
                                  "\(access.blocker) is open to group \(access.group) only: join group \(access.group) " +
                                  "(usermod -aG \(access.group) USER, then log in again) or run as root")
    }
}

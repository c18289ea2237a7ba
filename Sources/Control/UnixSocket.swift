import Glibc
import Posix

/// Small helpers around `AF_UNIX` stream sockets.
enum UnixSocket {
    /// Calls `body` with a `sockaddr_un` for `path`.
    static func withAddress<R>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) throws(ControlSocketError) -> R {
        do {
            return try UnixSocketAddress(path, allowAbstract: false).withSockaddr(body)
        } catch {
            throw ControlSocketError(.invalidPath, "socket path must be 1…107 bytes: '\(path)' (\(error))")
        }
    }

    /// A new close-on-exec stream socket.
    static func makeStream() throws(ControlSocketError) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ControlSocketError(.systemCall, "socket: \(errnoText())") }
        return fd
    }

    static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }

    static func setCloseOnExec(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFD)
        _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC)
    }

    /// Connects `fd` to `path` (blocking). Returns errno on failure.
    static func connect(_ fd: Int32, to path: String) throws(ControlSocketError) -> Int32? {
        try withAddress(path) { address, length in
            while true {
                if Glibc.connect(fd, address, length) == 0 { return nil }
                if errno == EINTR { continue }
                return errno
            }
        }
    }

    /// `mkdir -p` for the socket's parent directory (mode 0755 for new directories).
    static func makeParentDirectory(of path: String) throws(ControlSocketError) {
        var components = path.split(separator: "/", omittingEmptySubsequences: true).dropLast()
        var current = path.hasPrefix("/") ? "" : "."
        while !components.isEmpty {
            current += "/" + components.removeFirst()
            if mkdir(current, 0o755) != 0, errno != EEXIST {
                throw ControlSocketError(.systemCall, "mkdir \(current): \(errnoText())")
            }
        }
    }
}

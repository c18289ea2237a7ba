import Glibc

/// `strerror(code)` plus the number, for error details: "No such file or directory (errno 2)".
public func errnoText(_ code: Int32 = errno) -> String {
    "\(String(cString: strerror(code))) (errno \(code))"
}

/// A failed system call of `Posix`.
public struct PosixError: Error, Sendable, CustomStringConvertible {
    public let call: String
    public let errno: Int32

    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    public var description: String { "\(call): \(errnoText(errno))" }
}

import Glibc

/// `strerror(code)` plus the number, for error details: "No such file or directory (errno 2)".
public func errnoText(_ code: Int32 = errno) -> String {
    "\(String(cString: strerror(code))) (errno \(code))"
}

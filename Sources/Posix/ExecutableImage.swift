import CLinux
import Glibc

/// heartd's own executable, as mapped in memory.
///
/// The static build is ~70 MB of code and data (the Swift runtime, Foundation, NIO, GRDB and their tables). Start-up
/// touches pages all over it, and the kernel maps each touched page with up to 15 cached neighbours (fault-around),
/// so a started heartd kept ~18 MB of its executable resident that the steady state never reads again
/// (docs/BENCHMARKS.md, "Memory"). `pageOutStartupPages()` hands them back once start-up is done.
public enum ExecutableImage {
    /// Advises the kernel to reclaim the executable's file-backed pages now (`MADV_PAGEOUT`, Linux ≥ 5.4). Nothing
    /// is lost: clean pages are re-read from the file when used again, and pages the process wrote (relocated data)
    /// stay resident, or go to swap where there is some. Returns the bytes advised.
    @discardableResult
    public static func pageOutStartupPages() throws(PosixError) -> UInt64 {
        var bytes: UInt64 = 0
        guard clinux_page_out_executable(&bytes) == 0 else {
            throw PosixError(call: "madvise(MADV_PAGEOUT)", errno: errno)
        }
        return bytes
    }
}

/// The process's resident memory (RSS), as `ps` and `top` show it.
public enum ResidentMemory {
    /// Resident set size in bytes (`/proc/self/statm`, second field, in pages); nil where /proc is not mounted.
    public static func bytes() -> UInt64? {
        let fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let fields = buffer[..<count].split(separator: UInt8(ascii: " "))
        guard fields.count > 1, let pages = UInt64(String(decoding: fields[1], as: UTF8.self)) else { return nil }
        return pages * UInt64(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Bytes resident of the process's mappings of the file at `path` (the `Rss:` of its entries in
    /// `/proc/self/smaps`); nil where /proc is not mounted.
    public static func bytes(mappedFrom path: String) -> UInt64? {
        let fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            text += chunk[..<count]
        }
        var kilobytes: UInt64 = 0, inFile = false
        for line in text.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "))
            guard let first = fields.first else { continue }
            if first.contains(UInt8(ascii: "-")), first.last != UInt8(ascii: ":") {
                // A mapping's first line: range, perms, offset, dev, inode, then the path (which may hold spaces).
                inFile = fields.count > 5 && String(decoding: Array(fields[5...].joined(separator: [UInt8(ascii: " ")])), as: UTF8.self) == path
            } else if inFile, first.elementsEqual("Rss:".utf8), fields.count > 1,
                      let kb = UInt64(String(decoding: fields[1], as: UTF8.self)) {
                kilobytes += kb
            }
        }
        return kilobytes * 1024
    }
}

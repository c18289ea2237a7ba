import Foundation
import Glibc
import Posix
import Testing

/// A file written through a shared mapping: what is copied in is the file's content, a process gone or not; only
/// reserved blocks are ever written; pages behind the tail are handed back.
@Suite struct SharedFileMappingTests {
    /// A new empty file in a directory of its own under the temporary directory, opened read-write; `discard`
    /// closes it and removes the directory.
    static func file() throws -> (path: String, fd: Int32) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hd-map-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("f").path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        try #require(fd >= 0)
        return (path, fd)
    }

    static func discard(_ path: String, _ fd: Int32? = nil) {
        if let fd { close(fd) }
        try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }

    @Test func copiesReachTheFileAndOnlyReservedBlocksAreWritten() throws {
        let (path, fd) = try Self.file()
        defer { Self.discard(path, fd) }
        do {
            let mapping = try SharedFileMapping(fd: fd, capacity: 1 << 20)
            #expect(mapping.reserved == 0)
            #expect(![UInt8](repeating: 1, count: 10).withUnsafeBytes { mapping.write($0, at: 0) }, "nothing reserved yet")
            try mapping.reserve(upTo: 8192)
            #expect(Array("journal".utf8).withUnsafeBytes { mapping.write($0, at: 100) })
            #expect(![UInt8](repeating: 2, count: 10).withUnsafeBytes { mapping.write($0, at: 8190) }, "past the reservation")
            #expect(throws: PosixError.self) { try mapping.reserve(upTo: 2 << 20) }
            #expect(mapping.reserved == 8192)
        }  // unmapped: what was copied is the file's, read back by read(2)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.count == 8192)
        #expect(Array(bytes[100..<107]) == Array("journal".utf8))
        #expect(bytes.enumerated().allSatisfy { $0.offset >= 100 && $0.offset < 107 || $0.element == 0 })
    }

    @Test func aKilledWriterLeavesItsCopiesInTheFile() throws {
        // The guarantee a checkpoint relies on: the page cache keeps what a process copied in after it dies.
        let (path, fd) = try Self.file()
        defer { Self.discard(path) }
        close(fd)
        let script = """
            import mmap, os, signal
            fd = os.open("\(path)", os.O_RDWR)
            os.posix_fallocate(fd, 0, 4096)
            m = mmap.mmap(fd, 4096, mmap.MAP_SHARED)
            m[10:14] = b"beat"
            os.kill(os.getpid(), signal.SIGKILL)
            """
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = ["-c", script]
        try python.run()
        python.waitUntilExit()
        #expect(python.terminationReason == .uncaughtSignal && python.terminationStatus == SIGKILL)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Array(bytes[10..<14]) == Array("beat".utf8))
    }

    @Test func pagesBehindTheTailAreHandedBackAndKeepTheirData() throws {
        let (path, fd) = try Self.file()
        defer { Self.discard(path, fd) }
        let mapping = try SharedFileMapping(fd: fd, capacity: 4 << 20)
        try mapping.reserve(upTo: 1 << 20)
        let page = [UInt8](repeating: 0xA5, count: 4096)
        for offset in stride(from: 0, to: 1 << 20, by: 4096) {
            #expect(page.withUnsafeBytes { mapping.write($0, at: offset) })
        }
        let before = Int(try #require(ResidentMemory.bytes(mappedFrom: path)) / 1024)
        mapping.release(below: (1 << 20) - 4096)
        let after = Int(try #require(ResidentMemory.bytes(mappedFrom: path)) / 1024)
        #expect(before >= 1000 && after <= 8, "resident KB of the mapping: \(before) before, \(after) after")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.allSatisfy { $0 == 0xA5 }, "released pages keep the data they were given")
    }
}

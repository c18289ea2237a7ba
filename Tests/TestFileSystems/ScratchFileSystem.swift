import Foundation
import Glibc

/// A small real file system mounted for one test: btrfs, xfs or ext4 on a loop device backed by a sparse image file,
/// or a tmpfs. For the full-disk tests: each file system runs out of space its own way (btrfs, copy-on-write, needs
/// new blocks to rewrite a page already written back; ext4 is made with no blocks reserved for root, so root fills
/// it too). Needs root, `mount`, and the file system's `mkfs`; `isAvailable` says whether this machine has them.
public struct ScratchFileSystem: Sendable {
    public enum Kind: String, Sendable, CaseIterable, CustomStringConvertible {
        case btrfs, xfs, ext4, tmpfs

        public var description: String { rawValue }

        /// The smallest size each `mkfs` accepts with room to spare (xfs refuses less than 300 MB); the image is
        /// sparse, so only what is written takes disk space.
        var sizeBytes: Int {
            switch self {
            case .btrfs: 128 << 20
            case .xfs: 320 << 20
            case .ext4: 64 << 20
            case .tmpfs: 16 << 20
            }
        }

        var mkfs: [String] {
            switch self {
            case .btrfs: ["/usr/sbin/mkfs.btrfs", "-q", "-f"]
            case .xfs: ["/usr/sbin/mkfs.xfs", "-q", "-f"]
            case .ext4: ["/usr/sbin/mkfs.ext4", "-q", "-F", "-m", "0"]
            case .tmpfs: []
            }
        }
    }

    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
        public init(description: String) { self.description = description }
    }

    public let kind: Kind
    /// The mount point.
    public let path: String
    private let image: String?

    /// Makes and mounts a file system of `kind` at `path` (created), its image beside it (`path.img`).
    public init(_ kind: Kind, at path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        self.kind = kind
        self.path = path
        if kind == .tmpfs {
            image = nil
            try Self.run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=\(kind.sizeBytes)", "tmpfs", path])
            return
        }
        let image = path + ".img"
        self.image = image
        guard FileManager.default.createFile(atPath: image, contents: nil), truncate(image, off_t(kind.sizeBytes)) == 0 else {
            throw Failure(description: "cannot create the image \(image)")
        }
        try Self.run(kind.mkfs[0], Array(kind.mkfs.dropFirst()) + [image])
        try Self.run("/usr/bin/mount", ["-o", "loop", image, path])
    }

    /// Unmounts (lazily, should a process still hold a file) and removes the image; the loop device goes with it.
    public func unmount() {
        _ = try? Self.run("/usr/bin/umount", ["-l", path])
        if let image { try? FileManager.default.removeItem(atPath: image) }
    }

    /// Bytes still free for a writer.
    public func freeBytes() -> Int {
        var s = statvfs()
        guard statvfs(path, &s) == 0 else { return 0 }
        return Int(s.f_bavail) * Int(s.f_frsize)
    }

    /// Fills the file system: most of it at once (`fallocate`), then `dd` until the device says it is full, then
    /// writes everything back (`sync`), which is when a copy-on-write file system finds it has no room for pages
    /// written again. What the test's daemon writes meanwhile is why some room is left before `dd`.
    public func fill() throws {
        let margin = 256 << 10
        if freeBytes() > 2 * margin {
            _ = try? Self.run("/usr/bin/fallocate", ["-l", "\(freeBytes() - margin)", path + "/filler"])
        }
        _ = try? Self.run("/usr/bin/dd", ["if=/dev/zero", "of=\(path)/filler2", "bs=4096"])
        _ = try? Self.run("/usr/bin/dd", ["if=/dev/zero", "of=\(path)/filler3", "bs=512"])
        _ = try? Self.run("/usr/bin/sync", ["-f", path])
    }

    /// Gives the space `fill` took back.
    public func release() throws {
        for name in ["filler", "filler2", "filler3"] {
            let file = path + "/" + name
            if FileManager.default.fileExists(atPath: file) { try FileManager.default.removeItem(atPath: file) }
        }
        _ = try? Self.run("/usr/bin/sync", ["-f", path])
    }

    /// The file's attribute letters as `lsattr` prints them (`C`: not copy-on-write).
    public static func attributes(of path: String) throws -> String {
        let line = try run("/usr/bin/lsattr", [path])
        return String(line.split(separator: " ").first ?? "")
    }

    /// Whether a file system of `kind` can be made and mounted here (probed once per kind with a throwaway mount).
    public static func isAvailable(_ kind: Kind) -> Bool { availability[kind] ?? false }

    private static let availability: [Kind: Bool] = {
        var result: [Kind: Bool] = [:]
        for kind in Kind.allCases {
            guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/mount"),
                  kind.mkfs.first.map(FileManager.default.isExecutableFile(atPath:)) ?? true else {
                result[kind] = false
                continue
            }
            let probe = "/tmp/hd-fs-probe-\(kind)-\(UUID().uuidString.prefix(8))"
            defer { try? FileManager.default.removeItem(atPath: probe) }
            if let fs = try? ScratchFileSystem(kind, at: probe) {
                fs.unmount()
                result[kind] = true
            } else {
                result[kind] = false
            }
        }
        return result
    }()

    /// Runs a tool to its end; throws with its output unless it exits 0. The output goes to a file, not a pipe: a
    /// daemon started at the same moment could inherit a pipe's write end and keep it open.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let outputPath = "/tmp/hd-fs-\(UUID().uuidString).out"
        guard FileManager.default.createFile(atPath: outputPath, contents: nil) else {
            throw Failure(description: "cannot create \(outputPath)")
        }
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try output.close()
        process.waitUntilExit()
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")): exit \(process.terminationStatus): \(text)")
        }
        return text
    }
}

import Foundation
import Posix
import Testing

/// Written before paging out: a page of the executable's data the process changed must keep its contents
/// (MADV_PAGEOUT, never a discard such as MADV_DONTNEED, which would bring back the file's 7). A constant initial
/// value puts it in the executable's .data, not in lazily initialised storage.
nonisolated(unsafe) private var writtenBeforePageOut = 7

// Serialized: paging out moves the resident size the other test compares.
@Suite(.serialized) struct ExecutableImageTests {
    /// KB of the test executable's own mappings that are resident (/proc/self/smaps).
    private func executableResidentKB() throws -> Int {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        return Int(try #require(ResidentMemory.bytes(mappedFrom: executable)) / 1024)
    }

    @Test func pagingOutHandsBackTheExecutablesPagesAndKeepsWhatWasWritten() throws {
        writtenBeforePageOut = 12_345
        let before = try executableResidentKB()
        let rssBefore = try #require(ResidentMemory.bytes())
        let advised = try ExecutableImage.pageOutStartupPages()
        let after = try executableResidentKB()
        let rssAfter = try #require(ResidentMemory.bytes())
        #expect(advised > 1 << 20, "the loaded segments of a test binary are several MB")
        #expect(after < before / 2, "resident executable pages: \(before) KB before, \(after) KB after")
        #expect(rssAfter < rssBefore)
        #expect(writtenBeforePageOut == 12_345)
    }

    @Test func residentMemoryMatchesTheKernelsStatus() throws {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        let kb = try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
        let bytes = try #require(ResidentMemory.bytes())
        // Read moments apart: within 1 MB of each other.
        #expect(abs(Int(bytes / 1024) - kb) < 1024, "statm \(bytes / 1024) KB, status \(kb) KB")
    }
}

import Foundation
import Testing
@testable import Ingest
import SourceEvents
#if canImport(Glibc)
import Glibc
#endif

/// `ReplayStream`: lines cut by the read buffer anywhere, CRLF, no trailing newline, over-long lines, bad lines
/// reported by number with the rest ingested, pipes (standard input), and what cannot be opened.
@Suite struct ReplayStreamTests {
    static let good = #"{"t":100.5,"device":"aa:bb:cc:dd:ee:01","hex":"1648c0037c03"}"#

    /// A recording mixing every line shape, bad lines included, with CRLF and no final newline.
    static let mixed = [
        #"{"t": 99, "device": "AA:BB:CC:DD:EE:01", "event": "connected", "info": {"name": "H10"}}"#,
        good + "\r",
        "# a comment",
        "",
        #"{"t": 101, "device": "AA:BB:CC:DD:EE:01", "hex": "16 48 c0 03", "rssi": -60}"#,
        #"{"t":102,"device":"AA:BB:CC:DD:EE:01","hex":"164"}"#,
        "{\"t\":103,\"device\":\"AA:BB:CC:DD:EE:01\",\"hex\":\"16\u{E9}\"}",
        #"{"t":104,"device":"AA:BB:CC:DD:EE:01","hex":"1648c003"}"# + "\r",
        #"{"t":105,"device":"AA:BB:CC:DD:EE:01","event":"battery","percent":80}"#,
    ].joined(separator: "\n")

    @Test("every buffer size, from 2 bytes up, reads the same events and issues")
    func buffersSplitLinesAnywhere() throws {
        let reference = ReplayStream(text: Self.mixed)
        let expected = try reference.readAll()
        #expect(expected.count == 5)
        #expect(reference.issues.map(\.line) == [6, 7])
        #expect(reference.issues.map(\.code) == [.invalidHex, .invalidHex])
        #expect(expected[1] == .notification(address: "AA:BB:CC:DD:EE:01", bytes: [0x16, 0x48, 0xC0, 0x03, 0x7C, 0x03],
                                             at: Timestamp(unixSeconds: 100.5)))
        #expect(expected[4] == .battery(address: "AA:BB:CC:DD:EE:01", percent: 80, at: Timestamp(unixSeconds: 105)))
        for size in [2, 3, 5, 7, 16, 31, 64, 100, 4096] {
            let stream = ReplayStream(text: Self.mixed, bufferSize: size)
            #expect(try stream.readAll() == expected, "buffer of \(size) bytes")
            #expect(stream.issues == reference.issues)
            #expect(stream.lineCount == 9)
        }
    }

    @Test("a trailing newline, CRLF and a missing final newline give the same events")
    func lineEnds() throws {
        let lines = [Self.good, Self.good.replacingOccurrences(of: "100.5", with: "101.5")]
        let variants = [lines.joined(separator: "\n"), lines.joined(separator: "\n") + "\n",
                        lines.joined(separator: "\r\n") + "\r\n", lines.joined(separator: "\r\n")]
        let expected = try ReplayStream(text: variants[0]).readAll()
        #expect(expected.count == 2)
        for text in variants {
            #expect(try ReplayStream(text: text, bufferSize: 8).readAll() == expected)
        }
    }

    @Test("a line over the limit is reported and skipped without being held; bad UTF-8 too; the rest is read")
    func longLinesAndBadUTF8() throws {
        var bytes = Array((Self.good + "\n").utf8)
        bytes += Array(#"{"t":1,"device":"X","hex":""#.utf8) + Array(repeating: UInt8(ascii: "0"), count: ReplayStream.maxLineBytes) + Array("\"}\n".utf8)
        bytes += Array(#"{"t":2,"device":"A"#.utf8) + [0xFF, 0xFE] + Array(#"","hex":"10"}"#.utf8) + [0x0A]
        bytes += Array(Self.good.utf8)
        // A short line longer than the read buffer is read whole (the buffer grows).
        bytes += [0x0A] + Array(Self.good.utf8)
        let read = try pipeWithWriter(bytes, pieces: 4093)
        let stream = try ReplayStream(fileDescriptor: read, name: "pipe", closeWhenDone: true, bufferSize: 16)
        let events = try stream.readAll()
        #expect(events.count == 3)
        #expect(stream.issues.map(\.line) == [2, 3])
        #expect(stream.issues.map(\.code) == [.lineTooLong, .invalidUTF8])
        #expect(stream.lineCount == 5)
    }

    @Test("the fast scanner and the full decoder agree on every line shape")
    func scannerMatchesFullDecoder() {
        let lines = [
            Self.good,
            #"  { "hex" : "10 3C:00" , "t" : 1.25e3 ,"device":" ab:cd " }  "#,
            #"{"t":-0,"device":"a","hex":"AbCdEf"}"#,
            #"{"t":1E-2,"device":"a","hex":""}"#,
            #"{"t":01,"device":"a","hex":"10"}"#,
            #"{"t":1.,"device":"a","hex":"10"}"#,
            #"{"t":1e400,"device":"a","hex":"10"}"#,
            #"{"t":"1","device":"a","hex":"10"}"#,
            #"{"t":1,"device":"","hex":"10"}"#,
            #"{"t":1,"device":"  ","hex":"1"}"#,
            #"{"t":1,"device":"a","hex":"+f"}"#,
            #"{"t":1,"device":"a","hex":"1g"}"#,
            #"{"t":1,"device":"a\u0062","hex":"10"}"#,
            #"{"t":1,"device":"é","hex":"10"}"#,
            #"{"t":1,"t":2,"device":"a","hex":"10"}"#,
            #"{"t":1,"device":"a","hex":"10","extra":[1,{"x":2}]}"#,
            #"{"t":1,"device":"a"}"#,
            #"{"t":1,"device":"a","hex":"10"} x"#,
            #"{"t":1,"device":"a","hex":"10",}"#,
            #"{"t":1,"device":"a","hex":"10""#,
            "{\"t\":1,\t\"device\":\"a\",\"hex\":\"10\"}",
            "[1, 2]",
        ]
        for (k, line) in lines.enumerated() {
            let stream = ReplayStream(text: line)
            let fast = (try? stream.readAll()) ?? []
            let full = ReplayReader.parseLine(line, number: 1)
            switch full {
            case .success(let event):
                #expect(fast == (event.map { [$0] } ?? []), "line \(k): \(line)")
                #expect(stream.issues.isEmpty, "line \(k): \(line)")
            case .failure(let issue):
                #expect(fast.isEmpty, "line \(k): \(line)")
                #expect(stream.issues == [issue], "line \(k): \(line)")
            }
        }
    }

    @Test("numbers: the scanner's fast path gives the full decoder's double, digit for digit")
    func numbersMatchTheFullDecoder() {
        var rng = SystemRandomNumberGenerator()
        var lines: [String] = []
        for _ in 0..<3000 {
            let integer = String(UInt64.random(in: 0...UInt64.max, using: &rng)).prefix(Int.random(in: 1...20, using: &rng))
            let fraction = String(UInt64.random(in: 0...UInt64.max, using: &rng)).prefix(Int.random(in: 0...19, using: &rng))
            var text = (integer.first == "0" ? "0" : String(integer)) + (fraction.isEmpty ? "" : "." + fraction)
            if Bool.random(using: &rng) { text += "e" + String(Int.random(in: -30...30, using: &rng)) }
            if Bool.random(using: &rng) { text = "-" + text }
            lines.append(#"{"t":\#(text),"device":"a","hex":"10"}"#)
        }
        for line in lines {
            let fast = (try? ReplayStream(text: line).readAll()) ?? []
            guard case .success(let event?) = ReplayReader.parseLine(line, number: 1) else {
                Issue.record("the full decoder refused \(line)")
                continue
            }
            #expect(fast.first?.at.monotonic.bitPattern == event.at.monotonic.bitPattern, "\(line)")
        }
    }

    @Test("issues beyond the kept ones are counted")
    func issuesAreCountedBeyondTheKeptOnes() throws {
        let text = Array(repeating: "garbage", count: ReplayStream.keptIssues + 5).joined(separator: "\n") + "\n" + Self.good
        let stream = ReplayStream(text: text)
        #expect(try stream.readAll().count == 1)
        #expect(stream.issues.count == ReplayStream.keptIssues)
        #expect(stream.issueCount == ReplayStream.keptIssues + 5)
    }

    @Test("missing paths, directories and /dev/null")
    func openErrors() throws {
        #expect(throws: ReplayError.self) { try ReplayStream(path: "/nonexistent/replay.jsonl") }
        do {
            _ = try ReplayStream(path: "/nonexistent/replay.jsonl")
        } catch {
            #expect(error.code == .notFound)
        }
        do {
            _ = try ReplayStream(path: NSTemporaryDirectory())
            Issue.record("a directory was opened as a replay file")
        } catch {
            #expect(error.code == .isDirectory)
        }
        let empty = try ReplayStream(path: "/dev/null")
        #expect(try empty.readAll().isEmpty)
        #expect(empty.issueCount == 0 && empty.lineCount == 0)
    }
}

/// The read end of a pipe fed `bytes` in `pieces`-byte writes by a thread (a pipe holds only 64 KiB), then closed.
private func pipeWithWriter(_ bytes: [UInt8], pieces: Int) throws -> Int32 {
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { throw POSIXError(.EIO) }
    let writer = fds[1]
    let thread = Thread {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset..<min(offset + pieces, bytes.count)].withUnsafeBytes { Glibc.write(writer, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            offset += n
        }
        close(writer)
    }
    thread.start()
    return fds[0]
}

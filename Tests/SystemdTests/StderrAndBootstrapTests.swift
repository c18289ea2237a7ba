import Glibc
import Logging
import Testing
@testable import Systemd

@Suite struct StderrAndBootstrapTests {
    @Test func formatsPriorityPrefixAndSortedMetadata() {
        let line = StderrLogHandler.format(level: .warning, message: "gap\ndetected", metadata: [
            "heartd.device": "AA:BB", "note": "two words", "empty": "",
        ])
        #expect(line == "<4>gap\\ndetected empty=\"\" heartd.device=AA:BB note=\"two words\"\n")
    }

    @Test func writesOneLinePerEventToDescriptor() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let handler = StderrLogHandler(label: "t", fileDescriptor: fds[1])
        let logger = Logger(label: "t") { _ in handler }
        logger.info("hello", metadata: ["k": "v"])
        logger.debug("hidden at info level")
        close(fds[1])
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = read(fds[0], &buffer, buffer.count)
        #expect(String(decoding: buffer.prefix(max(n, 0)), as: UTF8.self) == "<6>hello k=v\n")
    }

    @Test func autoTargetPicksStderrOutsideSystemd() {
        let bootstrap = LoggingBootstrap(target: .auto, environment: [:])
        #expect(bootstrap.resolvedTarget == .stderr)
        #expect(bootstrap.handler(label: "x") is StderrLogHandler)
    }

    @Test func autoTargetPicksJournalUnderSystemdWithSocket() throws {
        let receiver = try DatagramReceiver()
        let bootstrap = LoggingBootstrap(target: .auto, level: .debug, journalSocketPath: receiver.address,
                                         environment: ["INVOCATION_ID": "abc"])
        #expect(bootstrap.resolvedTarget == .journal)
        let handler = bootstrap.handler(label: "x")
        #expect(handler is JournaldLogHandler)
        #expect(handler.logLevel == .debug)
        let missing = LoggingBootstrap(target: .auto, journalSocketPath: receiver.address + ".none",
                                       environment: ["INVOCATION_ID": "abc"])
        #expect(missing.resolvedTarget == .stderr)
    }

    @Test func journalStreamMustMatchStderr() {
        var info = stat()
        #expect(fstat(STDERR_FILENO, &info) == 0)
        let matching = "\(info.st_dev):\(info.st_ino)"
        #expect(LoggingBootstrap(environment: ["JOURNAL_STREAM": matching]).resolvedTarget == .journal)
        #expect(LoggingBootstrap(environment: ["JOURNAL_STREAM": "1:2"]).resolvedTarget == .stderr)
        #expect(LoggingBootstrap(target: .stderr, environment: ["JOURNAL_STREAM": matching]).resolvedTarget == .stderr)
    }
}

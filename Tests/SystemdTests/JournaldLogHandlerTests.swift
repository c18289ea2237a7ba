import Logging
import Testing
@testable import Systemd

@Suite struct JournaldLogHandlerTests {
    @Test func entryRoundTripsBothEncodings() throws {
        var entry = JournalEntry()
        entry.append("MESSAGE", "two\nlines")
        entry.append("PRIORITY", "6")
        entry.fields.append(("BLOB", [0, 1, 10, 61, 255]))
        let bytes = entry.encoded()
        #expect(bytes.starts(with: Array("MESSAGE\n".utf8) + [9, 0, 0, 0, 0, 0, 0, 0] + Array("two\nlines\n".utf8)))
        #expect(JournalEntry.decode(bytes) == entry)
        #expect(JournalEntry.decode(Array("MESSAGE\n\u{09}".utf8)) == nil)
    }

    @Test func fieldNamesAreSanitized() {
        #expect(JournalFieldName.sanitize("heartd.device") == "HEARTD_DEVICE")
        #expect(JournalFieldName.sanitize("MESSAGE_ID") == "MESSAGE_ID")
        #expect(JournalFieldName.sanitize("_hidden") == "HIDDEN")
        #expect(JournalFieldName.sanitize("1st-key") == "F_1ST_KEY")
        #expect(JournalFieldName.sanitize("message") == "META_MESSAGE")
        #expect(JournalFieldName.sanitize("ünïcode key") == "N_CODE_KEY")  // "Ü" → "_", leading "_" dropped
        #expect(JournalFieldName.sanitize(String(repeating: "k", count: 100)).count == 64)
    }

    @Test func sendsStructuredFieldsToSocket() throws {
        let receiver = try DatagramReceiver()
        let handler = try JournaldLogHandler(label: "heartd.test", identifier: "heartd", socketPath: receiver.address)
        var logger = Logger(label: "heartd.test") { _ in handler }
        logger[metadataKey: "heartd.adapter"] = "hci0"
        logger.error("device lost", metadata: [
            "heartd.device": "AA:BB:CC:DD:EE:FF",
            "heartd.series": "42",
            "MESSAGE_ID": .string(MessageID.deviceDisconnected.hex),
        ])
        let entry = try #require(JournalEntry.decode(try receiver.receive().bytes))
        #expect(entry.value(of: "MESSAGE") == "device lost")
        #expect(entry.value(of: "PRIORITY") == "3")
        #expect(entry.value(of: "SYSLOG_IDENTIFIER") == "heartd")
        #expect(entry.value(of: "HEARTD_DEVICE") == "AA:BB:CC:DD:EE:FF")
        #expect(entry.value(of: "HEARTD_SERIES") == "42")
        #expect(entry.value(of: "HEARTD_ADAPTER") == "hci0")
        #expect(entry.value(of: "MESSAGE_ID") == "9c2e4f7a1b3d4e6f8a0b2c4d6e8f1a23")
        #expect(entry.value(of: "CODE_FILE")?.hasSuffix("JournaldLogHandlerTests.swift") == true)
        #expect(entry.value(of: "CODE_FUNC")?.hasPrefix("sendsStructuredFieldsToSocket") == true)
        #expect(Int(entry.value(of: "CODE_LINE") ?? "") ?? 0 > 0)
    }

    @Test func multilineMessageUsesBinaryForm() throws {
        let receiver = try DatagramReceiver()
        let handler = try JournaldLogHandler(label: "t", identifier: "heartd", socketPath: receiver.address)
        Logger(label: "t") { _ in handler }.warning("first\nsecond")
        let bytes = try receiver.receive().bytes
        #expect(bytes.starts(with: Array("MESSAGE\n".utf8)))
        let entry = try #require(JournalEntry.decode(bytes))
        #expect(entry.value(of: "MESSAGE") == "first\nsecond")
        #expect(entry.value(of: "PRIORITY") == "4")
    }

    @Test func oversizedEntryIsPassedAsSealedMemfd() throws {
        let receiver = try DatagramReceiver()
        let handler = try JournaldLogHandler(label: "t", identifier: "heartd", socketPath: receiver.address)
        let big = String(repeating: "x", count: 600_000)
        Logger(label: "t") { _ in handler }.info("\(big)")
        let received = try receiver.receive()
        #expect(received.bytes.isEmpty)
        let fd = try #require(received.passedFD)
        let entry = try #require(JournalEntry.decode(readAll(fd: fd)))
        #expect(entry.value(of: "MESSAGE")?.count == 600_000)
    }

    @Test func truncationKeepsAMarker() {
        var entry = JournalEntry()
        entry.append("MESSAGE", String(repeating: "y", count: JournaldLogHandler.truncatedMessageBytes + 10))
        let cut = JournaldLogHandler.truncated(entry)
        #expect(cut.value(of: "MESSAGE")?.hasSuffix("…[truncated 10 bytes]") == true)
    }

    @Test func levelsMapToSyslogPriorities() {
        let pairs: [(Logger.Level, Int)] = [(.trace, 7), (.debug, 7), (.info, 6), (.notice, 5), (.warning, 4), (.error, 3), (.critical, 2)]
        for (level, priority) in pairs { #expect(level.syslogPriority == priority) }
    }

    @Test func messageIDsAre128BitHexAndUnique() {
        let ids = MessageID.allCases.map(\.hex)
        #expect(Set(ids).count == ids.count)
        for id in ids { #expect(id.count == 32 && id.allSatisfy { $0.isHexDigit && !$0.isUppercase }) }
    }
}

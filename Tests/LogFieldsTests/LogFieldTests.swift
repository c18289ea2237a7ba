import LogFields
import Logging
import Testing

@Suite("log fields")
struct LogFieldTests {
    @Test("every field name is a valid journald field name, so the journal handler passes it through unchanged")
    func journaldNames() {
        for field in LogField.allCases {
            let name = field.key
            #expect(!name.isEmpty && name.count <= 64 && !name.hasPrefix("_"), "\(name)")
            #expect(name.allSatisfy { ($0.isASCII && ($0.isUppercase || $0.isNumber)) || $0 == "_" }, "\(name)")
        }
    }

    @Test("a logger's field reaches every line it writes")
    func loggerField() {
        let recorder = MetadataRecorder()
        var logger = Logger(label: "test") { _ in recorder }
        logger[field: .device] = "AA:BB:CC:DD:EE:FF"
        #expect(logger[field: .device] == "AA:BB:CC:DD:EE:FF")
        #expect(logger[metadataKey: "HEARTD_DEVICE"] == "AA:BB:CC:DD:EE:FF")
        logger[field: .device] = nil
        #expect(logger[metadataKey: "HEARTD_DEVICE"] == nil)
    }
}

/// A handler that only keeps its own metadata (the subscript is what is tested).
private struct MetadataRecorder: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {}
}

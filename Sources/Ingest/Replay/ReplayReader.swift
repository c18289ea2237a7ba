import Foundation
import HealthModel
import SourceEvents

/// Parses heartd replay files: JSON lines of notifications and connection events (format: docs/REPLAY.md).
/// Monotonic time is the line's `t`; so is the wall clock.
public enum ReplayReader {
    /// The events and issues of replay text held in memory (files and standard input: `ReplayStream`).
    public static func parse(_ text: String) -> (events: [SourceEvent], issues: [ReplayIssue]) {
        let stream = ReplayStream(text: text)
        // Reading text in memory cannot fail.
        let events = (try? stream.readAll()) ?? []
        return (events, stream.issues)
    }

    /// One line, read by the full decoder (`JSONDecoder`; `ReplayStream` first tries its fast scanner): an
    /// event, nil for a blank or `#` comment line, or the issue that makes it unusable.
    public static func parseLine(_ line: String, number: Int) -> Result<SourceEvent?, ReplayIssue> {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return .success(nil) }
        let record: Record
        do {
            record = try JSONDecoder().decode(Record.self, from: Data(trimmed.utf8))
        } catch {
            return .failure(ReplayIssue(line: number, code: .invalidRecord, reason: "not a replay record: \(describe(error))"))
        }
        guard record.t.isFinite else { return .failure(ReplayIssue(line: number, code: .invalidTime, reason: "\"t\" is not finite")) }
        let address = record.device.trimmingCharacters(in: .whitespaces).uppercased()
        guard !address.isEmpty else { return .failure(ReplayIssue(line: number, code: .emptyDevice, reason: "\"device\" is empty")) }
        let at = Timestamp(unixSeconds: record.t)
        switch (record.hex, record.event) {
        case (let hex?, nil):
            guard let bytes = bytes(fromHex: hex) else {
                return .failure(ReplayIssue(line: number, code: .invalidHex, reason: "\"hex\" is not an even number of hex digits"))
            }
            return .success(.notification(address: address, bytes: bytes, at: at))
        case (nil, "connected"?):
            return .success(.connected(address: address, device: record.info?.device(address: address), at: at))
        case (nil, "disconnected"?):
            return .success(.disconnected(address: address, reason: DisconnectReason(code: record.reason ?? "replay"), at: at))
        case (nil, "battery"?):
            guard let percent = record.percent, (0...100).contains(percent) else {
                return .failure(ReplayIssue(line: number, code: .invalidBattery, reason: "\"battery\" needs \"percent\" 0…100"))
            }
            return .success(.battery(address: address, percent: percent, at: at))
        case (nil, let other?):
            return .failure(ReplayIssue(line: number, code: .unknownEvent, reason: "unknown event \"\(other)\""))
        case (nil, nil):
            return .failure(ReplayIssue(line: number, code: .missingPayload, reason: "needs \"hex\" or \"event\""))
        case (_?, _?):
            return .failure(ReplayIssue(line: number, code: .ambiguousPayload, reason: "has both \"hex\" and \"event\""))
        }
    }

    /// Bytes of a hex string (upper or lower case; spaces and colons between bytes are allowed).
    public static func bytes(fromHex hex: String) -> [UInt8]? {
        let digits = hex.filter { $0 != " " && $0 != ":" }
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var index = digits.startIndex
        while index != digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
            out.append(byte)
            index = next
        }
        return out
    }

    /// Lower-case hex of bytes (what recordings write).
    public static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { b in b < 16 ? "0" + String(b, radix: 16) : String(b, radix: 16) }.joined()
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "missing \"\(key.stringValue)\""
        case DecodingError.typeMismatch(_, let c): "wrong type at \(c.codingPath.map(\.stringValue).joined(separator: "."))"
        case DecodingError.valueNotFound(_, let c): "null at \(c.codingPath.map(\.stringValue).joined(separator: "."))"
        case DecodingError.dataCorrupted: "invalid JSON"
        default: "\(error)"
        }
    }

    /// One line as JSON; unknown fields are ignored.
    private struct Record: Decodable {
        var t: Double
        var device: String
        var hex: String?
        var event: String?
        var reason: String?
        var percent: Int?
        var info: Info?
    }

    private struct Info: Decodable {
        var name, manufacturer, model, hardware, firmware, software, serial, location: String?

        func device(address: String) -> DeviceInfo {
            var metadata: Metadata = [:]
            metadata[MetadataKey.serialNumber] = serial
            metadata[MetadataKey.bodySensorLocation] = location
            return DeviceInfo(name: name, manufacturer: manufacturer, model: model, hardwareVersion: hardware,
                              firmwareVersion: firmware, softwareVersion: software, localIdentifier: address,
                              metadata: metadata)
        }
    }
}

import Foundation
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The streaming control methods against the real `heartd --simulate` process: `export` in every format, well-formed
/// and complete (against `series`), `watch` with live events, and a connection free again after a stream's end.
@Suite("heartd control socket: streaming methods", .serialized)
struct DaemonStreamingMethodTests {
    /// Runs `export` and returns (text, samples reported by `end`).
    static func export(_ client: RawControlClient, format: String, from: Date) throws -> (String, Int) {
        let response = try client.request("export", ["format": format, "from": TestJSON.unix(from), "to": "2100-01-01"])
        #expect(response.errorCode == nil, "export \(format): \(response.errorMessage ?? "")")
        var text = ""
        while true {
            let event = try client.readEvent(timeout: 10) { _ in true }
            switch event["event"] as? String {
            case "chunk": text += event["text"] as? String ?? ""
            case "progress": continue
            case "end": return (text, event["samples"] as? Int ?? -1)
            default: throw RawControlClient.Failure(description: "export \(format): unexpected event \(event)")
            }
        }
    }

    @Test("export streams every format, each well-formed")
    func exportFormats() throws {
        let dir = try TestDirectory("export")
        defer { dir.remove() }
        let daemon = try DaemonQueryMethodTests.runningDaemon(dir)
        defer { daemon.stop() }
        // One connection per export: a connection carries one stream at a time.
        var client: RawControlClient { get throws { try daemon.client() } }
        let from = Date().addingTimeInterval(-600)
        let stored = Set(TestJSON.objects(try client.callObject("series", ["to": "2100-01-01"])["samples"])
            .filter { $0["open"] == nil }.compactMap { $0["uuid"] as? String })

        let (csv, csvSamples) = try Self.export(client, format: "csv", from: from)
        #expect(csvSamples >= stored.count)
        let csvLines = csv.split(separator: "\n")
        #expect(csvLines.first == "kind,series,start,end,value,unit,preceded_by_gap,device")
        let csvRows = csvLines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(!csvRows.isEmpty)
        #expect(csvRows.allSatisfy { $0.count == 8 })
        #expect(Set(csvRows.map { String($0[0]) }).isSuperset(of: ["beat", "heart-rate"]))
        #expect(stored.isSubset(of: Set(csvRows.map { String($0[1]) })), "every stored series appears in the CSV")

        let (jsonl, jsonlSamples) = try Self.export(client, format: "jsonl", from: from)
        let objects = try jsonl.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.count == jsonlSamples)
        #expect(stored.isSubset(of: Set(objects.compactMap { $0["uuid"] as? String })))

        let (rr, _) = try Self.export(client, format: "rr", from: from)
        let intervals = rr.split(separator: "\n").map { Double($0) }
        #expect(!intervals.isEmpty)
        #expect(intervals.allSatisfy { $0.map { (250...2500).contains($0) } ?? false }, "RR in ms, one per line")

        let (xml, _) = try Self.export(client, format: "healthkit-xml", from: from)
        #expect(xml.contains("<Record"))
        let parser = XMLParser(data: Data(xml.utf8))
        #expect(parser.parse(), "XML parses: \(parser.parserError.map { "\($0)" } ?? "")")

        #expect(try client.request("export", ["format": "pdf"]).errorCode == "invalid-params")
    }

    @Test("watch delivers heart-rate and beats events from the live pipeline")
    func watch() throws {
        let dir = try TestDirectory("watch")
        defer { dir.remove() }
        let daemon = try DaemonProcess(dir: dir, speed: 20)
        defer { daemon.stop() }
        let watcher = try daemon.client()
        let opened = try watcher.request("watch")
        #expect((opened.result as? [String: Any])?["streaming"] as? Bool == true)
        let rate = try watcher.readEvent(timeout: 5) { $0["event"] as? String == "heart-rate" }
        #expect(rate["device"] as? String == "00:00:00:00:00:00")
        #expect((rate["bpm"] as? Int).map { (30...220).contains($0) } == true)
        let beats = try watcher.readEvent(timeout: 5) { $0["event"] as? String == "beats" }
        #expect(!TestJSON.objects(beats["beats"]).isEmpty)
        #expect(try daemon.client().callObject("status")["watchers"] as? Int == 1)
        // A device filter that matches nothing delivers nothing (but the stream is open).
        let filtered = try daemon.client()
        #expect(try filtered.request("watch", ["device": "11:22:33:44:55:66"]).errorCode == nil)
        #expect(throws: RawControlClient.Failure.self) { try filtered.readEvent(timeout: 1) { _ in true } }
    }

    /// Failed before (intermittently: 1 run in 3 of this test): the connection learnt that its stream had ended on a
    /// later queue turn than the one that sent `end`, so a streaming request sent on seeing `end` could be refused
    /// as "this connection is already streaming". Back-to-back exports on one connection provoke the race.
    @Test("a streaming request right after an export's end event is accepted on the same connection")
    func requestAfterStreamEnd() throws {
        let dir = try TestDirectory("afterend")
        defer { dir.remove() }
        let daemon = try DaemonProcess(dir: dir, speed: 20)
        defer { daemon.stop() }
        let client = try daemon.client()
        for round in 1...200 {
            let response = try client.request("export", ["format": "csv", "from": TestJSON.unix(Date().addingTimeInterval(-60)),
                                                         "to": "2100-01-01"])
            try #require(response.errorCode == nil, "round \(round): \(response.errorMessage ?? "")")
            while try client.readEvent(timeout: 10, where: { _ in true })["event"] as? String != "end" {}
        }
        #expect(try client.request("hello").errorCode == nil)
    }
}

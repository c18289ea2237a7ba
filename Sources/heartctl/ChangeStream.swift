import Control
import Foundation
import HeartQueries

/// `heartctl watch --changes [--since ANCHOR]`: the daemon's `subscribe` stream — every sample and session added or
/// deleted, as it is saved, each with its anchor. An exporter keeps the anchor of the last change it handled and
/// passes it as --since after its own restart: it gets exactly the changes it has not seen (docs/CONTROL.md).
struct ChangeStream {
    let global: GlobalOptions
    let since: Int?

    func run() async throws {
        let params = SubscribeCall.Params(since: since.map(Int64.init))
        for try await event in try await global.transport().stream(SubscribeCall.self, params) {
            if event.name == "error" { throw CLIError(.failed, event.fields["message"]?.stringValue ?? "subscribe failed") }
            if global.json {
                printJSON(.object(event.fields.merging(["event": .string(event.name)]) { $1 }))
                continue
            }
            print(Self.line(event))
            fflush(nil)
        }
    }

    /// One change as a line: anchor, what happened, and to what.
    static func line(_ event: ControlEvent) -> String {
        let f = event.fields, anchor = f["anchor"]?.cell ?? "-"
        switch ChangeEvent(rawValue: event.name) {
        case .added:
            let s = f["sample"]
            return "\(anchor)  added    \(s?["typeIdentifier"]?.stringValue.map(shortType) ?? "-") \(s?["uuid"]?.cell ?? "-") "
                + "\(s?["start"]?.cell ?? "") – \(s?["end"]?.cell ?? "")  \(s?["device"]?["localIdentifier"]?.cell ?? "-")"
        case .deleted:
            return "\(anchor)  deleted  \(f["type"]?.stringValue.map(shortType) ?? "-") \(f["uuid"]?.cell ?? "-")"
        case .session:
            let s = f["session"]
            let state = s?["end"] == nil ? "started \(s?["start"]?.cell ?? "")" : "ended \(s?["end"]?.cell ?? "")"
            return "\(anchor)  session  \(s?["uuid"]?.cell ?? "-") \(s?["label"]?.cell ?? "-") \(state)"
        case .caughtUp:
            return "caught up at anchor \(anchor); waiting for changes"
        case nil:
            return "\(event.name) \(f)"
        }
    }
}

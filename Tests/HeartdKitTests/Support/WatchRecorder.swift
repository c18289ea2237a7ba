import Foundation
import Testing

extension Tag {
    /// Tests that take tens of seconds; they run by default (`swift test --skip DaemonKillTests` leaves them out).
    @Tag static var slow: Self
}

/// What a `watch` client saw of one daemon run: every beat with the wall time it was read, and the UUIDs
/// of the series the daemon reported finished.
struct WatchRecord {
    struct ObservedBeat {
        var time: Date
        var seenAt: Date
    }

    var beats: [ObservedBeat] = []
    var finished: [String] = []

    /// Reads `client`'s events until `deadline` (the client must already be watching).
    mutating func record(_ client: RawControlClient, until deadline: Date) throws {
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return }
            let object: [String: Any]?
            do {
                object = try client.readObject(timeout: left)
            } catch let error as RawControlClient.Failure where error.description.hasPrefix("no line") {
                return
            }
            guard let event = object else { throw RawControlClient.Failure(description: "watch closed") }
            let now = Date()
            switch event["event"] as? String {
            case "beats":
                for b in TestJSON.objects(event["beats"]) {
                    if let t = TestJSON.date(b["time"]) { beats.append(ObservedBeat(time: t, seenAt: now)) }
                }
            case "series-finished":
                if let u = event["uuid"] as? String { finished.append(u) }
            default:
                break
            }
        }
    }
}

import Foundation
import HealthModel
import HeartQueries

/// The Sessions page: every session heartd lists, newest first. The running one links to the room (its live view:
/// tiles, label and timer); each finished one to its report and its exports. Server-rendered, no script; every
/// label escaped.
enum SessionsPage {
    /// The exports offered per session (heartd's `export` formats; FIT for sports software, CSV for everything else).
    static let exports: [(format: ExportFormat, title: String)] = [(.csv, "CSV"), (.fit, "FIT")]

    static func render(_ sessions: [Session]) -> String {
        let rows = sessions.sorted { $0.start > $1.start }.map(row).joined(separator: "\n")
        let body = """
        <header><h1>heartd</h1><a href="/" id="room-link">Room</a><span>Sessions</span></header>
        <main class="sessions"><table id="sessions">
        <thead><tr><th>label</th><th>start (UTC)</th><th>duration</th><th>devices</th><th>average</th><th></th></tr></thead>
        <tbody>
        \(rows.isEmpty ? "<tr><td colspan=\"6\">no session yet</td></tr>" : rows)
        </tbody></table></main>
        """
        return HTML.page(title: "heartd sessions", bodyClass: "sessions", body: body)
    }

    static func row(_ session: Session) -> String {
        let uuid = session.uuid.uuidString
        let label = HTML.escape(session.label ?? "session")
        let start = session.start.formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false)
            .timeSeparator(.colon))
        let average = session.statistics?.heartRateAverage.map { String(format: "%.0f bpm", $0) } ?? "–"
        let links: String
        if session.end != nil {
            let exports = exports.map { export in
                "<a class=\"export\" href=\"/sessions/\(uuid)/export?format=\(export.format.rawValue)\" download>\(export.title)</a>"
            }.joined(separator: " ")
            links = "<a class=\"report\" href=\"/sessions/\(uuid)/report\">report</a> \(exports)"
        } else {
            links = "<a class=\"live\" href=\"/\">running: live in the room</a>"
        }
        return """
        <tr data-uuid="\(uuid)"><td class="label">\(label)</td><td>\(start)</td><td>\(duration(session))</td>\
        <td>\(session.devices.count)</td><td>\(average)</td><td>\(links)</td></tr>
        """
    }

    /// "1:02:03" or "12:34"; a running session's so far.
    static func duration(_ session: Session, now: Date = Date()) -> String {
        let seconds = max(0, Int((session.end ?? now).timeIntervalSince(session.start)))
        let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60)
        return h > 0 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%d:%02d", m, s)
    }
}

import Foundation
import HealthModel
import HeartQueries

/// The People and Nearby pages, server-rendered: every user string (names, device names, addresses) through
/// `HTML.escape`; forms only for the coach, each with the session's CSRF token; no script.
enum PeoplePages {
    /// A strap a person can be given: its address and what the room calls it now.
    struct Strap: Sendable, Hashable {
        var address: String
        var name: String
    }

    static func nav(_ current: String) -> String {
        let links = [("/", "Room"), ("/people", "People"), ("/nearby", "Nearby")].map { href, text in
            "<a href=\"\(href)\"\(href == current ? " aria-current=\"page\"" : "")>\(text)</a>"
        }.joined(separator: " ")
        return "<header><h1>heartd</h1><nav>\(links)</nav></header>"
    }

    static func hidden(_ csrf: String) -> String {
        "<input type=\"hidden\" name=\"csrf\" value=\"\(HTML.escape(csrf))\">"
    }

    static func people(_ people: [Person], straps: [Strap], caller: WebAccess.Caller, message: String?) -> String {
        var rows = ""
        for p in people {
            let hrmax = p.heartRateMaximum.map(String.init) ?? p.effectiveHeartRateMaximum.map { "~\($0)" } ?? "–"
            rows += "<tr data-uuid=\"\(p.uuid.uuidString)\"><td class=\"name\">\(HTML.escape(p.name))</td><td>\(hrmax)</td>"
                + "<td>\(p.age.map(String.init) ?? "–")</td><td>\(p.weightKg.map { String(format: "%.1f", $0) } ?? "–")</td>"
                + "<td>\(p.restingHeartRate.map(String.init) ?? "–")</td><td class=\"strap\">\(HTML.escape(p.strap ?? "–"))</td></tr>\n"
        }
        var body = nav("/people") + "<main class=\"people\">"
        if let message { body += "<p id=\"message\">\(HTML.escape(message))</p>" }
        body += """
        <table id="people-table"><thead><tr><th>Name</th><th>HRmax</th><th>Age</th><th>Weight (kg)</th><th>Resting</th>\
        <th>Strap</th></tr></thead><tbody>
        \(rows.isEmpty ? "<tr><td colspan=\"6\">nobody yet</td></tr>" : rows)</tbody></table>
        """
        if caller.role == .coach, let csrf = caller.session?.csrf {
            let personOptions = people.map { "<option value=\"\($0.uuid.uuidString)\">\(HTML.escape($0.name))</option>" }.joined()
            let strapOptions = straps.map {
                "<option value=\"\(HTML.escape($0.address))\">\(HTML.escape($0.name)) (\(HTML.escape($0.address)))</option>"
            }.joined()
            body += """
            <h2>Add or change a person</h2>
            <form method="post" action="/people/save" id="person-form">\(hidden(csrf))
            <label>Who <select name="uuid" id="person-uuid"><option value="">a new person</option>\(personOptions)</select></label>
            <label>Name <input name="name" id="person-name" required maxlength="\(Person.nameLength.upperBound)"></label>
            <label>HRmax <input name="hrmax" id="person-hrmax" type="number" min="\(Person.heartRateMaximumRange.lowerBound)" max="\(Person.heartRateMaximumRange.upperBound)"></label>
            <label>or age <input name="age" id="person-age" type="number" min="\(Person.ageRange.lowerBound)" max="\(Person.ageRange.upperBound)"></label>
            <label>Weight (kg) <input name="weight" id="person-weight" type="number" step="0.1"></label>
            <label>Resting HR <input name="resting" id="person-resting" type="number"></label>
            <button type="submit" id="save-person">Save</button></form>
            <h2>Assign a strap</h2>
            <form method="post" action="/people/assign" id="assign-form">\(hidden(csrf))
            <label>Person <select name="person" id="assign-person">\(personOptions)</select></label>
            <label>Strap <select name="address" id="assign-address">\(strapOptions)</select></label>
            <button type="submit" id="assign">Assign</button></form>
            <form method="post" action="/people/unassign" id="unassign-form">\(hidden(csrf))
            <label>Release <select name="address" id="unassign-address">\(strapOptions)</select></label>
            <button type="submit" id="unassign">Release</button></form>
            """
        }
        body += "</main>"
        return HTML.page(title: "heartd people", bodyClass: "people", body: body, csrf: caller.session?.csrf)
    }

    static func nearby(_ result: NearbyCall.Result?, people: [Person], caller: WebAccess.Caller, message: String?) -> String {
        var body = nav("/nearby") + "<main class=\"nearby\">"
        if let message { body += "<p id=\"message\">\(HTML.escape(message))</p>" }
        guard caller.role == .coach, let csrf = caller.session?.csrf else {
            body += "<p>Scanning for sensors needs the coach.</p></main>"
            return HTML.page(title: "heartd nearby", bodyClass: "people", body: body)
        }
        body += """
        <form method="post" action="/nearby/scan" id="scan-form">\(hidden(csrf))
        <label>Seconds <input name="seconds" id="scan-seconds" type="number" min="1" max="8" value="\(Int(NearbyCall.defaultSeconds))"></label>
        <button type="submit" id="scan">Scan</button></form>
        """
        if let result {
            let personOptions = "<option value=\"\">nobody</option>"
                + people.map { "<option value=\"\($0.uuid.uuidString)\">\(HTML.escape($0.name))</option>" }.joined()
            var rows = ""
            for d in result.devices {
                rows += "<tr data-address=\"\(HTML.escape(d.address))\"><td class=\"name\">\(HTML.escape(d.name ?? "–"))</td>"
                    + "<td>\(HTML.escape(d.address))</td><td class=\"rssi\">\(d.rssi.map { "\($0) dBm" } ?? "–")</td>"
                    + "<td>\(HTML.escape(d.person?.name ?? "–"))</td><td><form method=\"post\" action=\"/nearby/allow\">\(hidden(csrf))"
                    + "<input type=\"hidden\" name=\"address\" value=\"\(HTML.escape(d.address))\">"
                    + "<select name=\"person\">\(personOptions)</select><button type=\"submit\">Allow</button></form></td></tr>\n"
            }
            body += """
            <table id="nearby-table"><thead><tr><th>Name</th><th>Address</th><th>Signal</th><th>Person</th><th></th></tr></thead>
            <tbody>\(rows.isEmpty ? "<tr><td colspan=\"5\">no heart-rate sensor in range that heartd does not capture</td></tr>" : rows)</tbody></table>
            """
        }
        body += "</main>"
        return HTML.page(title: "heartd nearby", bodyClass: "people", body: body, csrf: csrf)
    }
}

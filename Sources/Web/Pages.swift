import Foundation

/// The server-rendered pages. Every user string goes through `HTML.escape`; no inline script or style attribute
/// (the Content-Security-Policy allows neither).
enum Pages {
    /// The room: a header (session label and timer, coach controls) and the tile grid the script fills.
    static func room(caller: WebAccess.Caller, coachConfigured: Bool) -> String {
        var controls = ""
        if caller.role == .coach, let csrf = caller.session?.csrf {
            let token = HTML.escape(csrf)
            controls = """
            <form method="post" action="/api/sessions/start" id="start-form">
            <input type="hidden" name="csrf" value="\(token)">
            <input name="label" id="label" maxlength="200" placeholder="session label">
            <button type="submit" id="start">Start</button></form>
            <form method="post" action="/api/sessions/stop" id="stop-form">
            <input type="hidden" name="csrf" value="\(token)"><button type="submit" id="stop">Stop</button></form>
            <form method="post" action="/logout"><input type="hidden" name="csrf" value="\(token)">
            <button type="submit">Log out</button></form>
            """
        } else if coachConfigured {
            controls = "<a class=\"who\" href=\"/login\" id=\"login\">Coach log in</a>"
        }
        let body = """
        <header><h1>heartd</h1><a href="/people" id="people-link">People</a><span id="session-label">no session</span><span id="session-timer"></span>
        <a href="/sessions" id="sessions-link">Sessions</a>
        \(controls)</header>
        <div id="banner" hidden>heartd is not reachable; reconnecting…</div>
        <main id="tiles" aria-live="polite"></main>
        """
        return HTML.page(title: "heartd room", bodyClass: "room", body: body, scripts: ["room.js"], csrf: caller.session?.csrf)
    }

    /// The overlay for OBS: transparent, one device's heart rate and a heart that pulses per beat.
    static func overlay(device: String, options: OverlayOptions) -> String {
        let body = """
        <div id="overlay"><span id="heart">♥</span><span id="bpm">–</span></div>
        """
        let page = HTML.page(title: "heartd overlay", bodyClass: "overlay", body: body, scripts: ["overlay.js"])
        let data = "data-device=\"\(HTML.escape(device))\" data-size=\"\(options.size)\" data-colour=\"\(HTML.escape(options.colour ?? ""))\" data-zones=\"\(options.zones ? "1" : "0")\""
        return page.replacingOccurrences(of: "<body class=\"overlay\">", with: "<body class=\"overlay\" \(data)>")
    }

    static func login(message: String?) -> String {
        let note = message.map { "<p id=\"message\">\(HTML.escape($0))</p>" } ?? ""
        let body = """
        <form method="post" action="/login">\(note)
        <label>Coach password <input type="password" name="password" id="password" autocomplete="current-password" autofocus></label>
        <button type="submit" id="submit">Log in</button></form>
        """
        return HTML.page(title: "heartd coach log in", bodyClass: "login", body: body)
    }
}

/// The overlay's query string: `size` (pixels, 20–1000, default 120), `colour` (`#rgb`/`#rrggbb`, or a CSS colour
/// name of letters), `zones=1` (colour by heart-rate zone). Anything else is ignored; a bad value is the default.
struct OverlayOptions: Sendable, Hashable {
    var size = 120
    var colour: String?
    var zones = false

    init(query: [String: String]) {
        if let text = query["size"], let value = Int(text), (20...1000).contains(value) { size = value }
        if let text = query["colour"] ?? query["color"], Self.isColour(text) { colour = text }
        zones = query["zones"] == "1" || query["zones"] == "true"
    }

    static func isColour(_ text: String) -> Bool {
        if text.hasPrefix("#") {
            let hex = text.dropFirst()
            return (hex.count == 3 || hex.count == 6) && hex.allSatisfy(\.isHexDigit)
        }
        return (1...30).contains(text.count) && text.allSatisfy { $0.isASCII && $0.isLetter }
    }
}

/// HTML escaping for every user string that goes into a page (names, labels, addresses, query options).
enum HTML {
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    /// The page frame every page shares: the stylesheet, no inline script (the CSP forbids it).
    static func page(title: String, bodyClass: String, body: String, scripts: [String] = [], csrf: String? = nil) -> String {
        let meta = csrf.map { "<meta name=\"csrf\" content=\"\(escape($0))\">" } ?? ""
        let scriptTags = scripts.map { "<script src=\"/assets/\($0)\" defer></script>" }.joined()
        return """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>\(meta)
        <link rel="stylesheet" href="/assets/style.css">\(scriptTags)
        </head><body class="\(escape(bodyClass))">
        \(body)
        </body></html>
        """
    }
}

/// A tiny SVG/HTML builder for the report: escaped text, attributes and compact numbers. Pure string work.
public enum Markup {
    /// Text or an attribute value with `& < > " '` escaped, so user input (labels, metadata, device names) is shown
    /// as text and can never open an element or a script.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// `<name a="v" …>content</name>`; attribute values are escaped, `content` is inserted as it is (markup).
    public static func element(_ name: String, _ attributes: KeyValuePairs<String, String> = [:], _ content: String? = nil) -> String {
        var out = "<" + name
        for (key, value) in attributes { out += " \(key)=\"\(escape(value))\"" }
        guard let content else { return out + "/>" }
        return out + ">" + content + "</" + name + ">"
    }

    /// `<name …>text</name>` with the text escaped.
    public static func text(_ name: String, _ attributes: KeyValuePairs<String, String> = [:], _ text: String) -> String {
        element(name, attributes, escape(text))
    }

    /// A coordinate with one decimal, without Foundation's formatter (the report writes thousands of them).
    public static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let tenths = Int((value * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        let whole = abs(tenths) / 10, fraction = abs(tenths) % 10
        return fraction == 0 ? sign + String(whole) : sign + String(whole) + "." + String(fraction)
    }
}

/// A linear map from data values to pixels.
struct Scale {
    let domain: (Double, Double)
    let range: (Double, Double)

    init(_ domain: (Double, Double), to range: (Double, Double)) {
        // A flat domain (one value) still maps to the middle rather than dividing by zero.
        self.domain = domain.0 == domain.1 ? (domain.0 - 1, domain.1 + 1) : domain
        self.range = range
    }

    func callAsFunction(_ value: Double) -> Double {
        range.0 + (value - domain.0) / (domain.1 - domain.0) * (range.1 - range.0)
    }
}

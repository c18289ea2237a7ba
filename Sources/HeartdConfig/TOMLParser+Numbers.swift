/// The number literals of heartd's TOML subset: integers (sign, `_` separators, `0x` hex) and finite floats.
extension TOMLParser {
    static func integer(_ text: String) -> Int? {
        var body = Substring(text)
        var negative = false
        if body.first == "+" || body.first == "-" {
            negative = body.first == "-"
            body = body.dropFirst()
        }
        guard !body.isEmpty, !body.hasPrefix("_"), !body.hasSuffix("_"), !body.contains("__") else { return nil }
        let digits = String(body.filter { $0 != "_" })
        let value: Int?
        if digits.hasPrefix("0x") {
            value = Int(digits.dropFirst(2), radix: 16)
        } else {
            guard digits.allSatisfy(\.isASCIIDigit), digits == "0" || !digits.hasPrefix("0") else { return nil }
            value = Int(digits)
        }
        guard let value else { return nil }
        return negative ? -value : value
    }

    static func float(_ text: String) -> Double? {
        let allowed = Set("0123456789+-.eE_")
        guard text.allSatisfy({ allowed.contains($0) }), text.contains(where: \.isASCIIDigit) else { return nil }
        let cleaned = String(text.filter { $0 != "_" })
        guard let value = Double(cleaned), value.isFinite else { return nil }
        return value
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

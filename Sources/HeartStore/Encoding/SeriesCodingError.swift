/// Why a series blob could not be encoded or decoded. Decoding never traps on bad bytes: it throws this.
public struct SeriesCodingError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The blob ends before a value it announces.
        case truncated
        /// The blob starts with a format version this build does not know.
        case unknownVersion
        /// A varint is longer than 10 bytes or overflows 64 bits.
        case malformedVarint
        /// A count or length is impossible for the bytes present, or bytes follow the last entry.
        case inconsistent
        /// The input cannot be represented (non-finite or decreasing offsets, dates out of range).
        case unencodable
    }

    public let code: Code
    public let detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(code.rawValue): \(detail)" }
}

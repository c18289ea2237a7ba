import Foundation

/// Where a page of `HeartDatabase.samplePage` resumes: the start and anchor of the last sample of the page before.
/// On the wire (`series`' `cursor` and `next`) it is an opaque token that keeps the start bit for bit.
public struct SamplePageCursor: Sendable, Hashable {
    /// The last listed sample's start, in seconds since the reference date.
    public var startSeconds: Double
    /// The last listed sample's anchor (unique per stored sample): the tie-break between equal starts.
    public var anchor: Int64

    public init(startSeconds: Double, anchor: Int64) {
        self.startSeconds = startSeconds
        self.anchor = anchor
    }

    /// `<start's bit pattern in hex>-<anchor>`.
    public var token: String { String(startSeconds.bitPattern, radix: 16) + "-" + String(anchor) }

    /// Nil for a token `token` did not make.
    public init?(token: String) {
        let parts = token.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let bits = UInt64(parts[0], radix: 16), let anchor = Int64(parts[1]) else { return nil }
        let start = Double(bitPattern: bits)
        guard start.isFinite else { return nil }
        self.init(startSeconds: start, anchor: anchor)
    }
}

/// One page of sample summaries and the cursor of the next page (nil when this page is the last).
public struct SamplePage: Sendable, Hashable {
    public var samples: [SampleSummary]
    public var next: SamplePageCursor?

    public init(samples: [SampleSummary], next: SamplePageCursor?) {
        self.samples = samples
        self.next = next
    }
}

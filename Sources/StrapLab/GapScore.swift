/// Gap flags scored against the truth: a flagged beat where beats were lost (true positive), a flag where none were
/// (false positive), a loss left unflagged (missed). Precision and recall are 1 when there is nothing to count.
public protocol GapScore {
    var truePositives: Int { get }
    var falsePositives: Int { get }
    var missed: Int { get }
}

extension GapScore {
    public var precision: Double { Self.ratio(truePositives, truePositives + falsePositives) }
    public var recall: Double { Self.ratio(truePositives, truePositives + missed) }

    private static func ratio(_ a: Int, _ b: Int) -> Double { b == 0 ? 1 : Double(a) / Double(b) }
}

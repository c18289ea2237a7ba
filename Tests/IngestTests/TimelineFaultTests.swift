import Ingest
import StrapLab
import Testing

@Suite struct TimelineFaultTests {
    @Test(arguments: FaultClass.allCases)
    func probe(fault: FaultClass) async {
        let t = await TimelineScore.score(fault, seeds: 0..<8)
        print("\(fault.rawValue): P=\(t.precision) R=\(t.recall) tp=\(t.truePositives) fp=\(t.falsePositives) missed=\(t.missed) inv=\(t.invented) inexact=\(t.inexact) rr=\(t.storedRR)/\(t.deliveredRR) unsaved=\(t.unsaved) \(t.gapsByRule)")
    }
}

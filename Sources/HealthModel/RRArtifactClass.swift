/// The class of one RR interval under the Lipponen & Tarvainen (2019) decision rules, as NeuroKit2's
/// `signal_fixpeaks(method="kubios")` applies them. NeuroKit2 reports long and short beats as one list
/// (`longshort`); heartd splits it: `long` when the long-beat rule (dRR > 1 and S22 < −1) holds, `short` when the
/// short-beat rule (dRR < −1 and S22 > 1) holds, and otherwise by the sign of the deviation from the
/// 11-beat median (mRR > 0: long).
public enum RRArtifactClass: String, Codable, Sendable, Hashable, CaseIterable {
    case normal
    /// An ectopic beat: a short–long or long–short pair of successive differences (the S12 rule).
    case ectopic
    case long
    case short
    /// A beat the sensor missed: a long interval about twice the local median.
    case missed
    /// A beat too many: a short interval that with the next one makes about the local median.
    case extra
}

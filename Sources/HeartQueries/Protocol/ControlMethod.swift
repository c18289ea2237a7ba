import Control

/// Every method of the control protocol (`heartd-control/1`) but `hello`, which the server answers itself
/// (`ControlProtocol.helloMethod`). The raw value is the wire name. Each case names its access class, whether it
/// streams, and its `ControlCall` type (the `Codable` params and result): the daemon dispatches on this enum, and
/// heartctl, heartbench and every other client build their requests through the call types, so no method name is
/// spelled anywhere else. docs/CONTROL.md has a section per case (`ControlDocumentationTests` checks it).
public enum ControlMethod: String, Sendable, Hashable, CaseIterable, Codable {
    case status
    case devices
    case series
    case show
    case beats
    case quantities
    case stats
    case hrv
    case changes
    case sessionStart = "session.start"
    case sessionStop = "session.stop"
    case sessions
    case sessionShow = "session.show"
    case report
    case export
    case watch
    case subscribe
    case allow
    case forget
    case delete
    case people
    case personSet = "person.set"
    case personRemove = "person.remove"
    case personAssign = "person.assign"
    case personUnassign = "person.unassign"
    case nearby

    /// Who may call it (`AccessPolicy`): queries and streams read; sessions and people need session access; changes admin.
    public var access: ControlAccess {
        switch self {
        case .status, .devices, .series, .show, .beats, .quantities, .stats, .hrv, .changes, .sessions, .sessionShow,
             .report, .export, .watch, .subscribe, .people:
            .read
        case .sessionStart, .sessionStop, .personSet, .personRemove, .personAssign, .personUnassign, .nearby:
            .session
        case .allow, .forget, .delete:
            .admin
        }
    }

    /// Whether it answers `{"protocol", "streaming": true}` and then streams events instead of one result.
    public var isStreaming: Bool {
        switch self {
        case .export, .watch, .subscribe:
            true
        case .status, .devices, .series, .show, .beats, .quantities, .stats, .hrv, .changes, .sessionStart, .sessionStop,
             .sessions, .sessionShow, .report, .allow, .forget, .delete, .people, .personSet, .personRemove, .personAssign, .personUnassign, .nearby:
            false
        }
    }

    /// The typed request and response.
    public var call: any ControlCall.Type {
        switch self {
        case .status: StatusCall.self
        case .devices: DevicesCall.self
        case .series: SeriesCall.self
        case .show: ShowCall.self
        case .beats: BeatsCall.self
        case .quantities: QuantitiesCall.self
        case .stats: StatsCall.self
        case .hrv: HRVCall.self
        case .changes: ChangesCall.self
        case .sessionStart: SessionStartCall.self
        case .sessionStop: SessionStopCall.self
        case .sessions: SessionsCall.self
        case .sessionShow: SessionShowCall.self
        case .report: ReportCall.self
        case .export: ExportCall.self
        case .watch: WatchCall.self
        case .subscribe: SubscribeCall.self
        case .allow: AllowCall.self
        case .forget: ForgetCall.self
        case .delete: DeleteCall.self
        case .people: PeopleCall.self
        case .personSet: PersonSetCall.self
        case .personRemove: PersonRemoveCall.self
        case .personAssign: PersonAssignCall.self
        case .personUnassign: PersonUnassignCall.self
        case .nearby: NearbyCall.self
        }
    }

    /// The `unknown-method` error for a name that is none of the cases (or a method asked of the wrong kind).
    public static func unknown(_ name: String) -> ControlError {
        ControlError(.unknownMethod, "unknown method '\(name)'")
    }
}

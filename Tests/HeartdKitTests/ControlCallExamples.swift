import Control
import Foundation
import HealthModel
import HeartQueries
import HeartStore
import Ingest
import Testing

/// One request and one answer of every control method, with every parameter set: built by an exhaustive switch, so a
/// new `ControlMethod` does not compile until it has an example (and so is round-tripped and checked against
/// docs/CONTROL.md by `ControlCallTests`).
struct ControlCallExample {
    /// The params as the wire carries them.
    let params: [String: JSONValue]
    /// Round-trips the params and the result through JSON (and a request line), recording any difference.
    let roundTrip: () throws -> Void

    init<C: ControlCall>(_ call: C.Type, _ params: C.Params, _ result: C.Result) {
        let encoded = JSONBridge.params(params)
        self.params = encoded
        roundTrip = {
            #expect(try JSONBridge.decode(C.Params.self, from: .object(encoded)) == params, "\(C.method) params")
            let line = C.request(id: 7, params).encodedLine()
            let parsed = try ControlRequest.parse(line: line).get()
            #expect(parsed.method == C.method.rawValue && parsed.params == encoded, "\(C.method) request line")
            let json = JSONBridge.value(result)
            #expect(json.objectValue != nil, "\(C.method) result is an object")
            #expect(JSONBridge.value(try C.result(json)) == json, "\(C.method) result")
        }
    }

    static let t0 = Date(timeIntervalSince1970: 1_800_000_000.25)
    static let t1 = t0.addingTimeInterval(3600)
    static let uuid = UUID(uuidString: "6F1C2D3E-4A5B-4C6D-8E7F-901234567890")!
    static let address = "A0:9E:1A:12:34:56"
    static let device = DeviceInfo(name: "Polar H10", manufacturer: "Polar", localIdentifier: address)
    static let range = RangeParams(from: "-1d", to: .unixSeconds(1_800_003_600), device: address, session: uuid.uuidString,
                                   metadata: ["subject": .one("S01"), "condition": .any(["a", "b"])])
    static let beats = HeartbeatSeriesSample(uuid: uuid, start: t0, end: t0.addingTimeInterval(1.5),
                                             beats: [Beat(offset: 0, precededByGap: false), Beat(offset: 0.75, precededByGap: true),
                                                     Beat(offset: 1.5, precededByGap: false)],
                                             device: device, metadata: ["HeartdSession": uuid.uuidString])
    static let statistics = QuantityStatistics(start: t0, end: t1, count: 2, average: 61.5, minimum: 60, maximum: 63)
    static let session = Session(uuid: uuid, label: "stroop-1", start: t0, end: t1, devices: [address], metadata: ["subject": "S01"],
                                 anchor: 12)

    static let person = Person(uuid: uuid, name: "Ana", heartRateMaximum: 188, age: 34, weightKg: 61.5, restingHeartRate: 52,
                               strap: address, anchor: 13)

    static func of(_ method: ControlMethod) -> ControlCallExample {
        switch method {
        case .status:
            ControlCallExample(StatusCall.self, NoParams(), DaemonStatus(
                version: "1.0", protocolVersion: ControlProtocol.version, pid: 42, mode: .simulate, started: t0, uptimeSeconds: 60,
                capture: CaptureReport(source: .simulator),
                devices: [DeviceStatus(address: address, connected: true, device: device, lastNotification: t1, currentBPM: 61,
                                       batteryPercent: 80, beatsInOpenSeries: 3, seriesFinished: 1, counters: IngestCounters())],
                store: StoreReport(path: "/var/lib/heartd/heart.db", sizeBytes: 4096, sink: SinkStatus()), watchers: 1))
        case .devices:
            ControlCallExample(DevicesCall.self, NoParams(), DevicesCall.Result(
                devices: [DevicesCall.Stored(DeviceRecord(info: device, firstSeen: t0, lastSeen: t1))], live: []))
        case .series:
            ControlCallExample(SeriesCall.self, SeriesCall.Params(
                type: "heartbeat", device: address, from: "2026-11-22", to: "now", limit: 10, order: "newest", session: uuid.uuidString,
                metadata: ["subject": .one("S01")], includeOpen: true),
                SeriesCall.Result(samples: [SeriesCall.Listed(SampleSummary(.heartbeatSeries(beats), anchor: 3)),
                                            SeriesCall.Listed(SampleSummary(.heartbeatSeries(beats)), open: true)], open: 1))
        case .show:
            ControlCallExample(ShowCall.self, UUIDParams(uuid: uuid.uuidString), ExportedSample(.heartbeatSeries(beats)))
        case .beats:
            ControlCallExample(BeatsCall.self, UUIDParams(uuid: uuid.uuidString), BeatsCall.Result(beats))
        case .quantities:
            ControlCallExample(QuantitiesCall.self, QuantitiesCall.Params(QuantitiesCall.Options(type: "heart-rate"), range: range),
                               QuantitiesCall.Result(type: "heart-rate", unit: "count/min",
                                                     points: [QuantityPoint(value: 61, start: t0, end: t0.addingTimeInterval(1))]))
        case .stats:
            ControlCallExample(StatsCall.self, StatsCall.Params(StatsCall.Options(type: "heart-rate", interval: 900, anchor: "2026-11-22",
                                                                                  byDevice: true), range: range),
                               StatsCall.Result(type: "heart-rate", unit: "count/min", buckets: [statistics], anchor: t0, interval: 900,
                                                devices: [StatsCall.Device(device: address, name: nil, buckets: [statistics])],
                                                openSeries: 1))
        case .hrv:
            ControlCallExample(HRVCall.self, HRVCall.Params(HRVCall.Options(uuid: uuid.uuidString), range: range),
                               HRVCall.Result(HRVMetrics(count: 2, sdnnMs: 35.5, rmssdMs: nil, pnn50Percent: nil, meanHeartRateBpm: 61,
                                                         differenceCount: 0)))
        case .changes:
            ControlCallExample(ChangesCall.self, ChangesCall.Params(anchor: 5, limit: 100), SampleChanges(
                added: [SampleSummary(.heartbeatSeries(beats), anchor: 6)], deleted: [UUID()], sessions: [session], anchor: 8))
        case .sessionStart:
            ControlCallExample(SessionStartCall.self, SessionStartCall.Params(
                label: "stroop-1", devices: [address], metadata: ["subject": "S01"], start: "now", uuid: uuid.uuidString),
                Session(uuid: uuid, label: "stroop-1", start: t0, devices: [address], anchor: 1))
        case .sessionStop:
            ControlCallExample(SessionStopCall.self, SessionStopCall.Params(uuid: uuid.uuidString, end: .init(t1)), session)
        case .sessions:
            ControlCallExample(SessionsCall.self, SessionsCall.Params(
                from: "-7d", to: "now", label: "stroop-1", active: false, metadata: ["subject": .any(["S01", "S02"])], limit: 5),
                SessionsCall.Result(sessions: [session]))
        case .sessionShow:
            ControlCallExample(SessionShowCall.self, UUIDParams(uuid: uuid.uuidString), session)
        case .report:
            ControlCallExample(ReportCall.self, ReportCall.Params(from: "-2h", to: "now", device: address),
                               ReportCall.Result(html: "<html></html>", devices: 1, beats: 3))
        case .export:
            ControlCallExample(ExportCall.self, ExportCall.Params(ExportCall.Options(format: .healthkitXML), range: range), StreamStarted())
        case .watch:
            ControlCallExample(WatchCall.self, WatchCall.Params(device: address, session: uuid.uuidString), StreamStarted())
        case .subscribe:
            ControlCallExample(SubscribeCall.self, SubscribeCall.Params(since: 42), StreamStarted())
        case .allow:
            ControlCallExample(AllowCall.self, AddressParams(address: address), AllowCall.Result(allowed: address))
        case .forget:
            ControlCallExample(ForgetCall.self, AddressParams(address: address), ForgetCall.Result(forgotten: address))
        case .delete:
            ControlCallExample(DeleteCall.self, UUIDParams(uuid: uuid.uuidString), DeleteCall.Result(deleted: true))
        case .people:
            ControlCallExample(PeopleCall.self, NoParams(), PeopleCall.Result(people: [person]))
        case .personSet:
            ControlCallExample(PersonSetCall.self, PersonSetCall.Params(uuid: nil, name: "Ana", heartRateMaximum: 188, age: 34,
                                                                        weightKg: 61.5, restingHeartRate: 52), person)
        case .personRemove:
            ControlCallExample(PersonRemoveCall.self, PersonParams(person: "Ana"), person)
        case .personAssign:
            ControlCallExample(PersonAssignCall.self, PersonAssignCall.Params(person: uuid.uuidString, address: address), person)
        case .nearby:
            ControlCallExample(NearbyCall.self, NearbyCall.Params(seconds: 3), NearbyCall.Result(
                devices: [NearbyCall.Sensor(address: address, name: "Polar H10 <1>", rssi: -61, adapter: "hci0", person: person)],
                seconds: 3))
        case .personUnassign:
            ControlCallExample(PersonUnassignCall.self, AddressParams(address: address),
                               PersonUnassignCall.Result(address: address, person: person))
        }
    }
}

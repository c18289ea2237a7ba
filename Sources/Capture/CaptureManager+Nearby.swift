import BlueZ
import Foundation

extension CaptureManager {
    /// A scan for `seconds`: every allowed, powered adapter discovers (the heart-rate filter, LE) for as long, then
    /// the heart-rate sensors heard that capture neither wants nor holds are listed (`NearbySensor.list`). Discovery
    /// goes back to what capture needs afterwards (on while a wanted device is missing, else off).
    func nearby(seconds: Double) async throws(NearbyError) -> [NearbySensor] {
        guard bluezOwner != nil else { throw NearbyError(.bluetoothdAbsent, "bluetoothd is not on the system bus") }
        let survey = AdapterSurvey(mirror: mirror, policy: policy)
        guard !survey.powered.isEmpty else { throw NearbyError(.noAdapter, "no allowed Bluetooth adapter is powered") }
        scans += 1
        await reconcile()
        logger.info("nearby scan started", metadata: ["seconds": "\(seconds)"])
        try? await Task.sleep(for: .seconds(seconds))
        let captured = Set(sessions.values.map(\.address))
        let powered = AdapterSurvey(mirror: mirror, policy: policy).powered
        let found = NearbySensor.list(mirror.sightings, adapters: powered) { [policy] s in
            captured.contains(s.address) || policy.wants(address: s.address, uuids: s.uuids)
        }
        scans -= 1
        await reconcile()
        logger.info("nearby scan ended", metadata: ["found": "\(found.count)"])
        return found
    }
}

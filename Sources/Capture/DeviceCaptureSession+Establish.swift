import BlueZ
import HealthModel
import HeartRate
import Logging
import Posix
import SourceEvents

/// Establishing a connection: Connect (with retries), ServicesResolved, the Device Information and battery reads,
/// then the subscription.
extension Runner {
    // MARK: - establish

    mutating func establish() async throws {
        s.stats.update { $0.state = .connecting }
        fdClosed = false
        fellBack = false
        var view = try await view()
        guard view.exists else { throw SessionFault("device object missing") }
        if !view.connected {
            try await connectWithRetries()
        }
        s.stats.update { $0.state = .resolving }
        // After a bluetoothd restart BlueZ may export the device as Connected but never resolve it, and the
        // kernel drops the stale link ~2 s later: once we have seen Connected, its loss ends the wait at once.
        // (Before that, a false Connected may just be the mirror lagging behind Connect's reply.)
        var sawConnected = false
        view = try await wait(seconds: s.policy.resolveTimeout, what: "ServicesResolved") { v in
            guard v.exists else { throw SessionFault("device removed while connecting") }
            if v.connected { sawConnected = true } else if sawConnected { throw SessionFault("link lost while resolving") }
            return v.connected && v.servicesResolved && v.characteristics[GATTUUID.heartRateMeasurement.uuidString] != nil
        }
        guard let hrm = view.characteristics[GATTUUID.heartRateMeasurement.uuidString] else {
            throw SessionFault("no heart rate measurement characteristic")
        }
        view = try await settleDeviceInformation(view)
        let info = await readInfo(view)
        s.stats.update { $0.state = .subscribing }
        s.router.emit(.connected(address: s.address, device: info, at: .now()))
        connectedEmitted = true
        await readBattery(view)
        try await subscribe(hrm.path, flags: hrm.flags)
        s.stats.update { $0.state = .streaming }
    }

    /// After a bluetoothd restart the heart-rate service may be exported before the Device Information service
    /// (seen in the lab: ServicesResolved, HRM there, DIS objects not yet): wait for the latter — until its first
    /// characteristic is there and then 0.2 s pass without another object — for up to 2 s, so the device's
    /// metadata is not read from a half-exported database. Then go on with what is there.
    mutating func settleDeviceInformation(_ view: DeviceView) async throws -> DeviceView {
        guard view.deviceInformationPending else { return view }
        let start = MonotonicClock.now()
        let deadline = start + 2, quiet = 0.2
        var latest = view
        var lastChange = start
        while latest.connected, MonotonicClock.now() < deadline {
            if !latest.deviceInformationPending && MonotonicClock.now() >= lastChange + quiet { break }
            try await next(until: min(deadline, latest.deviceInformationPending ? deadline : lastChange + quiet))
            let next = try await self.view()
            if next.characteristics.count != latest.characteristics.count { lastChange = MonotonicClock.now() }
            latest = next
        }
        if latest.deviceInformationPending {
            s.logger.info("Device Information service offered but not exported; device metadata may be incomplete")
        }
        return latest
    }

    mutating func connectWithRetries() async throws {
        var attempt = 0
        while true {
            do {
                // Ours from the call on: a Connect that times out on our side may still bring the link up in
                // bluetoothd, and a failed attempt must release it (see `run`).
                weConnected = true
                try await device.connect(timeout: .milliseconds(Int(s.policy.connectTimeout * 1000)))
                return
            } catch let e as BlueZError where e.kind == .alreadyConnected {
                weConnected = false  // someone else's link
                return
            } catch let e as BlueZError where (e.kind == .leConnectionAbortByLocal || e.kind == .inProgress) && attempt < 3 {
                attempt += 1
                s.logger.info("Connect failed, retrying", metadata: ["error": .string("\(e)"), "attempt": .stringConvertible(attempt)])
                try await pause(0.25 * Double(attempt))
            }
        }
    }

    mutating func readInfo(_ view: DeviceView) async -> DeviceInfo {
        var strings = DeviceInformation()
        let missed = await readStrings(DeviceInformationField.allCases, from: view, into: &strings)
        // One more pass for what the first one missed: a characteristic not yet in the mirror when `view` was
        // taken, or a read refused at once. Seen in the lab (two sensors, real bluetoothd): five of the six strings
        // stored, the software revision never read. A characteristic the sensor lacks costs a look at the mirror.
        if !missed.isEmpty, let fresh = try? await self.view(), fresh.connected {
            _ = await readStrings(missed, from: fresh, into: &strings)
        }
        var info = DeviceInfo(name: view.name, manufacturer: strings.manufacturerName, model: strings.modelNumber,
                              hardwareVersion: strings.hardwareRevision, firmwareVersion: strings.firmwareRevision,
                              softwareVersion: strings.softwareRevision, localIdentifier: s.address)
        if let serial = strings.serialNumber {
            info.metadata[MetadataKey.serialNumber] = serial
        }
        // Reserved values (7–255) are not HealthKit sensor locations: left out, as before.
        if let bytes = try? await read(.bodySensorLocation, in: view),
           let location = try? BodySensorLocation(decoding: bytes), location.rawValue <= BodySensorLocation.foot.rawValue {
            info.metadata[MetadataKey.bodySensorLocation] = String(location.rawValue)
        }
        if let appearance = view.appearance {
            info.metadata[BlueZMetadataKey.appearance] = AppearanceClass(appearance: appearance).rawValue
            info.metadata[BlueZMetadataKey.appearanceValue] = String(appearance)
        }
        info.metadata[BlueZMetadataKey.adapter] = s.adapterPath.lastPathComponent
        return info
    }

    /// Reads `fields` that `view` has and stores their strings; the fields to try again: those whose
    /// characteristic `view` lacks, or whose read failed other than by a timeout (a sensor that does not answer
    /// costs its 5 s once).
    mutating func readStrings(_ fields: [DeviceInformationField], from view: DeviceView,
                              into strings: inout DeviceInformation) async -> [DeviceInformationField] {
        var missed: [DeviceInformationField] = []
        for field in fields {
            do {
                guard let bytes = try await read(field.uuid, in: view) else { missed.append(field); continue }
                strings.set(field, from: bytes)
            } catch {
                s.logger.info("Device Information read failed", metadata: [
                    "field": .string(field.rawValue), "uuid": .string(field.uuid.description),
                    "error": .string("\(error)")])
                if (error as? BlueZError)?.kind != .timeout { missed.append(field) }
            }
        }
        return missed
    }

    /// The value of `uuid`'s characteristic in `view`; nil when `view` has none that can be read.
    func read(_ uuid: GATTUUID, in view: DeviceView) async throws -> [UInt8]? {
        guard let c = view.characteristics[uuid.uuidString], c.flags.contains("read") else { return nil }
        return try await GattCharacteristic(connection: s.connection, path: c.path).readValue(timeout: .seconds(5))
    }

    mutating func readBattery(_ view: DeviceView) async {
        guard let c = view.characteristics[GATTUUID.batteryLevel.uuidString] else { return }
        let char = GattCharacteristic(connection: s.connection, path: c.path)
        let route = NotifyRouter.Route(address: s.address, kind: .battery, stats: s.stats)
        if c.flags.contains("read"), let bytes = try? await char.readValue(timeout: .seconds(5)) {
            s.router.deliver(route, bytes: bytes)
        }
        if c.flags.contains("notify") {
            s.router.add(path: c.path, route)
            batteryPath = c.path
            do { try await char.startNotify() } catch {
                s.logger.debug("battery StartNotify failed", metadata: ["error": .string("\(error)")])
            }
        }
    }
}

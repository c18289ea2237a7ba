@testable import BlueZ
import DBus
import Testing

/// The generic BlueZ client's pure parts: error mapping, appearance classes, the ObjectManager mirror.
@Suite struct PureTests {
    @Test func bluezErrorKinds() {
        let abort = BlueZError(DBusError(name: "org.bluez.Error.Failed", message: "le-connection-abort-by-local"))
        #expect(abort.kind == .leConnectionAbortByLocal)
        #expect(BlueZError(DBusError(name: "org.bluez.Error.Failed", message: "Software caused connection abort")).kind == .failed)
        #expect(BlueZError(DBusError(name: "org.bluez.Error.InProgress", message: "")).kind == .inProgress)
        // the controller out of connections (BlueZ 5.66: EMLINK / ENOMEM texts; older: strerror) is its own kind
        #expect(BlueZError(DBusError(name: "org.bluez.Error.Failed", message: "le-connection-concurrent-connection-limit")).kind == .connectionLimit)
        #expect(BlueZError(DBusError(name: "org.bluez.Error.Failed", message: "le-connection-memory-alloc")).kind == .connectionLimit)
        #expect(BlueZError(DBusError(name: "org.bluez.Error.Failed", message: "Too many links")).kind == .connectionLimit)
        #expect(BlueZError(DBusError(name: "org.bluez.Error.Failed", message: "le-connection-refused")).kind == .failed)
        #expect(BlueZError(DBusError(name: "org.bluez.Error.NotPermitted", message: "")).kind == .notPermitted)
        #expect(BlueZError(DBusError(name: "org.bluez.Error.AuthenticationFailed", message: "")).kind == .authenticationFailed)
        #expect(BlueZError(DBusError(name: "org.freedesktop.DBus.Error.NoReply", message: "")).kind == .timeout)
        #expect(BlueZError(DBusError(name: "org.freedesktop.DBus.Error.ServiceUnknown", message: "")).kind == .unavailable)
        #expect(BlueZError(DBusError(name: "org.bluez.Error.Whatever", message: "")).kind == .other)
        // a BlueZ without AcquireNotify (older, or not --experimental)
        #expect(BlueZError(DBusError(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "")).kind == .unknownMethod)
    }

    @Test func appearanceClasses() {
        #expect(AppearanceClass(appearance: 0x0340) == .heartRateSensor)
        #expect(AppearanceClass(appearance: 0x0341) == .heartRateBelt)
        #expect(AppearanceClass(appearance: 0x03C4) == .gamepad)
        #expect(AppearanceClass(appearance: 0x03C1) == .humanInterfaceDevice)
        #expect(AppearanceClass(appearance: 0x00C1) == .watch)
        #expect(AppearanceClass(appearance: 0x1234) == .unknown)
    }

    @Test func mirrorAppliesSignals() {
        var m = ObjectMirror()
        let dev = "/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF"
        let added = DBusSignal(sender: ":1.1", path: "/", interface: BlueZ.objectManager, member: "InterfacesAdded", arguments: [
            .objectPath(dev),
            .dict(keySignature: "s", valueSignature: "a{sv}", [DBusDictEntry(
                key: .string(BlueZ.device), value: .stringVariantDict(["Connected": .bool(false), "Address": .string("AA:BB:CC:DD:EE:FF")]))]),
        ])
        #expect(m.apply(added) == dev)
        #expect(m.properties(dev, BlueZ.device)?["Connected"] == .bool(false))
        let changed = DBusSignal(sender: ":1.1", path: dev, interface: BlueZ.properties, member: "PropertiesChanged", arguments: [
            .string(BlueZ.device), .stringVariantDict(["Connected": .bool(true)]), .array(elementSignature: "s", [.string("Address")]),
        ])
        #expect(m.apply(changed) == dev)
        #expect(m.properties(dev, BlueZ.device)?["Connected"] == .bool(true))
        #expect(m.properties(dev, BlueZ.device)?["Address"] == nil)
        let removed = DBusSignal(sender: ":1.1", path: "/", interface: BlueZ.objectManager, member: "InterfacesRemoved", arguments: [
            .objectPath(dev), .array(elementSignature: "s", [.string(BlueZ.device)]),
        ])
        #expect(m.apply(removed) == dev)
        #expect(m.devices.isEmpty)
        // wrong shapes are ignored
        #expect(m.apply(DBusSignal(sender: nil, path: "/", interface: BlueZ.objectManager, member: "InterfacesAdded",
                                   arguments: [.string("x")])) == nil)
    }

    /// bluetoothd 5.66 sometimes sends ServicesResolved=true but never Connected=true (lab, dbus-monitor).
    @Test func servicesResolvedStandsForConnected() {
        var m = ObjectMirror()
        let dev = "/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF"
        m.apply(DBusSignal(sender: ":1.1", path: "/", interface: BlueZ.objectManager, member: "InterfacesAdded", arguments: [
            .objectPath(dev),
            .dict(keySignature: "s", valueSignature: "a{sv}", [DBusDictEntry(
                key: .string(BlueZ.device), value: .stringVariantDict(["Connected": .bool(false), "ServicesResolved": .bool(false)]))]),
        ]))
        let resolved = DBusSignal(sender: ":1.1", path: dev, interface: BlueZ.properties, member: "PropertiesChanged", arguments: [
            .string(BlueZ.device), .stringVariantDict(["ServicesResolved": .bool(true), "Name": .string("x")]),
            .array(elementSignature: "s", []),
        ])
        #expect(m.apply(resolved) == dev)
        #expect(m.properties(dev, BlueZ.device)?["Connected"] == .bool(true))
        #expect(m.connectedInferred == 1)
        // With Connected already true nothing is inferred; ServicesResolved=false implies nothing.
        m.apply(resolved)
        #expect(m.connectedInferred == 1)
        m.apply(DBusSignal(sender: ":1.1", path: dev, interface: BlueZ.properties, member: "PropertiesChanged", arguments: [
            .string(BlueZ.device), .stringVariantDict(["ServicesResolved": .bool(false)]), .array(elementSignature: "s", []),
        ]))
        #expect(m.properties(dev, BlueZ.device)?["Connected"] == .bool(true))
        #expect(m.connectedInferred == 1)
    }

    /// Lab, two sensors: every reload during a stream logged "it had missed changes" for the streaming
    /// characteristic's Value, which the mirror never follows (values go to the tap) — a false alarm each time.
    @Test func aReloadDoesNotReportCharacteristicValuesAsMissedChanges() {
        let chr = "/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF/service0010/char0011"
        func mirror(value: [UInt8], flags: [String]) -> ObjectMirror {
            var m = ObjectMirror()
            m.apply(DBusSignal(sender: ":1.1", path: "/", interface: BlueZ.objectManager, member: "InterfacesAdded", arguments: [
                .objectPath(chr),
                .dict(keySignature: "s", valueSignature: "a{sv}", [DBusDictEntry(
                    key: .string(BlueZ.gattCharacteristic), value: .stringVariantDict([
                        "Value": .bytes(value), "Flags": .array(elementSignature: "s", flags.map { .string($0) })]))]),
            ]))
            return m
        }
        let before = mirror(value: [0x10, 60], flags: ["notify"])
        #expect(mirror(value: [0x10, 61], flags: ["notify"]).differences(from: before).isEmpty)
        // anything else still shows
        #expect(mirror(value: [0x10, 61], flags: ["read", "notify"]).differences(from: before).count == 1)
    }
}

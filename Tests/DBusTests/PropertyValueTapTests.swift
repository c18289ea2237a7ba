import TestBus
import DBus
import Foundation
import Synchronization
import Testing

/// The short cut for `PropertiesChanged(iface, {Value: <ay>}, [])`: taken only for exactly that shape and a path
/// the handler follows; everything else reaches the subscribers unchanged and in order.
@Suite struct PropertyValueTapTests {
    struct Tapped: Equatable { let path: String; let sender: String?; let bytes: [UInt8] }

    static func changed(_ iface: String, _ entries: [(String, DBusValue)], invalidated: [String] = []) -> [DBusValue] {
        [.string(iface),
         .dict(keySignature: "s", valueSignature: "v", entries.map { DBusDictEntry(key: .string($0.0), value: .variant($0.1)) }),
         .array(elementSignature: "s", invalidated.map(DBusValue.string))]
    }

    @Test func onlyTheExactShapeOnAFollowedPathIsTapped() async throws {
        let bus = try PrivateBus()
        let receiver = try await DBusConnection.connect(address: bus.address, logger: testLogger)
        let sender = try await DBusConnection.connect(address: bus.address, logger: testLogger)
        defer { receiver.close(); sender.close() }
        let tapped = Mutex<[Tapped]>([])
        receiver.setPropertyValueTap(PropertyValueTap(interface: "org.test.Char", property: "Value") { path, from, bytes in
            guard path == "/t/routed" else { return false }
            tapped.withLock { $0.append(Tapped(path: path, sender: from, bytes: bytes)) }
            return true
        })
        let rules = [MatchRule(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"),
                     MatchRule(interface: "org.test", member: "Done")]
        let stream = receiver.signals(matching: rules)
        for r in rules { try await receiver.addMatch(r) }

        let props = "org.freedesktop.DBus.Properties"
        let sent: [(String, [DBusValue])] = [
            ("/t/routed", Self.changed("org.test.Char", [("Value", .bytes([1, 2, 3]))])),                  // tapped
            ("/t/other", Self.changed("org.test.Char", [("Value", .bytes([4]))])),                         // not followed
            ("/t/routed", Self.changed("org.test.Char", [("Value", .bytes([5])), ("Notifying", .bool(true))])),
            ("/t/routed", Self.changed("org.test.Char", [("Value", .string("six"))])),                     // wrong type
            ("/t/routed", Self.changed("org.test.Char", [("Value", .bytes([]))])),                         // tapped, empty
            ("/t/routed", Self.changed("org.other.Iface", [("Value", .bytes([7]))])),
            ("/t/routed", Self.changed("org.test.Char", [("Value", .bytes([8]))], invalidated: ["Flags"])),
            ("/t/routed", Self.changed("org.test.Char", [("Notifying", .bool(false))])),
        ]
        for (path, args) in sent {
            try sender.emitSignal(path: path, interface: props, member: "PropertiesChanged", arguments: args)
        }
        try sender.emitSignal(path: "/t", interface: "org.test", member: "Done")

        var passed: [(String, [DBusValue])] = []
        for await s in stream {
            if s.member == "Done" { break }
            passed.append((s.path, s.arguments))
        }
        #expect(tapped.withLock { $0 } == [Tapped(path: "/t/routed", sender: sender.uniqueName, bytes: [1, 2, 3]),
                                         Tapped(path: "/t/routed", sender: sender.uniqueName, bytes: [])])
        let expected = [1, 2, 3, 5, 6, 7].map { sent[$0] }
        #expect(passed.map(\.0) == expected.map(\.0))
        #expect(passed.map(\.1) == expected.map(\.1))
    }
}

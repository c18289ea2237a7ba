@testable import Capture
import SourceEvents
import Testing

/// The notify path's route table: the last route looked up is kept for the next value of the same stream, and
/// must never outlive a change of the table or of org.bluez's owner.
@Suite struct NotifyRouterTests {
    static func route(_ address: String) -> NotifyRouter.Route {
        NotifyRouter.Route(address: address, kind: .heartRate, stats: DeviceStats(address: address, adapter: "hci0"))
    }

    @Test func aRouteLookedUpAgainFollowsRemovalReplacementAndOwner() {
        let router = NotifyRouter { _ in }
        let path = "/org/bluez/hci0/dev_A0_9E_1A_00_00_01/service0010/char0011"
        router.setOwner(":1.7")
        router.add(path: path, Self.route("A0:9E:1A:00:00:01"))
        #expect(router.route(for: path, sender: ":1.7")?.address == "A0:9E:1A:00:00:01")
        #expect(router.route(for: path, sender: ":1.7")?.address == "A0:9E:1A:00:00:01", "the same path again")
        #expect(router.route(for: path, sender: ":1.8") == nil, "anyone but org.bluez's owner is ignored")

        router.add(path: path, Self.route("A0:9E:1A:00:00:02"))
        #expect(router.route(for: path, sender: ":1.7")?.address == "A0:9E:1A:00:00:02", "replaced: the new route")

        router.remove(path: path)
        #expect(router.route(for: path, sender: ":1.7") == nil, "removed: no route, though it was the last one")

        router.add(path: path, Self.route("A0:9E:1A:00:00:03"))
        #expect(router.route(for: path, sender: ":1.7") != nil)
        router.setOwner(":1.9")
        #expect(router.route(for: path, sender: ":1.7") == nil, "bluetoothd restarted: the old owner's values are ignored")
        #expect(router.route(for: String(path), sender: ":1.9")?.address == "A0:9E:1A:00:00:03")
    }
}

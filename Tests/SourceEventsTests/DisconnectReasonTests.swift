import Foundation
import SourceEvents
import Testing

@Suite struct DisconnectReasonTests {
    @Test func codesRoundTrip() throws {
        let all: [DisconnectReason] = [.linkLost, .silentStop, .deviceRemoved, .characteristicRemoved, .notifySocketClosed,
                                       .notAllowed, .adapterRemoved, .adapterPoweredOff, .bluetoothdExited,
                                       .busConnectionLost, .captureStopped, .sourceEnded]
        #expect(Set(all.map(\.description)).count == all.count)
        for reason in all {
            #expect(DisconnectReason(code: reason.description) == reason)
            let data = try JSONEncoder().encode(reason)
            #expect(try JSONDecoder().decode(DisconnectReason.self, from: data) == reason)
        }
        #expect(DisconnectReason.linkLost.description == "link-lost")
    }

    @Test func unknownTextIsKeptAsRecorded() {
        #expect(DisconnectReason(code: "link loss") == .recorded("link loss"))
        #expect(DisconnectReason(code: "link loss").description == "link loss")
        #expect(DisconnectReason.attemptFailed("org.bluez.Error.Failed").description == "org.bluez.Error.Failed")
    }
}

@Suite struct DeviceAddressTests {
    @Test func validAndInvalid() {
        #expect(DeviceAddress.isValid("A0:9E:1A:12:34:56"))
        #expect(DeviceAddress.isValid("a0:9e:1a:12:34:56"))
        #expect(!DeviceAddress.isValid("A0:9E:1A:12:34"))
        #expect(!DeviceAddress.isValid("A0:9E:1A:12:34:5G"))
        #expect(!DeviceAddress.isValid("A0-9E-1A-12-34-56"))
        #expect(DeviceAddress.normalized("a0:9e:1a:12:34:56") == "A0:9E:1A:12:34:56")
        #expect(DeviceAddress.normalized("nope") == nil)
    }
}

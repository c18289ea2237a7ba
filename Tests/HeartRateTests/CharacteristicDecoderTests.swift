import Foundation
import Testing
import HeartRate

@Suite struct BodySensorLocationTests {
    @Test func knownValues() throws {
        let expected: [(UInt8, BodySensorLocation, String)] = [
            (0, .other, "Other"), (1, .chest, "Chest"), (2, .wrist, "Wrist"), (3, .finger, "Finger"),
            (4, .hand, "Hand"), (5, .earLobe, "Ear lobe"), (6, .foot, "Foot"),
        ]
        for (raw, location, name) in expected {
            let decoded = try BodySensorLocation(decoding: [raw])
            #expect(decoded == location)
            #expect(decoded.rawValue == raw)
            #expect(decoded.displayName == name)
        }
    }

    @Test func reservedValuesAreKept() throws {
        for raw in UInt8(7)...UInt8(255) {
            let decoded = try BodySensorLocation(decoding: [raw])
            #expect(decoded == .reserved(raw))
            #expect(decoded.rawValue == raw)
        }
        #expect(BodySensorLocation.reserved(7).displayName == "Reserved (0x07)")
        #expect(BodySensorLocation(rawValue: 0xAB).description == "Reserved (0xab)")
    }

    @Test func emptyPayloadThrows() {
        #expect(throws: DecodeError(.empty, "body sensor location is empty")) {
            try BodySensorLocation(decoding: [UInt8]())
        }
    }

    @Test func codableUsesRawValue() throws {
        let data = try JSONEncoder().encode([BodySensorLocation.chest, .reserved(9)])
        #expect(String(decoding: data, as: UTF8.self) == "[1,9]")
        #expect(try JSONDecoder().decode([BodySensorLocation].self, from: data) == [.chest, .reserved(9)])
    }
}

@Suite struct BatteryLevelTests {
    @Test func validRange() throws {
        for raw in UInt8(0)...UInt8(100) {
            #expect(try BatteryLevel(decoding: [raw]).percent == raw)
        }
        #expect(try BatteryLevel(decoding: [57, 0xFF]).percent == 57)
        #expect(BatteryLevel(percent: 42)?.description == "42 %")
    }

    @Test func outOfRangeAndEmptyThrow() {
        for raw in UInt8(101)...UInt8(255) {
            #expect {
                try BatteryLevel(decoding: [raw])
            } throws: { error in
                (error as? DecodeError)?.code == .invalidValue
            }
        }
        #expect(BatteryLevel(percent: 101) == nil)
        #expect {
            try BatteryLevel(decoding: [UInt8]())
        } throws: { error in
            (error as? DecodeError)?.code == .empty
        }
    }
}

@Suite struct DeviceInformationTests {
    @Test func plainUTF8() {
        #expect(DeviceInformationField.decodeString(Array("Polar Electro Oy".utf8)) == "Polar Electro Oy")
        #expect(DeviceInformationField.decodeString(Array("Größe ♥".utf8)) == "Größe ♥")
    }

    @Test func trailingNULsAndWhitespaceAreTrimmed() {
        #expect(DeviceInformationField.decodeString(Array("H10\0\0\0\0".utf8)) == "H10")
        #expect(DeviceInformationField.decodeString(Array("  1.2.3 \r\n\0".utf8)) == "1.2.3")
        #expect(DeviceInformationField.decodeString(Array("A1B2\0garbage".utf8)) == "A1B2")
        #expect(DeviceInformationField.decodeString([UInt8]()) == "")
        #expect(DeviceInformationField.decodeString([0, 0, 0]) == "")
        #expect(DeviceInformationField.decodeString(Array("   ".utf8)) == "")
        #expect(DeviceInformationField.decodeString(Array("\u{3000}Polar\u{00A0}\u{2028}".utf8)) == "Polar")
        #expect(DeviceInformationField.decodeString(Array("\u{00A0}".utf8)) == "")
    }

    @Test func invalidUTF8IsLossy() {
        let s = DeviceInformationField.decodeString([0x41, 0xFF, 0xC3, 0x42])
        #expect(s == "A\u{FFFD}\u{FFFD}B")
    }

    @Test func fieldsMapToUUIDs() {
        let map: [(DeviceInformationField, UInt16)] = [
            (.manufacturerName, 0x2A29), (.modelNumber, 0x2A24), (.serialNumber, 0x2A25),
            (.hardwareRevision, 0x2A27), (.firmwareRevision, 0x2A26), (.softwareRevision, 0x2A28),
        ]
        for (field, value) in map {
            #expect(field.uuid == GATTUUID(value))
            #expect(DeviceInformationField(uuid: GATTUUID(value)) == field)
        }
        #expect(DeviceInformationField(uuid: .heartRateMeasurement) == nil)
    }

    @Test func collectsFields() {
        var info = DeviceInformation()
        info.set(.manufacturerName, from: Array("Polar\0".utf8))
        info.set(.serialNumber, from: Array("C0FFEE".utf8))
        info.set(.modelNumber, from: [0, 0])
        #expect(info.manufacturerName == "Polar")
        #expect(info[.serialNumber] == "C0FFEE")
        #expect(info.modelNumber == nil)
        #expect(info.firmwareRevision == nil)
    }
}

@Suite struct GATTUUIDTests {
    @Test func blueZStringForm() {
        #expect(GATTUUID.heartRateService.uuidString == "0000180d-0000-1000-8000-00805f9b34fb")
        #expect(GATTUUID.heartRateMeasurement.uuidString == "00002a37-0000-1000-8000-00805f9b34fb")
        #expect(GATTUUID(0x0001).shortString == "0001")
        #expect(GATTUUID.batteryLevel.description == "0x2A19")
    }

    @Test func parsesAcceptedForms() {
        for s in ["2a37", "2A37", "0x2A37", "00002a37", "00002A37-0000-1000-8000-00805F9B34FB",
                  " 00002a37-0000-1000-8000-00805f9b34fb\n"] {
            #expect(GATTUUID(string: s) == .heartRateMeasurement, "\(s)")
        }
    }

    @Test func rejectsOtherForms() {
        for s in ["", "2a3", "2a377", "zz37", "12342a37", "00002a37-0000-1000-8000-00805f9b34fc",
                  "6e400001-b5a3-f393-e0a9-e50e24dcca9e", "0x", "+a37", "-a37"] {
            #expect(GATTUUID(string: s) == nil, "\(s)")
        }
    }

    @Test func everyValueRoundTrips() {
        for v in UInt16.min...UInt16.max {
            let uuid = GATTUUID(v)
            #expect(GATTUUID(string: uuid.uuidString) == uuid)
        }
    }
}

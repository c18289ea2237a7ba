import DBus
import Foundation
import Testing

@Suite struct ValueTests {
    @Test func signatures() {
        #expect(DBusValue.stringVariantDict(["a": .bool(true)]).signature == "a{sv}")
        #expect(DBusValue.structure([.int32(1), .bytes([1])]).signature == "(iay)")
        #expect(DBusValue.array(elementSignature: "(ii)", []).signature == "a(ii)")
        #expect(DBusValue.variant(.uint16(3)).signature == "v")
    }

    @Test func accessorsUnwrapVariants() {
        let v = DBusValue.variant(.variant(.uint16(0x0341)))
        #expect(v.int == 0x0341)
        #expect(DBusValue.variant(.bytes([1, 2])).bytes == [1, 2])
        #expect(DBusValue.variant(.string("x")).bytes == nil)
        #expect(DBusValue.array(elementSignature: "s", [.string("a"), .string("b")]).stringArray == ["a", "b"])
        let d = DBusValue.stringVariantDict(["Connected": .bool(true)])
        #expect(d.stringKeyedDictionary?["Connected"]?.bool == true)
    }

    @Test func echoEveryBasicType() async throws {
        let f = try await Fixture.make(withEcho: true)
        defer { f.connection.close() }
        let args: [DBusValue] = [
            .byte(0xFE), .bool(true), .bool(false), .int16(-12345), .uint16(65000), .int32(-7), .uint32(4_000_000_000),
            .int64(Int64.min), .uint64(UInt64.max), .double(-1.5), .string("héllo ♥"), .string(""),
            .objectPath("/org/bluez/hci0"), .signature("a{sv}"),
        ]
        #expect(try await f.echo(args) == args)
    }

    @Test func echoContainers() async throws {
        let f = try await Fixture.make(withEcho: true)
        defer { f.connection.close() }
        let bytes = (0..<600).map { UInt8($0 & 0xFF) }
        let args: [DBusValue] = [
            .bytes(bytes),
            .bytes([]),
            .array(elementSignature: "s", [.string("a"), .string("b")]),
            .array(elementSignature: "(is)", []),
            .stringVariantDict(["Value": .bytes([0x16, 72]), "Notifying": .bool(true), "MTU": .uint16(517)]),
            .dict(keySignature: "o", valueSignature: "a{sa{sv}}", [
                DBusDictEntry(key: .objectPath("/org/bluez/hci0"), value: .dict(
                    keySignature: "s", valueSignature: "a{sv}",
                    [DBusDictEntry(key: .string("org.bluez.Adapter1"),
                                   value: .stringVariantDict(["Powered": .bool(true)]))])),
            ]),
            .structure([.int32(1), .string("x"), .variant(.array(elementSignature: "q", [.uint16(1), .uint16(2)]))]),
            .variant(.variant(.int64(5))),
        ]
        #expect(try await f.echo(args) == args)
    }

    @Test func unixFDIsPassedAndOwned() async throws {
        let f = try await Fixture.make(withEcho: true)
        defer { f.connection.close() }
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let writeEnd = UnixFileDescriptor(owning: fds[1])
        // Echo returns a new descriptor (a duplicate made by libdbus) for the same pipe.
        let reply = try await f.echo([.unixFD(writeEnd)])
        let echoed = try #require(reply.first?.unixFD)
        #expect(echoed.rawValue != writeEnd.rawValue)
        _ = try await f.connection.call(destination: "org.heartd.Test", path: "/org/heartd/Test",
                                        interface: "org.heartd.Test", member: "WriteFD",
                                        arguments: [.unixFD(echoed), .bytes(Array("hi".utf8))])
        var buf = [UInt8](repeating: 0, count: 8)
        let n = read(fds[0], &buf, 8)
        #expect(n == 2)
        #expect(Array(buf.prefix(2)) == Array("hi".utf8))
        // take() hands ownership over exactly once.
        let taken = try #require(echoed.take())
        #expect(echoed.take() == nil)
        #expect(close(taken) == 0)
    }
}

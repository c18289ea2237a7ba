import Foundation
import Testing
@testable import Control

@Suite struct ControlProtocolTests {
    @Test func jsonValueRoundTrips() throws {
        let value: JSONValue = ["a": 1, "b": [true, nil, 2.5, "x"], "c": ["nested": "y"]]
        let line = JSONLine.encode(value)
        #expect(line.text == #"{"a":1,"b":[true,null,2.5,"x"],"c":{"nested":"y"}}"#)
        #expect(try JSONLine.decode(JSONValue.self, from: line) == value)
        #expect(value["b"]?.arrayValue?.count == 4)
        #expect(JSONValue.double(3).intValue == 3)
        #expect(JSONValue.double(3.5).intValue == nil)
        #expect(JSONValue.int(3).doubleValue == 3)
    }

    @Test func parsesRequests() throws {
        let ok = ControlRequest.parse(line: Array(#"{"id":7,"method":"status"}"#.utf8))
        #expect(try ok.get() == ControlRequest(id: 7, method: "status"))
        let withParams = ControlRequest.parse(line: Array(#"{"id":8,"method":"x","params":{"k":"v"}}"#.utf8))
        #expect(try withParams.get().params == ["k": "v"])
    }

    @Test func rejectsMalformedRequests() {
        func code(_ text: String) -> (Int?, ControlErrorCode)? {
            guard case .failure(let rejection) = ControlRequest.parse(line: Array(text.utf8)) else { return nil }
            return (rejection.id, rejection.error.code)
        }
        #expect(code("not json")! == (nil, .parseError))
        #expect(code("[1,2]")! == (nil, .invalidRequest))
        #expect(code(#"{"method":"x"}"#)! == (nil, .invalidRequest))
        #expect(code(#"{"id":"one","method":"x"}"#)! == (nil, .invalidRequest))
        #expect(code(#"{"id":3}"#)! == (3, .invalidRequest))
        #expect(code(#"{"id":4,"method":"x","params":[1]}"#)! == (4, .invalidParams))
    }

    @Test func responsesEncodeResultOrError() throws {
        let ok = ControlResponse(id: 1, result: ["n": 2])
        #expect(ok.encodedLine().text == #"{"id":1,"result":{"n":2}}"#)
        let failed = ControlResponse(id: nil, error: ControlError(.parseError, "bad"))
        #expect(failed.encodedLine().text == #"{"error":{"code":"parse-error","message":"bad"},"id":null}"#)
        #expect(try JSONLine.decode(ControlResponse.self, from: failed.encodedLine()) == failed)
        #expect(try JSONLine.decode(ControlResponse.self, from: ok.encodedLine()) == ok)
    }

    @Test func eventsAreFlatObjects() throws {
        let event = ControlEvent("beat", fields: ["device": "AA", "event": "ignored", "rr": 812])
        #expect(event.encodedLine().text == #"{"device":"AA","event":"beat","rr":812}"#)
        let decoded = ControlEvent(json: try JSONLine.decode(JSONValue.self, from: event.encodedLine()))
        #expect(decoded == ControlEvent("beat", fields: ["device": "AA", "rr": 812]))
    }

    @Test func lineBufferSplitsAndBounds() {
        var buffer = LineBuffer(maxLineBytes: 8)
        buffer.append(Array("ab\r\ncd\nef".utf8))
        #expect(buffer.next() == .line(Array("ab".utf8)))
        #expect(buffer.next() == .line(Array("cd".utf8)))
        #expect(buffer.next() == nil)
        buffer.append(Array("ghijkl".utf8))  // "efghijkl" = 8 bytes: still allowed
        #expect(buffer.next() == nil)
        buffer.append(Array("m".utf8))
        #expect(buffer.next() == .overflow)
        #expect(buffer.next() == .overflow)
    }

    @Test func accessPolicyChecksGroups() throws {
        let policy = AccessPolicy(readGroup: GroupIdentity(name: "heartd", gid: 900), adminGroup: GroupIdentity(name: "wheel", gid: 10))
        let root = PeerCredentials(pid: 1, uid: 0, gid: 0)
        let member = PeerCredentials(pid: 2, uid: 1000, gid: 1000, groups: [1000, 900])
        let admin = PeerCredentials(pid: 3, uid: 1001, gid: 10)
        let stranger = PeerCredentials(pid: 4, uid: 1002, gid: 1002, groups: [1002])
        #expect(policy.check(root, access: .admin, method: "m") == nil)
        #expect(policy.check(member, access: .read, method: "m") == nil)
        #expect(policy.check(admin, access: .read, method: "m") == nil)
        #expect(policy.check(admin, access: .admin, method: "m") == nil)
        let denied = try #require(policy.check(stranger, access: .read, method: "status"))
        #expect(denied.code == .permissionDenied && denied.message.contains("'heartd'"))
        let notAdmin = try #require(policy.check(member, access: .admin, method: "forget"))
        #expect(notAdmin.code == .permissionDenied && notAdmin.message.contains("'wheel'"))
        let rootOnly = AccessPolicy(readGroup: nil, adminGroup: nil)
        #expect(rootOnly.check(stranger, access: .read, method: "m") == nil)
        #expect(rootOnly.check(stranger, access: .admin, method: "m")?.message.contains("requires root") == true)
    }

    @Test func sessionAccessNeedsTheSessionGroupOrElseWhatReadingNeeds() throws {
        let read = GroupIdentity(name: "heartd", gid: 900), admin = GroupIdentity(name: "wheel", gid: 10)
        let lab = GroupIdentity(name: "lab", gid: 950)
        let reader = PeerCredentials(pid: 2, uid: 1000, gid: 1000, groups: [1000, 900])
        let script = PeerCredentials(pid: 3, uid: 1003, gid: 1003, groups: [1003, 950])
        let adminPeer = PeerCredentials(pid: 4, uid: 1001, gid: 10)
        // No session group: whoever may read may mark sessions, and nobody else.
        let open = AccessPolicy(readGroup: read, adminGroup: admin)
        #expect(open.check(reader, access: .session, method: "session.start") == nil)
        #expect(open.check(script, access: .session, method: "session.start")?.code == .permissionDenied)
        // A session group narrows it to its members (and admins).
        let narrow = AccessPolicy(readGroup: read, adminGroup: admin, sessionGroup: lab)
        #expect(narrow.check(script, access: .session, method: "session.start") == nil)
        #expect(narrow.check(adminPeer, access: .session, method: "session.stop") == nil)
        let denied = try #require(narrow.check(reader, access: .session, method: "session.stop"))
        #expect(denied.code == .permissionDenied && denied.message.contains("'lab'"))
    }
}

import Control
import Foundation
import HeartQueries
import HeartStore
import Testing

/// The typed control protocol: every `ControlMethod` names its own call type, every call's params and result survive
/// JSON unchanged, and the params a client builds are what the store queries accept. (The daemon's access and
/// streaming tables are the enum's: `DaemonPermissionTests` and `DaemonStreamingMethodTests` use them over the socket.)
@Suite struct ControlCallTests {
    @Test(arguments: ControlMethod.allCases)
    func paramsAndResultRoundTrip(_ method: ControlMethod) throws {
        #expect(method.call.method == method)
        try ControlCallExample.of(method).roundTrip()
    }

    /// What a typed client sends, the store's queries read without `invalid-params` (not found is fine: the store is
    /// empty but for the session the example starts).
    @Test func theStoreReadsWhatTheTypesSend() throws {
        let queries = StoreQueries(database: try HeartDatabase.inMemory())
        for method in ControlMethod.allCases where StoreQueries.answers(method) {
            let params = ControlCallExample.of(method).params
            do {
                if method.isStreaming {
                    _ = try queries.exportQuery(params)
                } else {
                    _ = try queries.handle(method, params)
                }
            } catch {
                #expect(error.code != .invalidParams && error.code != .unknownMethod, "\(method.rawValue): \(error)")
            }
        }
        let session = try queries.answer(SessionShowCall.self, UUIDParams(uuid: ControlCallExample.uuid.uuidString))
        #expect(session.label == "stroop-1" && session.end != nil, "session.start then session.stop through the types")
    }

    @Test func anUnknownMethodIsStillUnknown() throws {
        let queries = StoreQueries(database: try HeartDatabase.inMemory())
        #expect(ControlMethod(rawValue: "session.begin") == nil)
        #expect(throws: ControlMethod.unknown("status")) { try queries.handle(.status, [:]) }
    }
}

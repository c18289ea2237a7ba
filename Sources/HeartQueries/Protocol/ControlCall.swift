import Control
import Foundation

/// One control method as a typed request and response: `Params` is what the client sends as `params`, `Result`
/// what the daemon answers as `result` (for a streaming method, `StreamStarted`; its events follow as
/// `ControlEvent`s). Both ends use the same types, so the compiler checks the contract; `JSONBridge` maps them to
/// the wire's JSON with one date format.
public protocol ControlCall: Sendable {
    associatedtype Params: Codable & Sendable & Hashable
    associatedtype Result: Codable & Sendable
    static var method: ControlMethod { get }
}

extension ControlCall {
    /// The request `id` asks for with `params`.
    public static func request(id: Int, _ params: Params) -> ControlRequest {
        ControlRequest(id: id, method: method.rawValue, params: JSONBridge.params(params))
    }

    /// The typed result of a response's JSON; a shape that is not `Result` throws `DecodingError`.
    public static func result(_ value: JSONValue) throws -> Result {
        try JSONBridge.decode(Result.self, from: value)
    }
}

/// The params of a method that takes none: `{}`.
public struct NoParams: Codable, Sendable, Hashable {
    public init() {}
}

/// The params of a method about one sample or session: `uuid` (the daemon says `invalid-params` for text that is
/// not a UUID, so a client passes what its user typed).
public struct UUIDParams: Codable, Sendable, Hashable {
    public var uuid: String

    public init(uuid: String) { self.uuid = uuid }
}

/// The params of `allow` and `forget`: a Bluetooth `address`.
public struct AddressParams: Codable, Sendable, Hashable {
    public var address: String

    public init(address: String) { self.address = address }
}

/// The response of a streaming method once its stream has started; its events follow.
public struct StreamStarted: Codable, Sendable, Hashable {
    public var `protocol`: String
    public var streaming: Bool

    public init(protocol: String = ControlProtocol.version, streaming: Bool = true) {
        self.protocol = `protocol`
        self.streaming = streaming
    }
}

extension ControlClient {
    /// Sends `params` as `C`'s request and returns its typed result: an error response is thrown as
    /// `ControlError`, a socket failure as `ControlSocketError`, a result of another shape as `DecodingError`.
    public func call<C: ControlCall>(_ call: C.Type, _ params: C.Params) async throws -> C.Result {
        try C.result(try await json(call, params))
    }

    /// `call` for a method without params.
    public func call<C: ControlCall>(_ call: C.Type) async throws -> C.Result where C.Params == NoParams {
        try await self.call(call, NoParams())
    }

    /// `C`'s result as the JSON the daemon sent (for printing it as it came).
    public func json<C: ControlCall>(_ call: C.Type, _ params: C.Params) async throws -> JSONValue {
        try await self.call(C.method.rawValue, params: JSONBridge.params(params))
    }

    /// Starts the streaming method `C` and returns its events (`watch(_:params:)`).
    public func stream<C: ControlCall>(_ call: C.Type, _ params: C.Params) async throws -> AsyncThrowingStream<ControlEvent, any Error> {
        try await watch(C.method.rawValue, params: JSONBridge.params(params))
    }

    /// `stream`, each event as its line (`watchLines(_:params:)`), for a client that decodes it itself.
    public func streamLines<C: ControlCall>(_ call: C.Type, _ params: C.Params) async throws -> AsyncThrowingStream<[UInt8], any Error> {
        try await watchLines(C.method.rawValue, params: JSONBridge.params(params))
    }

    /// `streamLines`, each line handed to `handle` on the client's reading thread as it arrives
    /// (`watchLines(_:params:handle:)`); the stream yields nothing and ends with the event stream.
    public func streamLines<C: ControlCall>(_ call: C.Type, _ params: C.Params,
                                            handle: @escaping @Sendable ([UInt8]) -> Void) async throws -> AsyncThrowingStream<Never, any Error> {
        try await watchLines(C.method.rawValue, params: JSONBridge.params(params), handle: handle)
    }
}

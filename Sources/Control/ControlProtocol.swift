/// The heartd control protocol: newline-delimited JSON over a Unix stream socket.
///
/// - Request:  `{"id": 1, "method": "status", "params": {...}}` (params optional, an object)
/// - Response: `{"id": 1, "result": <any JSON>}` or `{"id": 1, "error": {"code": "...", "message": "..."}}`
///   (`id` is `null` when the request could not be parsed far enough to read it).
/// - Event (after a successful streaming request such as `watch`): `{"event": "beat", ...fields}`.
///   Responses to later requests on the same connection may interleave with events; clients tell
///   them apart by the `event` key.
/// - `hello` is answered by the server itself: `{"protocol": "heartd-control/1"}`.
public enum ControlProtocol {
    /// Protocol name and major version. Bumped on incompatible changes.
    public static let version = "heartd-control/1"
    /// The built-in method answered by the server itself.
    public static let helloMethod = "hello"
}

/// A request from a client.
public struct ControlRequest: Sendable, Hashable, Codable {
    /// Chosen by the client; echoed in the response.
    public var id: Int
    public var method: String
    /// Named parameters (always an object on the wire).
    public var params: [String: JSONValue]

    public init(id: Int, method: String, params: [String: JSONValue] = [:]) {
        self.id = id
        self.method = method
        self.params = params
    }

    private enum CodingKeys: String, CodingKey { case id, method, params }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        method = try container.decode(String.self, forKey: .method)
        params = try container.decodeIfPresent([String: JSONValue].self, forKey: .params) ?? [:]
    }

    /// Parses one request line. Not JSON → `parse-error` (id nil); JSON but not a request object
    /// → `invalid-request` (with the id when one could be read).
    public static func parse(line: some Collection<UInt8>) -> Result<ControlRequest, ControlRequestRejection> {
        guard let value = try? JSONLine.decode(JSONValue.self, from: line) else {
            return .failure(ControlRequestRejection(id: nil, error: ControlError(.parseError, "request is not valid JSON")))
        }
        guard case .object(let members) = value else {
            return .failure(ControlRequestRejection(id: nil, error: ControlError(.invalidRequest, "request must be a JSON object")))
        }
        guard let id = members["id"]?.intValue else {
            return .failure(ControlRequestRejection(id: nil, error: ControlError(.invalidRequest, "\"id\" must be an integer")))
        }
        guard let method = members["method"]?.stringValue, !method.isEmpty else {
            return .failure(ControlRequestRejection(id: id, error: ControlError(.invalidRequest, "\"method\" must be a non-empty string")))
        }
        let params: [String: JSONValue]
        switch members["params"] {
        case nil, .null?: params = [:]
        case .object(let object)?: params = object
        default:
            return .failure(ControlRequestRejection(id: id, error: ControlError(.invalidParams, "\"params\" must be an object")))
        }
        return .success(ControlRequest(id: id, method: method, params: params))
    }

    /// The request as one JSON line (without the newline).
    public func encodedLine() -> [UInt8] { JSONLine.encode(self) }
}

/// Why a request line was rejected before reaching a handler, and the response to send.
public struct ControlRequestRejection: Error, Sendable, Hashable {
    /// The request id, when it could be read.
    public var id: Int?
    public var error: ControlError
    public var response: ControlResponse { ControlResponse(id: id, error: error) }
}

/// A response: either a result or an error.
public struct ControlResponse: Sendable, Hashable, Codable {
    public enum Outcome: Sendable, Hashable {
        case result(JSONValue)
        case error(ControlError)
    }

    /// The request's id, or `nil` when the request could not be read.
    public var id: Int?
    public var outcome: Outcome

    public init(id: Int?, result: JSONValue) { self.id = id; outcome = .result(result) }
    public init(id: Int?, error: ControlError) { self.id = id; outcome = .error(error) }
    public init(id: Int?, outcome: Outcome) { self.id = id; self.outcome = outcome }

    public var result: JSONValue? { if case .result(let r) = outcome { return r }; return nil }
    public var error: ControlError? { if case .error(let e) = outcome { return e }; return nil }

    private enum CodingKeys: String, CodingKey { case id, result, error }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(Int.self, forKey: .id)
        if let error = try container.decodeIfPresent(ControlError.self, forKey: .error) {
            outcome = .error(error)
        } else {
            outcome = .result(try container.decodeIfPresent(JSONValue.self, forKey: .result) ?? .null)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let id { try container.encode(id, forKey: .id) } else { try container.encodeNil(forKey: .id) }
        switch outcome {
        case .result(let value): try container.encode(value, forKey: .result)
        case .error(let error): try container.encode(error, forKey: .error)
        }
    }

    /// The response as one JSON line (without the newline).
    public func encodedLine() -> [UInt8] { JSONLine.encode(self) }
}

/// One streamed event: `{"event": name, ...fields}`.
public struct ControlEvent: Sendable, Hashable {
    public var name: String {
        didSet { line = nil }
    }
    /// Extra members; a member named "event" is ignored (the name wins).
    public var fields: [String: JSONValue] {
        didSet { line = nil }
    }
    /// The line, encoded once by `encodedOnce()`: an event fanned out to many watchers is not re-encoded for each.
    private var line: [UInt8]?
    /// The last event of its stream (an export's `end` or `error`). The connection takes the stream as ended with
    /// this event, in the same step that sends it, so a request the client sends on seeing it is never refused
    /// as "already streaming". Not part of the line.
    public var isFinal = false

    public init(_ name: String, fields: [String: JSONValue] = [:], isFinal: Bool = false) {
        self.name = name
        self.fields = fields
        self.isFinal = isFinal
    }

    public static func == (a: ControlEvent, b: ControlEvent) -> Bool { a.name == b.name && a.fields == b.fields }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(fields)
    }

    /// The same event carrying its encoded line, for fan-out.
    public func encodedOnce() -> ControlEvent {
        var e = self
        e.line = encodedLine()
        return e
    }

    /// Reads an event from a decoded line; `nil` when it has no string "event" member.
    public init?(json: JSONValue) {
        guard var members = json.objectValue, let name = members["event"]?.stringValue else { return nil }
        members["event"] = nil
        self.init(name, fields: members)
    }

    public func encodedLine() -> [UInt8] {
        if let line { return line }
        var members = fields
        members["event"] = .string(name)
        return JSONValueWriter.bytes(.object(members))
    }
}

import Foundation
import Synchronization

/// Who a request is.
public enum WebRole: String, Codable, Sendable, Comparable {
    /// Room, overlay, read API.
    case viewer
    /// Also starts and stops sessions.
    case coach

    public static func < (lhs: WebRole, rhs: WebRole) -> Bool { lhs == .viewer && rhs == .coach }
}

/// Browser sessions in memory: a random id (the HttpOnly cookie) → role, CSRF token, expiry. A restart forgets
/// them all.
public final class WebSessions: Sendable {
    public struct Entry: Sendable, Hashable {
        public var role: WebRole
        public var csrf: String
        public var expires: Date
    }

    public static let cookieName = "heartd_web"
    public let lifetime: TimeInterval
    private let entries = Mutex<[String: Entry]>([:])
    private let limit = 10_000

    public init(lifetime: TimeInterval = 12 * 3600) { self.lifetime = lifetime }

    /// A new session of `role`; returns its id.
    public func create(_ role: WebRole, now: Date = Date()) -> (id: String, entry: Entry) {
        let id = randomToken()
        let entry = Entry(role: role, csrf: randomToken(), expires: now.addingTimeInterval(lifetime))
        entries.withLock { entries in
            if entries.count >= limit { entries = entries.filter { $0.value.expires > now } }
            if entries.count >= limit, let oldest = entries.min(by: { $0.value.expires < $1.value.expires }) {
                entries.removeValue(forKey: oldest.key)
            }
            entries[id] = entry
        }
        return (id, entry)
    }

    public func lookup(_ id: String, now: Date = Date()) -> Entry? {
        entries.withLock { entries in
            guard let entry = entries[id] else { return nil }
            guard entry.expires > now else {
                entries.removeValue(forKey: id)
                return nil
            }
            return entry
        }
    }

    public func remove(_ id: String) {
        _ = entries.withLock { $0.removeValue(forKey: id) }
    }
}

/// 32 random bytes as URL-safe base64 (no padding).
func randomToken() -> String {
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    return Data(bytes).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
}

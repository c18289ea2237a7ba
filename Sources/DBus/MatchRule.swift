/// A D-Bus match rule for signals (`AddMatch`), also used to filter signals locally.
///
/// Local filtering matters because one connection receives the union of all its rules.
/// `sender` is compared only when it is a unique name (`:1.42`); a well-known name cannot be
/// resolved locally, so such a rule relies on the bus for the sender check.
public struct MatchRule: Sendable, Hashable, CustomStringConvertible {
    public var sender: String?
    public var path: String?
    public var pathNamespace: String?
    public var interface: String?
    public var member: String?
    /// arg0 must equal this string.
    public var arg0: String?
    /// arg0 (a string or object path) must equal this, or one must be a prefix of the other ending in "/".
    public var arg0Path: String?

    public init(sender: String? = nil, path: String? = nil, pathNamespace: String? = nil,
                interface: String? = nil, member: String? = nil, arg0: String? = nil, arg0Path: String? = nil) {
        self.sender = sender
        self.path = path
        self.pathNamespace = pathNamespace
        self.interface = interface
        self.member = member
        self.arg0 = arg0
        self.arg0Path = arg0Path
    }

    /// The rule text for `org.freedesktop.DBus.AddMatch`.
    public var description: String {
        var parts = ["type='signal'"]
        func add(_ key: String, _ value: String?) {
            guard let value else { return }
            // Inside quotes only the apostrophe needs escaping: close, escaped quote, reopen.
            parts.append("\(key)='\(value.replacingOccurrences(of: "'", with: "'\\''"))'")
        }
        add("sender", sender)
        add("path", path)
        add("path_namespace", pathNamespace)
        add("interface", interface)
        add("member", member)
        add("arg0", arg0)
        add("arg0path", arg0Path)
        return parts.joined(separator: ",")
    }

    /// Header-only check (everything but the arguments).
    func matchesHeader(sender msgSender: String?, path msgPath: String, interface msgInterface: String,
                       member msgMember: String) -> Bool {
        if let interface, interface != msgInterface { return false }
        if let member, member != msgMember { return false }
        if let path, path != msgPath { return false }
        if let ns = pathNamespace {
            if ns != "/" && msgPath != ns && !msgPath.hasPrefix(ns + "/") { return false }
        }
        if let sender, sender.hasPrefix(":"), sender != msgSender { return false }
        return true
    }

    var needsArguments: Bool { arg0 != nil || arg0Path != nil }

    func matchesArguments(_ args: [DBusValue]) -> Bool {
        let first: String? = args.first.flatMap { v -> String? in
            switch v {
            case .string(let s), .objectPath(let s): return s
            default: return nil
            }
        }
        if let arg0 {
            guard case .string(let s)? = args.first, s == arg0 else { return false }
        }
        if let arg0Path {
            guard let first else { return false }
            if first != arg0Path
                && !(arg0Path.hasSuffix("/") && first.hasPrefix(arg0Path))
                && !(first.hasSuffix("/") && arg0Path.hasPrefix(first)) {
                return false
            }
        }
        return true
    }
}

/// A received signal.
public struct DBusSignal: Sendable, Hashable {
    /// The sender's unique name (`:1.7`), if the message had one.
    public var sender: String?
    public var path: String
    public var interface: String
    public var member: String
    public var arguments: [DBusValue]

    public init(sender: String?, path: String, interface: String, member: String, arguments: [DBusValue]) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }
}

/// `org.freedesktop.DBus.NameOwnerChanged`, decoded. Empty owner strings become nil.
public struct NameOwnerChange: Sendable, Hashable {
    public var name: String
    public var oldOwner: String?
    public var newOwner: String?

    public init(name: String, oldOwner: String?, newOwner: String?) {
        self.name = name
        self.oldOwner = oldOwner
        self.newOwner = newOwner
    }

    /// Decodes the signal; nil if it is not a well-formed NameOwnerChanged.
    public init?(_ signal: DBusSignal) {
        guard signal.interface == "org.freedesktop.DBus", signal.member == "NameOwnerChanged",
              signal.arguments.count == 3,
              case .string(let n) = signal.arguments[0],
              case .string(let o) = signal.arguments[1],
              case .string(let w) = signal.arguments[2] else { return nil }
        name = n
        oldOwner = o.isEmpty ? nil : o
        newOwner = w.isEmpty ? nil : w
    }

    /// The match rule for changes of one name.
    public static func rule(for name: String) -> MatchRule {
        MatchRule(sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                  interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arg0: name)
    }
}

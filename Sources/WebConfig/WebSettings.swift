import Foundation

/// The `[web]` settings (docs/CONFIGURATION.md, docs/WEB.md): where `heartd-web` listens, its credentials and the
/// heart-rate zones' maximum.
public struct WebSettings: Sendable, Equatable {
    /// `web.host`: the address to listen on. Anything but loopback is refused at start unless a credential is set.
    public var host = "127.0.0.1"
    /// 0: a free port the kernel picks (the tests; the address is printed).
    public var port = 8380
    /// File whose first line is the viewer token; empty: `$CREDENTIALS_DIRECTORY/web-viewer-token` when systemd
    /// passed it, else no token (anyone who reaches the port may view: loopback only).
    public var viewerTokenFile = ""
    /// File whose first line is the coach password's bcrypt hash (`heartd-web hash-password`); empty:
    /// `$CREDENTIALS_DIRECTORY/web-coach-password` when systemd passed it, else no coach (nobody starts sessions).
    public var coachPasswordFile = ""
    /// HRmax for devices without one of their own (`hrmax_devices`), in beats per minute.
    public var hrmaxDefault = 190
    /// Per device: `"AA:BB:CC:DD:EE:FF=182"`.
    public var hrmaxDevices: [String] = []
    /// Updates queued for one browser before it is dropped as too slow.
    public var clientBuffer = 256
    /// Failed logins from one address within a minute before it gets 429.
    public var loginAttemptsPerMinute = 5

    public init() {}

    /// Whether `host` is a loopback address (127.0.0.0/8, ::1, localhost).
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// HRmax per device address (upper case), from `hrmaxDevices`; a malformed entry is skipped (validation
    /// refuses it first).
    public var hrmaxByDevice: [String: Int] {
        var table: [String: Int] = [:]
        for entry in hrmaxDevices {
            if let (address, bpm) = Self.hrmaxEntry(entry) { table[address] = bpm }
        }
        return table
    }

    /// `"address=bpm"` parsed, or nil.
    public static func hrmaxEntry(_ entry: String) -> (String, Int)? {
        let parts = entry.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, !parts[0].isEmpty, let bpm = Int(parts[1]), (100...240).contains(bpm) else { return nil }
        return (parts[0].uppercased(), bpm)
    }

    /// The viewer token's file, if any (see `viewerTokenFile`).
    public func viewerTokenPath(environment: [String: String]) -> String? {
        credentialPath(viewerTokenFile, name: "web-viewer-token", environment: environment)
    }

    /// The coach password hash's file, if any (see `coachPasswordFile`).
    public func coachPasswordPath(environment: [String: String]) -> String? {
        credentialPath(coachPasswordFile, name: "web-coach-password", environment: environment)
    }

    private func credentialPath(_ configured: String, name: String, environment: [String: String]) -> String? {
        if !configured.isEmpty { return configured }
        guard let directory = environment["CREDENTIALS_DIRECTORY"] else { return nil }
        let path = directory + "/" + name
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }
}

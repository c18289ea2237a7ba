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
    /// PEM file of the TLS certificate (then its chain); empty: `$CREDENTIALS_DIRECTORY/web-tls-certificate` when
    /// systemd passed it, else plain HTTP. With `tlsKey` only.
    public var tlsCertificate = ""
    /// PEM file of the TLS private key; empty: `$CREDENTIALS_DIRECTORY/web-tls-key` when systemd passed it.
    public var tlsKey = ""
    /// HRmax for devices without one of their own (`hrmax_devices`), in beats per minute.
    public var hrmaxDefault = 190
    /// Per device: `"AA:BB:CC:DD:EE:FF=182"`.
    public var hrmaxDevices: [String] = []
    /// Age in years of the people wearing the sensors, for the calorie estimate on the tiles (Keytel et al. 2005);
    /// 0: unknown (no calories). One value for every sensor until people are kept per strap (issue 28's People page).
    public var ageYears = 0
    /// Weight in kilograms, as `ageYears`; 0: unknown (no calories).
    public var weightKg = 0
    /// `"female"`, `"male"` or `""` (unknown: the mean of Keytel's two equations), as `ageYears`.
    public var sex = ""
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

    /// The TLS certificate's file, if any (see `tlsCertificate`).
    public func tlsCertificatePath(environment: [String: String]) -> String? {
        credentialPath(tlsCertificate, name: "web-tls-certificate", environment: environment)
    }

    /// The TLS key's file, if any (see `tlsKey`).
    public func tlsKeyPath(environment: [String: String]) -> String? {
        credentialPath(tlsKey, name: "web-tls-key", environment: environment)
    }

    private func credentialPath(_ configured: String, name: String, environment: [String: String]) -> String? {
        if !configured.isEmpty { return configured }
        guard let directory = environment["CREDENTIALS_DIRECTORY"] else { return nil }
        let path = directory + "/" + name
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }
}

import WebConfig

/// The `[web]` settings of `heartd-web` (docs/CONFIGURATION.md, docs/WEB.md).
extension ConfigurationSchema {
    static let webSettings: [ConfigurationSetting] = [
        string("web", "host", \.web.host) { host in
            !host.isEmpty && host.count <= 253 && !host.contains(where: { $0.isWhitespace || $0 == "/" })
                ? nil : "an IP address or host name"
        },
        integer("web", "port", \.web.port, 0...65535),
        string("web", "viewer_token_file", \.web.viewerTokenFile) { webAbsoluteOrEmpty($0) },
        string("web", "coach_password_file", \.web.coachPasswordFile) { webAbsoluteOrEmpty($0) },
        string("web", "tls_certificate", \.web.tlsCertificate) { webAbsoluteOrEmpty($0) },
        string("web", "tls_key", \.web.tlsKey) { webAbsoluteOrEmpty($0) },
        integer("web", "hrmax", \.web.hrmaxDefault, 100...240),
        strings("web", "hrmax_devices", \.web.hrmaxDevices) { entry in
            WebSettings.hrmaxEntry(entry) == nil ? "\"AA:BB:CC:DD:EE:FF=182\": an address, '=', 100 to 240 (got \"\(entry)\")" : nil
        },
        integer("web", "client_buffer", \.web.clientBuffer, 16...65536),
        integer("web", "login_attempts_per_minute", \.web.loginAttemptsPerMinute, 1...1000),
        integer("web", "age", \.web.ageYears, 0...120),
        integer("web", "weight_kg", \.web.weightKg, 0...400),
        string("web", "sex", \.web.sex) { ["", "female", "male"].contains($0) ? nil : "\"female\", \"male\" or \"\"" },
    ]

    private static func webAbsoluteOrEmpty(_ path: String) -> String? {
        path.isEmpty || path.hasPrefix("/") ? nil : "must be an absolute path (or empty)"
    }
}

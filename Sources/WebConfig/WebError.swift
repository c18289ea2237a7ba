/// An error of `heartd-web`: a stable `code` plus a human-readable detail (never a secret).
public struct WebError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, Codable, CaseIterable {
        /// `web.host` is not loopback and neither a viewer token nor a coach password is configured.
        case unprotectedBind
        /// A credential file cannot be read, or is empty, or the coach password is not a bcrypt hash.
        case credentialFile
        /// The address cannot be listened on.
        case listen
        /// heartd's `export` of a session failed while it streamed (the download ends short).
        case export
        /// The TLS certificate or key cannot be read or used, or only one of them is set.
        case tls
    }

    public let code: Code
    public let detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(code.rawValue): \(detail)" }

    /// heartd-web's exit status for this error (docs/WEB.md): 65 for an unprotected bind, 1 otherwise.
    public var exitStatus: Int32 {
        switch code {
        case .unprotectedBind: return 65
        case .credentialFile, .listen, .export, .tls: return 1
        }
    }
}

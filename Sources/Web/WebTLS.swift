import NIOSSL
import WebConfig

/// TLS from certificate files: `web.tls_certificate` (PEM, the server's certificate then its chain) and `web.tls_key`
/// (PEM), or the credentials `web-tls-certificate` and `web-tls-key` systemd passes (`LoadCredential=`); both or
/// neither. Checked at start (unreadable, not PEM, or a key that does not match the certificate: exit status 1).
public enum WebTLS {
    public static func configuration(_ settings: WebSettings, environment: [String: String]) throws(WebError) -> TLSConfiguration? {
        switch (settings.tlsCertificatePath(environment: environment), settings.tlsKeyPath(environment: environment)) {
        case (nil, nil):
            return nil
        case (let certificatePath?, let keyPath?):
            let chain: [NIOSSLCertificate]
            let key: NIOSSLPrivateKey
            do {
                chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
            } catch {
                throw WebError(.tls, "\(certificatePath): not a readable PEM certificate (\(error))")
            }
            guard !chain.isEmpty else { throw WebError(.tls, "\(certificatePath) holds no certificate") }
            do {
                key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
            } catch {
                throw WebError(.tls, "\(keyPath): not a readable PEM private key (\(error))")
            }
            let configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) },
                                                                         privateKey: .privateKey(key))
            do {
                _ = try NIOSSLContext(configuration: configuration)  // the key matches the certificate
            } catch {
                throw WebError(.tls, "\(certificatePath) and \(keyPath) do not make a TLS server (\(error))")
            }
            return configuration
        default:
            throw WebError(.tls, "web.tls_certificate and web.tls_key go together: set both or neither")
        }
    }
}

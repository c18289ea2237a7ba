import Foundation

/// A test CA made by `openssl` in `dir` and a server certificate it signed for `localhost` and 127.0.0.1 (EC P-256,
/// two days): `ca.pem`, `server.crt`, `server.key`. (MosquittoBroker makes the same for its TLS listener, with a
/// second, unrelated CA beside it.)
public struct TestCertificateAuthority: Sendable {
    public let caFile: String
    public let certificateFile: String
    public let keyFile: String

    public init(dir: String) throws {
        caFile = dir + "/ca.pem"
        certificateFile = dir + "/server.crt"
        keyFile = dir + "/server.key"
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else {
            throw TestFailure("/usr/bin/openssl is missing: install the Debian package openssl (scripts/setup.sh does)")
        }
        let ext = dir + "/san.cnf"
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(toFile: ext, atomically: true, encoding: .utf8)
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        let steps: [[String]] = [
            ["req", "-x509"] + ec + ["-keyout", dir + "/ca.key", "-out", caFile, "-days", "2", "-subj", "/CN=heartd test CA"],
            ["req"] + ec + ["-keyout", keyFile, "-out", dir + "/server.csr", "-subj", "/CN=localhost"],
            ["x509", "-req", "-in", dir + "/server.csr", "-CA", caFile, "-CAkey", dir + "/ca.key", "-CAcreateserial",
             "-out", certificateFile, "-days", "2", "-extfile", ext],
        ]
        for step in steps {
            let result = PostgresServer.run("/usr/bin/openssl", step)
            guard result.status == 0 else { throw TestFailure("openssl \(step.first ?? "") failed: \(result.output)") }
        }
    }
}

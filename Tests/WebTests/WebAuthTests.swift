import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Web
import WebConfig

/// The roles, the cookie, CSRF, the login rate limit and the headers, over HTTP without a browser.
@Suite struct WebAuthTests {
    @Test func withoutCredentialsEveryoneIsAViewerAndNobodyACoach() async throws {
        let fixture = WebFixture(token: nil, coach: false)
        try await fixture.web.application().test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
                #expect(response.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
                #expect(String(buffer: response.body).contains("id=\"tiles\""))
                #expect(!String(buffer: response.body).contains("id=\"start\""))
            }
            try await client.execute(uri: "/api/sessions/start", method: .post,
                                     headers: [.contentType: "application/x-www-form-urlencoded"],
                                     body: ByteBuffer(string: "label=x")) { response in
                #expect(response.status == .forbidden)
            }
        }
        #expect(fixture.control.started.withLock { $0.isEmpty })
    }

    @Test func theViewerTokenOpensThePageAndSetsAStrictHttpOnlyCookie() async throws {
        let fixture = WebFixture()
        try await fixture.web.application().test(.router) { client in
            try await client.execute(uri: "/api/devices", method: .get) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/api/devices?token=wrong-token-0123456789", method: .get) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/api/devices", method: .get,
                                     headers: [.authorization: "Bearer \(WebFixture.token)"]) { #expect($0.status == .ok) }
            let cookie = try await client.execute(uri: "/?token=\(WebFixture.token)", method: .get) { response in
                #expect(response.status == .ok)
                let setCookie = try #require(response.headers[.setCookie])
                #expect(setCookie.contains("HttpOnly"))
                #expect(setCookie.contains("SameSite=Strict"))
                return String(setCookie.split(separator: ";")[0])
            }
            try await client.execute(uri: "/api/status", method: .get, headers: [.cookie: cookie]) { #expect($0.status == .ok) }
            // A viewer may not start a session, CSRF token or not.
            try await client.execute(uri: "/api/sessions/start", method: .post,
                                     headers: [.cookie: cookie, .contentType: "application/json"],
                                     body: ByteBuffer(string: #"{"label":"x"}"#)) { #expect($0.status == .forbidden) }
        }
        #expect(fixture.control.started.withLock { $0.isEmpty })
    }

    @Test func aCoachStartsAndStopsWithTheCSRFTokenOnly() async throws {
        let fixture = WebFixture()
        try await fixture.web.application().test(.router) { client in
            let cookie = try await Self.login(client)
            let page = try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie]) { String(buffer: $0.body) }
            let csrf = try #require(page.firstMatch(of: /name="csrf" content="([^"]+)"/)?.1)
            let form: HTTPFields = [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"]
            try await client.execute(uri: "/api/sessions/start", method: .post, headers: form,
                                     body: ByteBuffer(string: "label=round+7")) { #expect($0.status == .forbidden) }
            var crossSite = form
            crossSite[.origin] = "http://evil.example"
            try await client.execute(uri: "/api/sessions/start", method: .post, headers: crossSite,
                                     body: ByteBuffer(string: "label=round+7&csrf=\(csrf)")) { #expect($0.status == .forbidden) }
            try await client.execute(uri: "/api/sessions/start", method: .post, headers: form,
                                     body: ByteBuffer(string: "label=round+7&csrf=\(csrf)")) { response in
                #expect(response.status == .seeOther)
            }
            try await client.execute(uri: "/api/sessions/stop", method: .post,
                                     headers: [.cookie: cookie, .contentType: "application/json", .csrfToken: String(csrf)],
                                     body: ByteBuffer(string: "{}")) { #expect($0.status == .ok) }
        }
        #expect(fixture.control.started.withLock { $0 } == ["round 7"])
        #expect(fixture.control.stopped.withLock { $0.count } == 1)
    }

    @Test func failedLoginsAreRateLimited() async throws {
        let fixture = WebFixture()
        try await fixture.web.application().test(.router) { client in
            for _ in 0..<3 {
                try await client.execute(uri: "/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                         body: ByteBuffer(string: "password=nope")) { #expect($0.status == .unauthorized) }
            }
            try await client.execute(uri: "/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                     body: ByteBuffer(string: "password=\(WebFixture.password)")) { #expect($0.status == .tooManyRequests) }
        }
    }

    @Test func aNonLoopbackBindNeedsACredential() throws {
        var settings = WebSettings()
        settings.host = "0.0.0.0"
        #expect(throws: WebError(.unprotectedBind, "")) { try Self.check(settings, WebCredentials()) }
        #expect(WebError(.unprotectedBind, "").exitStatus == 65)
        try WebCredentials.checkBind(settings, WebCredentials(viewerToken: WebFixture.token))
        settings.host = "127.0.0.1"
        try WebCredentials.checkBind(settings, WebCredentials())
        settings.host = "::1"
        try WebCredentials.checkBind(settings, WebCredentials())
    }

    @Test func credentialFilesAreReadFromTheCredentialsDirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("web-cred-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "\(WebFixture.token)\n".write(to: directory.appendingPathComponent("web-viewer-token"), atomically: true, encoding: .utf8)
        try "\(WebFixture.passwordHash)\n".write(to: directory.appendingPathComponent("web-coach-password"), atomically: true, encoding: .utf8)
        let credentials = try WebCredentials.load(WebSettings(), environment: ["CREDENTIALS_DIRECTORY": directory.path])
        #expect(credentials.isViewerToken(WebFixture.token))
        #expect(credentials.isCoachPassword(WebFixture.password))
        #expect(!credentials.isCoachPassword("wrong"))
        // A plain password where the hash belongs is refused, not compared.
        try "hunter2\n".write(to: directory.appendingPathComponent("web-coach-password"), atomically: true, encoding: .utf8)
        #expect(throws: WebError.self) { try WebCredentials.load(WebSettings(), environment: ["CREDENTIALS_DIRECTORY": directory.path]) }
    }

    static func check(_ settings: WebSettings, _ credentials: WebCredentials) throws {
        do throws(WebError) {
            try WebCredentials.checkBind(settings, credentials)
        } catch {
            throw WebError(error.code, "")
        }
    }

    static func login(_ client: some TestClientProtocol) async throws -> String {
        try await client.execute(uri: "/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                                 body: ByteBuffer(string: "password=\(WebFixture.password.replacingOccurrences(of: " ", with: "+"))")) { response in
            #expect(response.status == .seeOther)
            let setCookie = try #require(response.headers[.setCookie])
            return String(setCookie.split(separator: ";")[0])
        }
    }
}

extension HTTPField.Name {
    static let contentSecurityPolicy = HTTPField.Name("Content-Security-Policy")!
    static let csrfToken = HTTPField.Name("X-CSRF-Token")!
}

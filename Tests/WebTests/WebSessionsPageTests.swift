import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import Web

/// The Sessions page, a report under its own policy, and an export streamed as a download (stub heartd).
struct WebSessionsPageTests {
    @Test func theListLinksTheRunningSessionToTheRoomAndAFinishedOneToItsReportAndExports() async throws {
        let fixture = WebFixture()
        let finished = StubSessionControl.finished.uuid.uuidString
        try await fixture.web.application().test(.router) { client in
            try await client.execute(uri: "/sessions?token=\(WebFixture.token)", method: .get) { response in
                #expect(response.status == .ok)
                let page = String(buffer: response.body)
                #expect(page.contains("&lt;i&gt;finished&lt;/i&gt;") && !page.contains("<i>finished</i>"))
                #expect(page.contains("&lt;b&gt;earlier&lt;/b&gt;"))
                #expect(page.contains("href=\"/sessions/\(finished)/report\""))
                #expect(page.contains("href=\"/sessions/\(finished)/export?format=csv\" download"))
                #expect(page.contains("href=\"/sessions/\(finished)/export?format=fit\" download"))
                #expect(page.contains("1:02:05"))  // the finished one lasted 3725 s
                #expect(page.contains("running: live in the room"))
                #expect(page.firstRange(of: "finished")!.lowerBound > page.firstRange(of: "earlier")!.lowerBound)  // newest first
            }
            try await client.execute(uri: "/sessions", method: .get) { response in
                #expect(response.status == .unauthorized)
            }
        }
    }

    @Test func aReportRunsNoScriptAndAnExportDownloads() async throws {
        let fixture = WebFixture()
        let uuid = StubSessionControl.finished.uuid.uuidString
        try await fixture.web.application().test(.router) { client in
            try await client.execute(uri: "/sessions/\(uuid)/report?token=\(WebFixture.token)", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains(uuid))
                let policy = try #require(response.headers[.contentSecurityPolicy])
                #expect(policy.hasPrefix("sandbox;") && policy.contains("default-src 'none'") && !policy.contains("script-src"))
            }
            try await client.execute(uri: "/sessions/\(uuid)/export?format=csv&token=\(WebFixture.token)", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentDisposition] == "attachment; filename=\"session-\(uuid).csv\"")
                #expect(String(buffer: response.body) == "kind,series\nbeat,\(uuid)\n")
            }
            try await client.execute(uri: "/sessions/\(uuid)/export?format=exe&token=\(WebFixture.token)", method: .get) { response in
                #expect(response.status == .badRequest)
            }
            try await client.execute(uri: "/sessions/not-a-uuid/report?token=\(WebFixture.token)", method: .get) { response in
                #expect(response.status == .badRequest)
            }
        }
    }
}

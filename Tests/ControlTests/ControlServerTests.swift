import Glibc
import Foundation
import Logging
import Testing
@testable import Control

@Suite struct ControlServerTests {
    @Test func roundTripAndHello() async throws {
        let server = try TestServer()
        let client = try server.client()
        #expect(try await client.call("hello") == ["protocol": .string(ControlProtocol.version)])
        #expect(try await client.call("echo", params: ["x": 1, "y": ["z"]]) == ["x": 1, "y": ["z"]])
        #expect(try await client.call("typed", params: ["n": 21]) == 42)
        var info = stat()
        #expect(lstat(server.path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o660)
        #expect((info.st_mode & S_IFMT) == S_IFSOCK)
    }

    @Test func parseErrorKeepsTheConnection() async throws {
        let server = try TestServer()
        let client = try server.client()
        let response = try await client.sendRawLine(Array("this is not json".utf8))
        #expect(response.id == nil)
        #expect(response.error?.code == .parseError)
        #expect(try await client.call("echo", params: ["still": true]) == ["still": true])
    }

    @Test func unknownMethodAndInvalidParams() async throws {
        let server = try TestServer()
        let client = try server.client()
        let unknown = try await client.send("no.such.method")
        #expect(unknown.error?.code == .unknownMethod)
        #expect(unknown.id == 1)
        let invalid = try await client.send("typed", params: ["n": "seven"])
        #expect(invalid.error?.code == .invalidParams)
        let missingID = try await client.sendRawLine(Array(#"{"method":"echo"}"#.utf8))
        #expect(missingID.error?.code == .invalidRequest)
    }

    @Test func oversizeLineGetsErrorThenClose() async throws {
        let server = try TestServer { $0.maxLineBytes = 1024 }
        let socket = try RawClient(path: server.path)
        try await socket.write([UInt8](repeating: UInt8(ascii: "a"), count: 4096), newline: false)
        let response = try await socket.readResponse()
        #expect(response.error?.code == .lineTooLong)
        await #expect(throws: ControlSocketError.self) { _ = try await socket.readLine() }
        #expect(await server.eventually { server.server.clientCount == 0 })
    }

    @Test func pipelinedRequestsAnswerInOrder() async throws {
        let server = try TestServer()
        let socket = try RawClient(path: server.path)
        let batch = [
            ControlRequest(id: 1, method: "slow"), ControlRequest(id: 2, method: "echo", params: ["n": 2]),
            ControlRequest(id: 3, method: "typed", params: ["n": 3]),
        ].flatMap { (request: ControlRequest) -> [UInt8] in request.encodedLine() + [10] }
        try await socket.write(batch, newline: false)
        var ids: [Int?] = []
        for _ in 0..<3 { ids.append(try await socket.readResponse().id) }
        #expect(ids == [1, 2, 3])
    }

    @Test func manyConcurrentClients() async throws {
        let server = try TestServer()
        let path = server.path
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for clientIndex in 0..<40 {
                group.addTask {
                    let client = try ControlClient(path: path, timeout: .seconds(10))
                    var good = 0
                    for call in 0..<10 {
                        let value = try await client.call("typed", params: ["n": .int(clientIndex * 100 + call)])
                        if value == .int((clientIndex * 100 + call) * 2) { good += 1 }
                    }
                    client.close()
                    return good
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(results == 400)
        #expect(await server.eventually { server.server.clientCount == 0 })
    }

    @Test func clientsBeyondTheLimitAreRefused() async throws {
        let server = try TestServer { $0.maxClients = 2 }
        let first = try server.client(), second = try server.client()
        _ = try await first.call("hello")
        _ = try await second.call("hello")
        let third = try RawClient(path: server.path)
        let response = try await third.readResponse()
        #expect(response.error?.code == .tooManyClients)
        await #expect(throws: ControlSocketError.self) { _ = try await third.readLine() }
        #expect(try await first.call("echo", params: ["ok": true]) == ["ok": true])
    }

    @Test func refusesToStealALiveSocketAndReplacesAStaleOne() throws {
        let server = try TestServer()
        #expect(throws: ControlSocketError.self) {
            _ = try ControlServer(configuration: ControlServerConfiguration(path: server.path), handler: TestHandler(),
                                  logger: .init(label: "t") { _ in SwiftLogNoOpLogHandler() })
        }
        server.server.stop()
        // A leftover socket file with no listener is replaced.
        let stale = try UnixSocket.makeStream()
        defer { close(stale) }
        let bound = try UnixSocket.withAddress(server.path) { bind(stale, $0, $1) }
        #expect(bound == 0)
        let replacement = try ControlServer(configuration: ControlServerConfiguration(path: server.path), handler: TestHandler(),
                                            logger: .init(label: "t") { _ in SwiftLogNoOpLogHandler() })
        replacement.stop()
    }
}

@Suite struct ControlServerLifecycleTests {
    @Test func runReturnsAfterStopAndRemovesTheSocket() async throws {
        let server = try TestServer()
        let instance = server.server
        let running = Task { await instance.run() }
        let client = try server.client()
        #expect(try await client.call("hello")["protocol"] == .string(ControlProtocol.version))
        instance.stop()
        await running.value
        #expect(!FileManager.default.fileExists(atPath: server.path))
        await #expect(throws: ControlSocketError.self) { _ = try await client.call("hello") }
    }
}

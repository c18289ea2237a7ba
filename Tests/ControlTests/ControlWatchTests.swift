import Foundation
import Synchronization
import Testing
@testable import Control

@Suite struct ControlWatchTests {
    @Test func watcherReceivesEventsAndUnsubscribesOnClose() async throws {
        let server = try TestServer()
        let client = try server.client()
        let events = try await client.watch("watch")
        #expect(await server.eventually { server.handler.hub.count == 1 })
        for n in 0..<5 { server.handler.hub.publish(ControlEvent("beat", fields: ["n": .int(n)])) }
        var received: [Int] = []
        for try await event in events {
            #expect(event.name == "beat")
            received.append(event.fields["n"]?.intValue ?? -1)
            if received.count == 5 { break }
        }
        #expect(received == [0, 1, 2, 3, 4])
        client.close()
        #expect(await server.eventually { server.handler.hub.count == 0 && server.server.clientCount == 0 })
    }

    @Test func slowWatcherIsDroppedWhileAnotherKeepsReceiving() async throws {
        let server = try TestServer { $0.maxOutgoingBytes = 256 * 1024 }
        // The slow watcher subscribes and then never reads.
        let slow = try RawClient(path: server.path)
        try await slow.write(ControlRequest(id: 1, method: "watch").encodedLine())
        let accepted = try await slow.readResponse()
        #expect(accepted.result?["streaming"] == true)

        let fast = try server.client()
        let events = try await fast.watch("watch")
        #expect(await server.eventually { server.handler.hub.count == 2 })

        let total = 2000
        let payload = JSONValue.string(String(repeating: "p", count: 1000))
        let hub = server.handler.hub
        // The publisher stays at most 64 events (~64 KiB) ahead of the fast reader, well inside the
        // 256 KiB bound, so only the client that reads nothing can overflow, however loaded the machine.
        let progress = Mutex(0)
        let publisher = Task {
            for n in 0..<total {
                while n - progress.withLock({ $0 }) > 64 { try? await Task.sleep(for: .milliseconds(1)) }
                hub.publish(ControlEvent("beat", fields: ["n": .int(n), "payload": payload]))
            }
        }
        var count = 0
        for try await event in events {
            #expect(event.fields["n"]?.intValue == count)
            count += 1
            progress.withLock { $0 = count }
            if count == total { break }
        }
        await publisher.value
        #expect(count == total)
        // The fast watcher is still connected; the slow one was dropped and unsubscribed.
        #expect(await server.eventually { server.handler.hub.count == 1 && server.server.clientCount == 1 })
        // Draining the slow client's socket ends in end-of-stream well before all events.
        var slowLines = 0
        while (try? await slow.readLine(timeout: .seconds(5))) != nil { slowLines += 1 }
        #expect(slowLines < total / 2)
        fast.close()
        #expect(await server.eventually { server.handler.hub.count == 0 && server.server.clientCount == 0 })
    }
}

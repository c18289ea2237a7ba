/// The bounded outgoing queue and the QoS 1 messages in flight (not a type of its own thread: the client holds it
/// under its lock).
///
/// State topics (`.latestPerTopic`) keep only their newest message; events (`.every`) keep each, in order. When more
/// than `capacity` messages wait, the oldest waiting message goes (counted in `dropped`). QoS 1 messages stay in
/// `inFlight` from their send until the broker's PUBACK; after a reconnect they go out again first, marked DUP.
struct MQTTOutbox {
    struct Entry {
        var message: MQTTMessage
        var queuing: MQTTQueuing
    }

    let capacity: Int
    let maxInFlight: Int
    private(set) var waiting: [UInt64: Entry] = [:]
    /// Sequence numbers in send order; a number whose entry is gone (replaced or dropped) is skipped.
    private var order: [UInt64] = []
    private var orderStart = 0
    private var latestByTopic: [String: UInt64] = [:]
    private var nextSequence: UInt64 = 0
    /// Sent QoS 1 messages by packet id, with the order they were sent in.
    private(set) var inFlight: [UInt16: MQTTMessage] = [:]
    private var inFlightOrder: [UInt16] = []
    private var resend: [UInt16] = []
    private var lastPacketID: UInt16 = 0
    private(set) var dropped = 0

    init(capacity: Int, maxInFlight: Int) {
        self.capacity = capacity
        self.maxInFlight = maxInFlight
    }

    var waitingCount: Int { waiting.count }

    mutating func enqueue(_ message: MQTTMessage, queuing: MQTTQueuing) {
        if queuing == .latestPerTopic, let old = latestByTopic[message.topic], waiting[old] != nil {
            waiting[old]?.message = message
            return
        }
        let sequence = nextSequence
        nextSequence += 1
        waiting[sequence] = Entry(message: message, queuing: queuing)
        order.append(sequence)
        if queuing == .latestPerTopic { latestByTopic[message.topic] = sequence }
        while waiting.count > capacity, let oldest = popOldest() {
            _ = oldest
            dropped += 1
        }
    }

    /// The next packet to write: a resend of an unacknowledged QoS 1 message first, then the oldest waiting one (a
    /// QoS 1 message only while fewer than `maxInFlight` are unacknowledged).
    mutating func nextPacket() -> MQTTPacket? {
        if !resend.isEmpty {
            let id = resend.removeFirst()
            if let message = inFlight[id] {
                return .publish(MQTTPacket.Publish(message: message, packetID: id, duplicate: true))
            }
        }
        guard let next = peekOldest() else { return nil }
        if next.message.qos == .atLeastOnce && inFlight.count >= maxInFlight { return nil }
        let entry = popOldest()!
        guard entry.message.qos == .atLeastOnce else { return .publish(MQTTPacket.Publish(message: entry.message)) }
        let id = newPacketID()
        inFlight[id] = entry.message
        inFlightOrder.append(id)
        return .publish(MQTTPacket.Publish(message: entry.message, packetID: id))
    }

    /// The broker acknowledged `id`; false when it was not in flight.
    mutating func acknowledge(_ id: UInt16) -> Bool {
        guard inFlight.removeValue(forKey: id) != nil else { return false }
        inFlightOrder.removeAll { $0 == id }
        return true
    }

    /// A new connection: every unacknowledged message goes again, in its original order.
    mutating func connectionRestarted() {
        resend = inFlightOrder
    }

    /// A packet id not in flight (1...65535; 0 is not allowed).
    mutating func newPacketID() -> UInt16 {
        repeat {
            lastPacketID = lastPacketID == UInt16.max ? 1 : lastPacketID + 1
        } while inFlight[lastPacketID] != nil
        return lastPacketID
    }

    private mutating func peekOldest() -> Entry? {
        while orderStart < order.count {
            if let entry = waiting[order[orderStart]] { return entry }
            orderStart += 1
        }
        compact()
        return nil
    }

    private mutating func popOldest() -> Entry? {
        while orderStart < order.count {
            let sequence = order[orderStart]
            orderStart += 1
            if let entry = waiting.removeValue(forKey: sequence) {
                if latestByTopic[entry.message.topic] == sequence { latestByTopic[entry.message.topic] = nil }
                if orderStart > 1024 && orderStart * 2 > order.count { compact() }
                return entry
            }
        }
        compact()
        return nil
    }

    private mutating func compact() {
        order.removeFirst(orderStart)
        orderStart = 0
    }
}

/// LEB128 varints and zigzag, the building blocks of the series blobs.
struct ByteWriter {
    var bytes: [UInt8] = []

    /// (Reserving 0 would give the empty array storage of its own: an allocation for nothing.)
    init(capacity: Int) { if capacity > 0 { bytes.reserveCapacity(capacity) } }

    /// A writer into `buffer`'s storage, emptied; `buffer` is left empty (it is moved, not shared, so that a buffer
    /// kept from call to call is reused without an allocation). Give it back with `swap(&writer.bytes, &buffer)`.
    static func reusing(_ buffer: inout [UInt8]) -> ByteWriter {
        var writer = ByteWriter(capacity: 0)
        swap(&writer.bytes, &buffer)
        writer.bytes.removeAll(keepingCapacity: true)
        return writer
    }

    /// `count` zero bytes (room for a header written afterwards).
    mutating func zeros(_ count: Int) {
        for _ in 0..<count { bytes.append(0) }
    }

    mutating func byte(_ b: UInt8) { bytes.append(b) }

    mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func double(_ value: Double) {
        var bits = value.bitPattern.littleEndian
        withUnsafeBytes(of: &bits) { bytes.append(contentsOf: $0) }
    }

    /// A varint length, then the bytes.
    mutating func lengthPrefixed(_ data: some Collection<UInt8>) {
        varint(UInt64(data.count))
        bytes.append(contentsOf: data)
    }
}

/// Reads a blob front to back; every read checks bounds and throws instead of trapping.
struct ByteReader {
    private let bytes: [UInt8]
    private(set) var index: Int

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.index = 0
    }

    var remaining: Int { bytes.count - index }
    var isAtEnd: Bool { index >= bytes.count }

    mutating func byte() throws(SeriesCodingError) -> UInt8 {
        guard index < bytes.count else { throw SeriesCodingError(.truncated, "blob ends at byte \(index)") }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func varint() throws(SeriesCodingError) -> UInt64 {
        // Fast path: most varints in a series are one or two bytes.
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard index < bytes.count else {
                throw SeriesCodingError(.truncated, "varint runs past the end of the blob at byte \(index)")
            }
            let b = bytes[index]
            index += 1
            if shift == 63 && b > 1 {
                throw SeriesCodingError(.malformedVarint, "varint overflows 64 bits at byte \(index - 1)")
            }
            result |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return result }
            shift += 7
            if shift > 63 { throw SeriesCodingError(.malformedVarint, "varint longer than 10 bytes at byte \(index - 1)") }
        }
    }

    mutating func double() throws(SeriesCodingError) -> Double {
        guard remaining >= 8 else { throw SeriesCodingError(.truncated, "8-byte double runs past the end at byte \(index)") }
        var bits: UInt64 = 0
        for i in 0..<8 { bits |= UInt64(bytes[index + i]) << UInt64(8 * i) }
        index += 8
        return Double(bitPattern: bits)
    }

    /// The next `count` bytes.
    mutating func bytes(count: Int) throws(SeriesCodingError) -> [UInt8] {
        guard count >= 0, remaining >= count else {
            throw SeriesCodingError(.truncated, "\(count) bytes run past the end at byte \(index)")
        }
        defer { index += count }
        return Array(bytes[index..<index + count])
    }

    /// A varint length, then that many bytes (`ByteWriter.lengthPrefixed`).
    mutating func lengthPrefixed() throws(SeriesCodingError) -> [UInt8] {
        let count = try varint()
        guard count <= UInt64(remaining) else {
            throw SeriesCodingError(.truncated, "a \(count)-byte field runs past the end at byte \(index)")
        }
        return try bytes(count: Int(count))
    }
}

enum ZigZag {
    @inline(__always) static func encode(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }
    @inline(__always) static func decode(_ u: UInt64) -> Int64 { Int64(bitPattern: u >> 1) ^ -Int64(bitPattern: u & 1) }
}

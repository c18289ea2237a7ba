import Foundation
import NIOCore
import PostgresNIO

/// A one-dimensional PostgreSQL array in its binary wire format, written element by element straight into one
/// buffer. PostgresNIO's generic array encoding costs close to a microsecond per element (measured: a third of a
/// gateway-day's delivery time went into encoding its 180,000 expanded rows); this is the same bytes, specialized.
struct BinaryArray: PostgresDynamicTypeEncodable {
    /// The array's type (PostgresNIO asks each value).
    var psqlType: PostgresDataType
    var psqlFormat: PostgresFormat { .binary }
    var bytes: ByteBuffer

    func encode<E: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<E>) {
        buffer.writeImmutableBuffer(bytes)
    }

    /// Header, then `count` elements of `size` bytes each written by `element` (after their length).
    private init(arrayType: PostgresDataType, elementType: PostgresDataType, count: Int, size: Int32,
                 element: (inout ByteBuffer, Int) -> Void) {
        psqlType = arrayType
        bytes = ByteBufferAllocator().buffer(capacity: 20 + count * (4 + Int(size)))
        bytes.writeInteger(count == 0 ? 0 : 1, as: Int32.self)  // dimensions
        bytes.writeInteger(0, as: Int32.self)  // no NULLs
        bytes.writeInteger(elementType.rawValue)
        guard count > 0 else { return }
        bytes.writeInteger(Int32(count))
        bytes.writeInteger(1, as: Int32.self)  // lower bound
        for i in 0..<count {
            bytes.writeInteger(size)
            element(&bytes, i)
        }
    }

    static let postgresEpoch = Date(timeIntervalSince1970: 946_684_800)

    /// timestamptz: microseconds since 2000-01-01 UTC, computed as PostgresNIO's `Date` encoding does.
    init(_ dates: [Date]) {
        self.init(arrayType: .timestamptzArray, elementType: .timestamptz, count: dates.count, size: 8) { buffer, i in
            buffer.writeInteger(Int64(dates[i].timeIntervalSince(Self.postgresEpoch) * 1_000_000))
        }
    }

    init(_ values: [Int32]) {
        self.init(arrayType: .int4Array, elementType: .int4, count: values.count, size: 4) { $0.writeInteger(values[$1]) }
    }

    init(_ values: [Float]) {
        self.init(arrayType: .float4Array, elementType: .float4, count: values.count, size: 4) {
            $0.writeInteger(values[$1].bitPattern)
        }
    }

    init(_ values: [Bool]) {
        self.init(arrayType: .boolArray, elementType: .bool, count: values.count, size: 1) {
            $0.writeInteger(values[$1] ? 1 : 0, as: UInt8.self)
        }
    }

    init(_ values: [UUID]) {
        self.init(arrayType: .uuidArray, elementType: .uuid, count: values.count, size: 16) { buffer, i in
            _ = withUnsafeBytes(of: values[i].uuid) { buffer.writeBytes($0) }
        }
    }
}

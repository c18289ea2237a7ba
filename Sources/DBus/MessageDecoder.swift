internal import CDBus

/// Reads a libdbus message body into `DBusValue`s.
enum MessageDecoder {
    static func decodeBody(_ message: OpaquePointer) -> [DBusValue] {
        var it = DBusMessageIter()
        guard dbus_message_iter_init(message, &it) != 0 else { return [] }
        var out: [DBusValue] = []
        repeat {
            if let v = decode(&it) { out.append(v) }
        } while dbus_message_iter_next(&it) != 0
        return out
    }

    static func decode(_ it: inout DBusMessageIter) -> DBusValue? {
        let type = dbus_message_iter_get_arg_type(&it)
        switch type {
        case CDBUS_TYPE_BYTE: var v: UInt8 = 0; dbus_message_iter_get_basic(&it, &v); return .byte(v)
        case CDBUS_TYPE_BOOLEAN: var v: dbus_bool_t = 0; dbus_message_iter_get_basic(&it, &v); return .bool(v != 0)
        case CDBUS_TYPE_INT16: var v: Int16 = 0; dbus_message_iter_get_basic(&it, &v); return .int16(v)
        case CDBUS_TYPE_UINT16: var v: UInt16 = 0; dbus_message_iter_get_basic(&it, &v); return .uint16(v)
        case CDBUS_TYPE_INT32: var v: Int32 = 0; dbus_message_iter_get_basic(&it, &v); return .int32(v)
        case CDBUS_TYPE_UINT32: var v: UInt32 = 0; dbus_message_iter_get_basic(&it, &v); return .uint32(v)
        case CDBUS_TYPE_INT64: var v: Int64 = 0; dbus_message_iter_get_basic(&it, &v); return .int64(v)
        case CDBUS_TYPE_UINT64: var v: UInt64 = 0; dbus_message_iter_get_basic(&it, &v); return .uint64(v)
        case CDBUS_TYPE_DOUBLE: var v: Double = 0; dbus_message_iter_get_basic(&it, &v); return .double(v)
        case CDBUS_TYPE_STRING: return .string(cString(&it))
        case CDBUS_TYPE_OBJECT_PATH: return .objectPath(cString(&it))
        case CDBUS_TYPE_SIGNATURE: return .signature(cString(&it))
        case CDBUS_TYPE_UNIX_FD:
            // libdbus returns a fresh duplicate that the caller owns.
            var fd: Int32 = -1
            dbus_message_iter_get_basic(&it, &fd)
            return fd >= 0 ? .unixFD(UnixFileDescriptor(owning: fd)) : nil
        case CDBUS_TYPE_VARIANT:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&it, &sub)
            return decode(&sub).map(DBusValue.variant)
        case CDBUS_TYPE_STRUCT:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&it, &sub)
            var fields: [DBusValue] = []
            while dbus_message_iter_get_arg_type(&sub) != CDBUS_TYPE_INVALID {
                if let v = decode(&sub) { fields.append(v) }
                _ = dbus_message_iter_next(&sub)
            }
            return .structure(fields)
        case CDBUS_TYPE_ARRAY:
            return decodeArray(&it)
        default:
            return nil
        }
    }

    private static func decodeArray(_ it: inout DBusMessageIter) -> DBusValue? {
        let elementType = dbus_message_iter_get_element_type(&it)
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&it, &sub)
        if elementType == CDBUS_TYPE_BYTE {
            // Fast path: one copy out of the message buffer.
            var base: UnsafePointer<UInt8>? = nil
            var n: Int32 = 0
            dbus_message_iter_get_fixed_array(&sub, &base, &n)
            guard let base, n > 0 else { return .bytes([]) }
            return .bytes(Array(UnsafeBufferPointer(start: base, count: Int(n))))
        }
        let signature = containerSignature(&it)  // "aX" or "a{kv}"
        let inner = String(signature.dropFirst())
        if elementType == CDBUS_TYPE_DICT_ENTRY {
            let body = inner.dropFirst().dropLast()  // strip { }
            let key = String(body.prefix(1))
            let value = String(body.dropFirst())
            var entries: [DBusDictEntry] = []
            while dbus_message_iter_get_arg_type(&sub) == CDBUS_TYPE_DICT_ENTRY {
                var e = DBusMessageIter()
                dbus_message_iter_recurse(&sub, &e)
                if let k = decode(&e), dbus_message_iter_next(&e) != 0, let v = decode(&e) {
                    entries.append(DBusDictEntry(key: k, value: v))
                }
                _ = dbus_message_iter_next(&sub)
            }
            return .dict(keySignature: key, valueSignature: value, entries)
        }
        var items: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&sub) != CDBUS_TYPE_INVALID {
            if let v = decode(&sub) { items.append(v) }
            _ = dbus_message_iter_next(&sub)
        }
        return .array(elementSignature: inner, items)
    }

    private static func containerSignature(_ it: inout DBusMessageIter) -> String {
        guard let p = dbus_message_iter_get_signature(&it) else { return "" }
        defer { dbus_free(p) }
        return String(cString: p)
    }

    private static func cString(_ it: inout DBusMessageIter) -> String {
        var p: UnsafePointer<CChar>? = nil
        dbus_message_iter_get_basic(&it, &p)
        guard let p else { return "" }
        return String(cString: p)
    }
}

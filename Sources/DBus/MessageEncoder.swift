internal import CDBus

/// Writes `DBusValue`s into a libdbus message through `DBusMessageIter`.
///
/// Everything is validated here first: libdbus treats bad UTF-8, bad object paths or an array
/// element of the wrong type as a programming error (warning or abort), and our input may come
/// from outside.
enum MessageEncoder {
    static func append(_ values: [DBusValue], to message: OpaquePointer) throws(DBusError) {
        var it = DBusMessageIter()
        dbus_message_iter_init_append(message, &it)
        for v in values { try append(v, to: &it) }
    }

    static func append(_ value: DBusValue, to it: inout DBusMessageIter) throws(DBusError) {
        switch value {
        case .byte(var v): try basic(&it, CDBUS_TYPE_BYTE, &v)
        case .bool(let b): var v: dbus_bool_t = b ? 1 : 0; try basic(&it, CDBUS_TYPE_BOOLEAN, &v)
        case .int16(var v): try basic(&it, CDBUS_TYPE_INT16, &v)
        case .uint16(var v): try basic(&it, CDBUS_TYPE_UINT16, &v)
        case .int32(var v): try basic(&it, CDBUS_TYPE_INT32, &v)
        case .uint32(var v): try basic(&it, CDBUS_TYPE_UINT32, &v)
        case .int64(var v): try basic(&it, CDBUS_TYPE_INT64, &v)
        case .uint64(var v): try basic(&it, CDBUS_TYPE_UINT64, &v)
        case .double(var v): try basic(&it, CDBUS_TYPE_DOUBLE, &v)
        case .string(let s): try Validate.utf8(s); try cString(&it, CDBUS_TYPE_STRING, s)
        case .objectPath(let s): try Validate.objectPath(s); try cString(&it, CDBUS_TYPE_OBJECT_PATH, s)
        case .signature(let s): try Validate.signature(s); try cString(&it, CDBUS_TYPE_SIGNATURE, s)
        case .unixFD(let fd): var v = fd.rawValue; try basic(&it, CDBUS_TYPE_UNIX_FD, &v)  // libdbus dups it
        case .bytes(let bytes):
            var sub = DBusMessageIter()
            try open(&it, CDBUS_TYPE_ARRAY, "y", &sub)
            let ok = bytes.withUnsafeBufferPointer { buf -> dbus_bool_t in
                var base: UnsafePointer<UInt8>? = buf.baseAddress
                if base == nil { return 1 }  // empty array: nothing to append
                return dbus_message_iter_append_fixed_array(&sub, CDBUS_TYPE_BYTE, &base, Int32(buf.count))
            }
            guard ok != 0 else { dbus_message_iter_abandon_container(&it, &sub); throw noMemory }
            try close(&it, &sub)
        case .array(let element, let items):
            try Validate.singleSignature(element)
            var sub = DBusMessageIter()
            try open(&it, CDBUS_TYPE_ARRAY, element, &sub)
            for item in items {
                guard item.signature == element else {
                    dbus_message_iter_abandon_container(&it, &sub)
                    throw invalid("array element \(item.signature) is not \(element)")
                }
                do { try append(item, to: &sub) } catch { dbus_message_iter_abandon_container(&it, &sub); throw error }
            }
            try close(&it, &sub)
        case .dict(let k, let v, let entries):
            try Validate.singleSignature("a{" + k + v + "}")
            guard k.count == 1, !"av({".contains(k) else { throw invalid("dictionary key \(k) is not basic") }
            var sub = DBusMessageIter()
            try open(&it, CDBUS_TYPE_ARRAY, "{" + k + v + "}", &sub)
            for entry in entries {
                guard entry.key.signature == k, entry.value.signature == v else {
                    dbus_message_iter_abandon_container(&it, &sub)
                    throw invalid("dict entry {\(entry.key.signature)\(entry.value.signature)} is not {\(k)\(v)}")
                }
                var e = DBusMessageIter()
                do {
                    try open(&sub, CDBUS_TYPE_DICT_ENTRY, nil, &e)
                    try append(entry.key, to: &e)
                    try append(entry.value, to: &e)
                    try close(&sub, &e)
                } catch {
                    dbus_message_iter_abandon_container(&it, &sub)
                    throw error
                }
            }
            try close(&it, &sub)
        case .structure(let fields):
            guard !fields.isEmpty else { throw invalid("empty struct") }
            var sub = DBusMessageIter()
            try open(&it, CDBUS_TYPE_STRUCT, nil, &sub)
            for f in fields {
                do { try append(f, to: &sub) } catch { dbus_message_iter_abandon_container(&it, &sub); throw error }
            }
            try close(&it, &sub)
        case .variant(let inner):
            let sig = inner.signature
            try Validate.singleSignature(sig)
            var sub = DBusMessageIter()
            try open(&it, CDBUS_TYPE_VARIANT, sig, &sub)
            do { try append(inner, to: &sub) } catch { dbus_message_iter_abandon_container(&it, &sub); throw error }
            try close(&it, &sub)
        }
    }

    private static let noMemory = DBusError(code: .noMemory, name: "org.freedesktop.DBus.Error.NoMemory",
                                            message: "out of memory while building a message")

    static func invalid(_ why: String) -> DBusError {
        DBusError(code: .invalidArgs, name: "org.freedesktop.DBus.Error.InvalidArgs", message: why)
    }

    private static func basic<T: BitwiseCopyable>(_ it: inout DBusMessageIter, _ type: Int32, _ v: inout T) throws(DBusError) {
        guard dbus_message_iter_append_basic(&it, type, &v) != 0 else { throw noMemory }
    }

    private static func cString(_ it: inout DBusMessageIter, _ type: Int32, _ s: String) throws(DBusError) {
        let ok = s.withCString { p -> dbus_bool_t in
            var ptr: UnsafePointer<CChar>? = p
            return dbus_message_iter_append_basic(&it, type, &ptr)
        }
        guard ok != 0 else { throw noMemory }
    }

    private static func open(_ it: inout DBusMessageIter, _ type: Int32, _ sig: String?,
                             _ sub: inout DBusMessageIter) throws(DBusError) {
        let ok: dbus_bool_t
        if let sig { ok = dbus_message_iter_open_container(&it, type, sig, &sub) }
        else { ok = dbus_message_iter_open_container(&it, type, nil, &sub) }
        guard ok != 0 else { throw noMemory }
    }

    private static func close(_ it: inout DBusMessageIter, _ sub: inout DBusMessageIter) throws(DBusError) {
        guard dbus_message_iter_close_container(&it, &sub) != 0 else { throw noMemory }
    }
}

/// Checks libdbus would otherwise turn into warnings or aborts.
enum Validate {
    static func utf8(_ s: String) throws(DBusError) {
        // Swift strings are valid Unicode; D-Bus additionally forbids NUL.
        if s.utf8.contains(0) { throw MessageEncoder.invalid("string contains NUL") }
    }

    static func objectPath(_ s: String) throws(DBusError) {
        guard !s.utf8.contains(0), dbus_validate_path(s, nil) != 0 else {
            throw MessageEncoder.invalid("invalid object path \"\(s)\"")
        }
    }

    static func signature(_ s: String) throws(DBusError) {
        guard !s.utf8.contains(0), dbus_signature_validate(s, nil) != 0 else {
            throw MessageEncoder.invalid("invalid signature \"\(s)\"")
        }
    }

    static func singleSignature(_ s: String) throws(DBusError) {
        guard !s.utf8.contains(0), dbus_signature_validate_single(s, nil) != 0 else {
            throw MessageEncoder.invalid("invalid single complete type \"\(s)\"")
        }
    }

    static func busName(_ s: String) throws(DBusError) {
        guard !s.utf8.contains(0), dbus_validate_bus_name(s, nil) != 0 else {
            throw MessageEncoder.invalid("invalid bus name \"\(s)\"")
        }
    }

    static func interface(_ s: String) throws(DBusError) {
        guard !s.utf8.contains(0), dbus_validate_interface(s, nil) != 0 else {
            throw MessageEncoder.invalid("invalid interface name \"\(s)\"")
        }
    }

    static func member(_ s: String) throws(DBusError) {
        guard !s.utf8.contains(0), dbus_validate_member(s, nil) != 0 else {
            throw MessageEncoder.invalid("invalid member name \"\(s)\"")
        }
    }
}

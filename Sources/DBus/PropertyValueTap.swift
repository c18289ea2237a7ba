internal import CDBus
import Glibc

/// A short cut for the one signal a capture daemon receives at notification rate:
/// `org.freedesktop.DBus.Properties.PropertiesChanged(interface, {property: <ay>}, [])`.
///
/// Such a signal is read straight from the message (no `DBusValue` tree, no header strings beyond the path)
/// and handed to `handler` on the connection's queue, before any signal subscriber sees it. When the signal
/// has any other shape (more properties, invalidated ones, another type), or `handler` returns false (a path it
/// does not follow), the signal goes the normal way, to the subscribers.
public struct PropertyValueTap: Sendable {
    public let interface: String
    public let property: String
    /// (object path, sender's unique name, the value) → whether the signal is consumed.
    public let handler: @Sendable (_ path: String, _ sender: String?, _ value: [UInt8]) -> Bool
    private let path = RepeatedCString()
    private let sender = RepeatedCString()
    /// `interface` and `property` as C strings, made once: passing the `String`s to `strcmp` built a C string of
    /// each, and freed it, for every value.
    private let interfaceC: ContiguousArray<CChar>
    private let propertyC: ContiguousArray<CChar>

    public init(interface: String, property: String,
                handler: @escaping @Sendable (_ path: String, _ sender: String?, _ value: [UInt8]) -> Bool) {
        self.interface = interface
        self.property = property
        self.handler = handler
        interfaceC = interface.utf8CString
        propertyC = property.utf8CString
    }

    /// Tries the short cut on an incoming signal; true when it was consumed.
    func consume(_ msg: OpaquePointer) -> Bool {
        guard dbus_message_has_member(msg, "PropertiesChanged") != 0,
              dbus_message_has_interface(msg, "org.freedesktop.DBus.Properties") != 0,
              dbus_message_has_signature(msg, "sa{sv}as") != 0,
              let value = interfaceC.withUnsafeBufferPointer({ interface in
                  propertyC.withUnsafeBufferPointer { property in
                      Self.value(of: msg, interface: interface.baseAddress!, property: property.baseAddress!)
                  }
              }),
              let pathP = dbus_message_get_path(msg) else { return false }
        return handler(path.string(pathP), dbus_message_get_sender(msg).map(sender.string), value)
    }

    /// The `ay` value of `property` when it is the only change and nothing is invalidated.
    static func value(of msg: OpaquePointer, interface: UnsafePointer<CChar>, property: UnsafePointer<CChar>) -> [UInt8]? {
        var it = DBusMessageIter()
        guard dbus_message_iter_init(msg, &it) != 0 else { return nil }
        var p: UnsafePointer<CChar>? = nil
        dbus_message_iter_get_basic(&it, &p)  // the signature was checked: arg 0 is a string
        guard let p, strcmp(p, interface) == 0, dbus_message_iter_next(&it) != 0 else { return nil }
        var dict = DBusMessageIter()
        dbus_message_iter_recurse(&it, &dict)
        guard dbus_message_iter_get_arg_type(&dict) == CDBUS_TYPE_DICT_ENTRY else { return nil }
        var entry = DBusMessageIter()
        dbus_message_iter_recurse(&dict, &entry)
        var key: UnsafePointer<CChar>? = nil
        dbus_message_iter_get_basic(&entry, &key)
        guard let key, strcmp(key, property) == 0, dbus_message_iter_next(&entry) != 0 else { return nil }
        var variant = DBusMessageIter()
        dbus_message_iter_recurse(&entry, &variant)
        guard dbus_message_iter_get_arg_type(&variant) == CDBUS_TYPE_ARRAY,
              dbus_message_iter_get_element_type(&variant) == CDBUS_TYPE_BYTE else { return nil }
        var bytesIt = DBusMessageIter()
        dbus_message_iter_recurse(&variant, &bytesIt)
        var base: UnsafePointer<UInt8>? = nil
        var n: Int32 = 0
        dbus_message_iter_get_fixed_array(&bytesIt, &base, &n)
        // Exactly one entry, and no invalidated property.
        guard dbus_message_iter_next(&dict) == 0, dbus_message_iter_next(&it) != 0 else { return nil }
        var invalidated = DBusMessageIter()
        dbus_message_iter_recurse(&it, &invalidated)
        guard dbus_message_iter_get_arg_type(&invalidated) == CDBUS_TYPE_INVALID else { return nil }
        guard let base, n > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: base, count: Int(n)))
    }
}

import Testing

@Test func placeholder_DBusTests() {}

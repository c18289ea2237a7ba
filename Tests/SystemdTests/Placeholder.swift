import Testing

@Test func placeholder_SystemdTests() {}

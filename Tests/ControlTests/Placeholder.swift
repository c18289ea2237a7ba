import Testing

@Test func placeholder_ControlTests() {}

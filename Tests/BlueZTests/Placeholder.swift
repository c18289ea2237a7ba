import Testing

@Test func placeholder_BlueZTests() {}

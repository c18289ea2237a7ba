import Testing

@Test func placeholder_HeartdKitTests() {}

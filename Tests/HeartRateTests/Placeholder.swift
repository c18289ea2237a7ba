import Testing

@Test func placeholder_HeartRateTests() {}

import Testing

@Test func placeholder_HealthModelTests() {}

import Testing

@Test func placeholder_HeartStoreTests() {}

import Testing

@Test func placeholder_IngestTests() {}

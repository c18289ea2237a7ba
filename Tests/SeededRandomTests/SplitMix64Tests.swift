import SeededRandom
import Testing

@Suite struct SplitMix64Tests {
    @Test func seedZeroGivesTheReferenceSequence() {
        // The first outputs of Vigna's splitmix64.c with x = 0.
        var rng = SplitMix64(seed: 0)
        #expect([rng.next(), rng.next(), rng.next()] == [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F])
    }

    @Test func theSameSeedRepeatsAndAnotherDiffers() {
        var a = SplitMix64(seed: 42), b = SplitMix64(seed: 42), c = SplitMix64(seed: 43)
        let first = (0..<8).map { _ in a.next() }
        #expect(first == (0..<8).map { _ in b.next() })
        #expect(first != (0..<8).map { _ in c.next() })
    }
}

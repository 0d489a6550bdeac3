import Testing
@testable import tokentool

/// The bench table's number formatting (`fixed`), which replaced `String(format:)`.
@Suite struct BenchFormatTests {
    @Test(arguments: [
        (12.3, 2, false, "12.30"),
        (12.3, 2, true, "+12.30"),
        (-3.14159, 2, true, "-3.14"),
        (-3.14159, 2, false, "-3.14"),
        (0.05, 2, false, "0.05"),
        (0.004, 2, true, "+0.00"),
        (-0.004, 2, false, "0.00"),
        (2.5, 0, false, "3"),
        (1_234_567.891, 0, false, "1234568"),
        (0.999, 2, false, "1.00"),
        (7.0, 3, false, "7.000"),
        (1_650_894.4, 1, false, "1650894.4"),
    ])
    func formatsLikePrintf(x: Double, digits: Int, sign: Bool, expected: String) {
        #expect(fixed(x, digits, sign: sign) == expected)
    }
}

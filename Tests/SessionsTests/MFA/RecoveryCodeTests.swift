import Testing
@testable import JOSE
@testable import Sessions

@Suite struct RecoveryCodeTests {
    @Test func aSetIsTenDistinctReadableCodes() throws {
        let codes = try RecoveryCodes.generate()
        #expect(codes.count == 10)
        #expect(Set(codes).count == 10)
        for code in codes {
            let parts = code.split(separator: "-")
            #expect(parts.count == 2 && parts.allSatisfy { $0.count == 5 }, "\(code)")
            // No look-alikes: i, l, o and u are never written.
            #expect(code.allSatisfy { "0123456789abcdefghjkmnpqrstvwxyz-".contains($0) }, "\(code)")
            #expect(RecoveryCodes.normalized(code) == code.replacingOccurrences(of: "-", with: ""))
        }
        // Two sets share nothing (50 random bits a code).
        #expect(Set(codes).isDisjoint(with: try RecoveryCodes.generate()))
    }

    @Test func typedInputIsNormalized() {
        #expect(RecoveryCodes.normalized("ab0c1-de2f3") == "ab0c1de2f3")
        #expect(RecoveryCodes.normalized(" AB0C1 DE2F3 ") == "ab0c1de2f3")
        #expect(RecoveryCodes.normalized("abOc1-de2f3") == "ab0c1de2f3")  // O for 0
        #expect(RecoveryCodes.normalized("ab0cl-de2fI") == "ab0c1de2f1")  // l and I for 1
        #expect(RecoveryCodes.normalized("ab0c1de2f3") == "ab0c1de2f3")
        for bad in [
            "", "ab0c1-de2f", "ab0c1-de2f33", "ab0c1-de2fu", "ab0c1_de2f3", "ab0c1-de2f\u{0}", "äb0c1-de2f3",
            String(repeating: " ", count: 70) + "ab0c1de2f3",
        ] {
            #expect(RecoveryCodes.normalized(bad) == nil, "\(bad)")
        }
    }

    @Test func digestsAreSaltedAndMatchOnce() throws {
        let codes = try RecoveryCodes.generate()
        let stored = codes.map { RecoveryCodes.digest(of: $0, salt: "user-1")! }
        #expect(stored.allSatisfy { $0.count == 32 })
        // The stored form is SHA-256 over the label, the salt and the normalized code.
        let expected = SHA2.sha256(
            Array("tokentool recovery code\u{0}user-1\u{0}".utf8) + Array(codes[3].replacingOccurrences(of: "-", with: "").utf8))
        #expect(stored[3] == expected)
        #expect(RecoveryCodes.match(codes[3].uppercased().replacingOccurrences(of: "-", with: " "), salt: "user-1", against: stored) == 3)
        // Another user's salt, a malformed code, or a code of another set: no match.
        #expect(RecoveryCodes.match(codes[3], salt: "user-2", against: stored) == nil)
        #expect(RecoveryCodes.match("not a code", salt: "user-1", against: stored) == nil)
        #expect(RecoveryCodes.match(try RecoveryCodes.generate()[0], salt: "user-1", against: stored) == nil)
        // A spent code is one the caller removed from the set: it no longer matches.
        var left = stored
        left.remove(at: 3)
        #expect(RecoveryCodes.match(codes[3], salt: "user-1", against: left) == nil)
    }

    #if DEBUG
        /// Every stored digest is compared in constant time, whichever matches (none, the first, the last).
        @Test func comparesEveryDigestInConstantTime() throws {
            let codes = try RecoveryCodes.generate()
            let stored = codes.map { RecoveryCodes.digest(of: $0, salt: "u")! }
            for input in [codes[0], codes[9], "zzzzz-zzzzz"] {
                let probe = ComparisonProbe()
                _ = ComparisonProbe.$current.withValue(probe) { RecoveryCodes.match(input, salt: "u", against: stored) }
                #expect(probe.count == 10)
            }
        }
    #endif
}

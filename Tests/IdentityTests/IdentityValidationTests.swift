import Identity
import JOSE
import Testing

@Suite struct IdentityValidationTests {
    func build(_ values: [IdentityField: JSONValue]) throws -> Identity {
        try Identity.normalized(provider: "test", values: values, rawClaims: [:])
    }

    @Test func fullIdentity() throws {
        let id = try build([
            .subject: "s1", .email: "a@example.com", .emailVerified: true, .name: "A B", .givenName: "A",
            .familyName: "B", .picture: "https://example.com/p.png", .locale: "en-GB",
        ])
        #expect(
            id
                == Identity(
                    provider: "test", subject: "s1", email: "a@example.com", emailVerified: true, name: "A B",
                    givenName: "A", familyName: "B", picture: "https://example.com/p.png", locale: "en-GB"))
    }

    // Apple sends email_verified as the strings "true"/"false" or as booleans.
    @Test(arguments: [(JSONValue.string("true"), true), (.string("false"), false), (.bool(true), true), (.bool(false), false)])
    func emailVerifiedForms(value: JSONValue, expected: Bool) throws {
        #expect(try build([.subject: "s", .email: "a@example.com", .emailVerified: value]).emailVerified == expected)
    }

    @Test(arguments: [JSONValue.string("yes"), .int(1), .string("TRUE")])
    func emailVerifiedRejected(value: JSONValue) {
        #expect(throws: TokenError(.invalidClaim, "", claim: "email_verified")) {
            try build([.subject: "s", .email: "a@example.com", .emailVerified: value])
        }
    }

    @Test func verifiedWithoutEmailIsFalse() throws {
        #expect(try build([.subject: "s", .emailVerified: true]).emailVerified == false)
    }

    @Test(arguments: [
        "no-at-sign", "a@b", "@example.com", "a@@example.com", "a b@example.com", "a@example..com", "a@-x.com",
        String(repeating: "x", count: 65) + "@example.com",
    ])
    func badEmails(email: String) {
        #expect(throws: TokenError(.invalidClaim, "", claim: "email")) { try build([.subject: "s", .email: .string(email)]) }
    }

    @Test(arguments: ["http://example.com/p.png", "javascript:alert(1)", "https://", "ftp://example.com/x", "https://user@example.com/x"])
    func badPictures(picture: String) {
        #expect(throws: TokenError(.invalidClaim, "", claim: "picture")) { try build([.subject: "s", .picture: .string(picture)]) }
    }

    @Test func lengthBounds() throws {
        #expect(throws: TokenError(.invalidClaim, "", claim: "subject")) { try build([.subject: .string(String(repeating: "s", count: 256))]) }
        _ = try build([.subject: .string(String(repeating: "s", count: 255))])
        #expect(throws: TokenError(.invalidClaim, "", claim: "name")) {
            try build([.subject: "s", .name: .string(String(repeating: "n", count: 257))])
        }
        #expect(throws: TokenError(.invalidClaim, "", claim: "locale")) { try build([.subject: "s", .locale: "en US"]) }
        #expect(throws: TokenError(.invalidClaim, "", claim: "name")) { try build([.subject: "s", .name: "a\u{7}b"]) }
    }

    @Test func typesChecked() {
        #expect(throws: TokenError(.invalidClaim, "", claim: "name")) { try build([.subject: "s", .name: 42]) }
        #expect(throws: TokenError(.missingClaim, "", claim: "subject")) { try build([.email: "a@example.com"]) }
        #expect(throws: TokenError(.missingClaim, "", claim: "subject")) { try build([.subject: ""]) }
    }

    @Test func integerSubjectBecomesString() throws {
        #expect(try build([.subject: 12345]).subject == "12345")
    }

    @Test(arguments: [
        ("https://accounts.google.com/x", true), ("http://127.0.0.1:8080/x", true), ("http://localhost/x", true),
        ("http://[::1]:9/x", true), ("http://example.com/x", false), ("http://127.0.0.1.evil.com/x", false),
        ("ftp://example.com", false), ("https://u:p@example.com/", false), ("/relative", false),
    ])
    func providerURLs(url: String, ok: Bool) {
        #expect(((try? ProviderURL.validate(url, what: "url")) != nil) == ok)
    }
}

import Foundation
import Identity
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// Custom JWT identities are keyed by (provider, issuer, subject), on every store.
@Suite struct IdentityIssuerTests {
    @Test(arguments: StoreKind.available)
    func anotherIssuersSameSubjectIsAnotherUser(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let sessions = Conformance.manager(t.store, TestClock())
            let a = Identity(provider: "acme", subject: "42", issuer: "https://id.acme.test")
            let b = Identity(provider: "acme", subject: "42", issuer: "https://evil.test")
            let first = try await sessions.findOrCreateUser(for: a)
            let second = try await sessions.findOrCreateUser(for: b)
            #expect(first.created && second.created)
            #expect(first.user.id != second.user.id)
            // The same issuer and subject finds the same user again.
            let again = try await sessions.findOrCreateUser(for: a)
            #expect(!again.created && again.user.id == first.user.id)
            // A built-in provider's identity is unaffected by a custom one with the same subject.
            let google = try await sessions.findOrCreateUser(for: Identity(provider: "google", subject: "42"))
            #expect(google.created && google.user.id != first.user.id)
            let stored = try await sessions.identities(of: first.user.id)
            #expect(stored.map(\.issuer) == ["https://id.acme.test"])
        }
    }

    /// The issuer is bounded like the other ids: 1…2048 bytes, no control characters.
    @Test(arguments: StoreKind.available)
    func issuerIsBounded(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let sessions = Conformance.manager(t.store, TestClock())
            for bad in ["", "https://id.test/\u{0}", String(repeating: "i", count: 2049)] {
                #expect(
                    await Conformance.code { try await sessions.findOrCreateUser(for: Identity(provider: "acme", subject: "1", issuer: bad)) }
                        == "invalid_input")
            }
            _ = try await sessions.findOrCreateUser(for: Identity(provider: "acme", subject: "1", issuer: String(repeating: "i", count: 2048)))
        }
    }

    /// Rows written by the previous schema keep their user: custom ones get the issuer their
    /// profile recorded, built-in ones an empty issuer.
    @Test(arguments: StoreKind.available)
    func migrationGivesExistingCustomRowsTheirIssuer(kind: StoreKind) async throws {
        try await Harness.withStore(kind, migratingTo: 3) { t in
            let profile = #"{"email_verified":false,"provider":"acme","raw_claims":{"iss":"https://id.acme.test","sub":"42"},"subject":"42"}"#
            try await t.executeRaw("INSERT INTO users (id, created_at) VALUES ('u-acme', 1), ('u-google', 2)")
            try await t.executeRaw(
                """
                INSERT INTO identities (provider, subject, user_id, profile, created_at) VALUES
                  ('acme', '42', 'u-acme', '\(profile)', 1),
                  ('google', '42', 'u-google', '{"provider":"google","raw_claims":{"iss":"https://accounts.google.com"},"subject":"42"}', 2)
                """)
            let store = try await t.reopen(nil)
            let sessions = Conformance.manager(store, TestClock())
            let acme = try await sessions.findOrCreateUser(for: Identity(provider: "acme", subject: "42", issuer: "https://id.acme.test"))
            #expect(!acme.created && acme.user.id == "u-acme")
            let google = try await sessions.findOrCreateUser(for: Identity(provider: "google", subject: "42"))
            #expect(!google.created && google.user.id == "u-google")
            let other = try await sessions.findOrCreateUser(for: Identity(provider: "acme", subject: "42", issuer: "https://evil.test"))
            #expect(other.created)
            try await store.close()
        }
    }
}

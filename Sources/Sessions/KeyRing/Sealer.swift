import JOSE

/// The one way a secret is sealed at rest: AES-256-GCM, the box stored as base64url(nonce ‖
/// ciphertext ‖ tag), with one rule for its associated data (docs/stores.md, "Sealed values"):
///
///     AAD = "tokentool seal v1" NUL purpose NUL context[0] NUL context[1] …
///
/// The purpose names what the box holds and the context the row it belongs to, so a box copied
/// into another row, or into a column of another purpose, does not open. No context field may
/// hold a NUL, which keeps the joined fields unambiguous. Boxes sealed before this rule (each
/// purpose had its own associated data) still open: ``open(_:key:purpose:context:)`` tries the
/// purpose's earlier form when the rule's does not open the box.
enum Sealer {
    /// What a box holds, and so which key and context it is sealed with.
    enum Purpose: String, Sendable, CaseIterable {
        /// A private signing key (a JWK), under the master key; context: its kid.
        case signingKey = "signing-key"
        /// A provider token kept with an identity (Apple's refresh token), under the master key;
        /// context: the identity's provider and subject.
        case providerToken = "provider-token"
        /// The successor of a spent refresh token, under a key derived from the spent token
        /// (``RefreshToken``); context: the session id and the spent token's hash.
        case refreshSuccessor = "refresh-successor"
        /// A user's TOTP secret, under the master key; context: the user's app and id.
        case totpSecret = "totp-secret"

        /// How a malformed box is named in an error.
        var what: String {
            switch self {
            case .signingKey: "sealed signing key"
            case .providerToken: "sealed token"
            case .refreshSuccessor: "sealed successor"
            case .totpSecret: "sealed TOTP secret"
            }
        }

        /// The associated data boxes of this purpose were sealed with before the one rule.
        func earlierAAD(_ context: [String]) -> [UInt8] {
            switch self {
            case .signingKey: Array(context.joined().utf8)  // the kid
            case .providerToken: Array(context.joined(separator: "\u{0}").utf8)  // provider NUL subject
            case .refreshSuccessor: Array(context.joined(separator: ".").utf8)  // session id "." hash of the predecessor
            case .totpSecret: aad(purpose: self, context: context)  // born under the rule: no earlier form
            }
        }
    }

    private static let label = "tokentool seal v1"

    /// The associated data of the one rule.
    static func aad(purpose: Purpose, context: [String]) -> [UInt8] {
        Array(([label, purpose.rawValue] + context).joined(separator: "\u{0}").utf8)
    }

    /// Seals `plaintext` under `key` (32 bytes) for `purpose` and `context`.
    /// - Returns: base64url(nonce ‖ ciphertext ‖ tag).
    /// - Throws: `invalid_input` when a context field holds a NUL; `invalid_key` for a key that
    ///   is not 32 bytes.
    static func seal(_ plaintext: [UInt8], key: [UInt8], purpose: Purpose, context: [String]) throws -> String {
        guard context.allSatisfy({ !$0.utf8.contains(0) }) else {
            throw TokenError(.invalidInput, "a sealed value's context must not hold a NUL")
        }
        return Base64URL.encode(try AESGCM.seal(plaintext, key: key, authenticating: aad(purpose: purpose, context: context)))
    }

    /// Opens a box sealed for `purpose` and `context`, by the one rule or the purpose's earlier form.
    /// - Returns: the plaintext, or `nil` when the box does not open (another key, another row,
    ///   altered).
    /// - Throws: when `sealed` is not base64url (the codes of `Base64URL.decode(_:what:)`).
    static func open(_ sealed: String, key: [UInt8], purpose: Purpose, context: [String]) throws -> [UInt8]? {
        let box = try Base64URL.decode(sealed, what: purpose.what)
        if context.allSatisfy({ !$0.utf8.contains(0) }),
            let plain = try? AESGCM.open(box, key: key, authenticating: aad(purpose: purpose, context: context))
        {
            return plain
        }
        return try? AESGCM.open(box, key: key, authenticating: purpose.earlierAAD(context))
    }
}

public import JOSE

extension TokenError.Code {
    /// A CBOR item (RFC 8949) that is malformed, of a kind WebAuthn does not use (tags, floats,
    /// indefinite lengths), over a size, depth or count bound, with a duplicate map key, or followed
    /// by trailing bytes.
    public static let malformedCBOR = TokenError.Code("malformed_cbor", .rejected)
    /// A WebAuthn response whose structure is wrong: authenticator data too short or with trailing
    /// bytes, an attestation object without its members, client data that is not the JSON it must be.
    public static let webAuthnMalformed = TokenError.Code("webauthn_malformed", .rejected)
    /// The client data's `type` is not the ceremony's (`webauthn.create`, `webauthn.get`).
    public static let webAuthnWrongType = TokenError.Code("webauthn_wrong_type", .rejected)
    /// The client data's challenge is not the one issued.
    public static let webAuthnChallengeMismatch = TokenError.Code("webauthn_challenge_mismatch", .rejected)
    /// The client data's origin is not an accepted one, or `crossOrigin` is true.
    public static let webAuthnOriginMismatch = TokenError.Code("webauthn_origin_mismatch", .rejected)
    /// The authenticator data's `rpIdHash` is not SHA-256 of the relying party id.
    public static let webAuthnRPIDMismatch = TokenError.Code("webauthn_rp_id_mismatch", .rejected)
    /// The authenticator data's UP flag is not set.
    public static let webAuthnUserNotPresent = TokenError.Code("webauthn_user_not_present", .rejected)
    /// User verification is required and the authenticator data's UV flag is not set.
    public static let webAuthnUserNotVerified = TokenError.Code("webauthn_user_not_verified", .rejected)
    /// The signature counter did not grow although one side is non-zero: a cloned authenticator.
    public static let webAuthnCounterRegressed = TokenError.Code("webauthn_counter_regressed", .rejected)
    /// A COSE key type or algorithm, or an attestation format, that is not accepted.
    public static let webAuthnUnsupported = TokenError.Code("webauthn_unsupported", .rejected)
    /// An attestation statement that does not fit its format (members, algorithm, certificate).
    public static let webAuthnAttestationInvalid = TokenError.Code("webauthn_attestation_invalid", .rejected)

    /// Every code of WebAuthn (passkeys) and its CBOR; a bad signature is JOSE's `invalid_signature`.
    public static let webAuthnCodes: [TokenError.Code] = [
        .malformedCBOR, .webAuthnMalformed, .webAuthnWrongType, .webAuthnChallengeMismatch, .webAuthnOriginMismatch,
        .webAuthnRPIDMismatch, .webAuthnUserNotPresent, .webAuthnUserNotVerified, .webAuthnCounterRegressed,
        .webAuthnUnsupported, .webAuthnAttestationInvalid,
    ]
}

public import JOSE

/// A passkey sign-in whose assertion verified (WebAuthn Level 2 §7.2): what to store back.
public struct VerifiedAssertion: Sendable {
    /// The new signature counter, to store for the next assertion.
    public let signCount: UInt32
    public let userVerified: Bool
    public let backupEligible: Bool
    public let backedUp: Bool
}

extension WebAuthnRelyingParty {
    /// Verifies an assertion (§7.2) by a stored credential: the client data (type `webauthn.get`,
    /// the challenge, the origin, not cross-origin), the authenticator data (rpIdHash, UP, UV as
    /// ``userVerification`` says), the signature over `authenticatorData ‖ SHA-256(clientDataJSON)`
    /// with the stored key (ECDSA in DER), and the counter rule (§6.1.1): when the stored or the new
    /// counter is non-zero, the new one must be greater, else the authenticator may be a clone.
    ///
    /// The caller has found the credential by its id, and checks that `userHandle`, when sent, is
    /// the credential's owner.
    /// - Parameters:
    ///   - publicKey: the stored key (``VerifiedCredential/publicKey``), `algorithm` its algorithm.
    ///   - storedSignCount: the counter stored at registration or the last assertion.
    /// - Throws: which step refused: `webauthn_malformed`, `malformed_cbor`, `webauthn_wrong_type`,
    ///   `webauthn_challenge_mismatch`, `webauthn_origin_mismatch`, `webauthn_rp_id_mismatch`,
    ///   `webauthn_user_not_present`, `webauthn_user_not_verified`, `invalid_signature`,
    ///   `webauthn_counter_regressed`.
    public func verifyAssertion(
        clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8], challenge: [UInt8],
        publicKey: JWK, algorithm: JWSAlgorithm, storedSignCount: UInt32
    ) throws -> VerifiedAssertion {
        let clientDataHash = try checkClientData(clientDataJSON, type: "webauthn.get", challenge: challenge)
        let data = try AuthenticatorData(authenticatorData)
        try checkFlags(data)
        guard try publicKey.verify(signature: signature, over: authenticatorData + clientDataHash, algorithm: algorithm, encoding: .der) else {
            throw TokenError(.invalidSignature, "the assertion signature does not verify")
        }
        if (data.signCount != 0 || storedSignCount != 0) && data.signCount <= storedSignCount {
            throw TokenError(.webAuthnCounterRegressed, "the signature counter did not grow: the authenticator may be cloned")
        }
        return VerifiedAssertion(
            signCount: data.signCount, userVerified: data.userVerified, backupEligible: data.backupEligible, backedUp: data.backedUp)
    }
}

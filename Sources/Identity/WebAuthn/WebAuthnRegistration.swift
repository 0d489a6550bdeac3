public import JOSE

/// A passkey whose registration verified (WebAuthn Level 2 §7.1): what to store.
public struct VerifiedCredential: Sendable {
    /// How the attestation statement vouched for the key.
    public enum AttestationType: String, Sendable, Hashable {
        /// Format `none`: nothing.
        case none
        /// Format `packed` without `x5c`: signed by the credential key itself.
        case `self`
        /// Format `packed` with `x5c`: signed by the leaf certificate's key. The chain is not
        /// checked against any trust store: it says which model made the key, not that it is genuine.
        case basicUntrusted = "basic"
    }

    /// The credential id (raw bytes; base64url in WebAuthn's JSON).
    public let id: [UInt8]
    /// The public key as a JWK (its `alg` pinned), the form to store; ``algorithm`` is its algorithm.
    public let publicKey: JWK
    public let algorithm: JWSAlgorithm
    /// The signature counter at registration.
    public let signCount: UInt32
    /// UV was set.
    public let userVerified: Bool
    /// BE was set: the credential may be synced to other devices.
    public let backupEligible: Bool
    /// BS was set: the credential is synced now.
    public let backedUp: Bool
    /// The authenticator model's AAGUID (zeros under `none`).
    public let aaguid: [UInt8]
    public let attestationType: AttestationType
}

extension WebAuthnRelyingParty {
    /// Verifies a registration (§7.1): the client data (type `webauthn.create`, the challenge, the
    /// origin, not cross-origin), the attestation object (`fmt`, `attStmt`, `authData`), the
    /// authenticator data (rpIdHash, UP, UV as ``userVerification`` says, attested credential data
    /// with an accepted COSE key), and the attestation statement: `none` (empty), or `packed`
    /// (§8.2) self attestation (signed by the credential key with its algorithm) or with `x5c`
    /// (signed by the leaf certificate's key; neither the chain nor the leaf's extensions are
    /// checked against any trust store).
    ///
    /// - Parameters:
    ///   - clientDataJSON: `response.clientDataJSON`, decoded from base64url.
    ///   - attestationObject: `response.attestationObject`, decoded from base64url.
    ///   - challenge: the challenge issued for this ceremony (its raw bytes).
    /// - Throws: which step refused: `webauthn_malformed`, `malformed_cbor`, `webauthn_wrong_type`,
    ///   `webauthn_challenge_mismatch`, `webauthn_origin_mismatch`, `webauthn_rp_id_mismatch`,
    ///   `webauthn_user_not_present`, `webauthn_user_not_verified`, `webauthn_unsupported`,
    ///   `webauthn_attestation_invalid`, `invalid_signature`.
    public func verifyRegistration(clientDataJSON: [UInt8], attestationObject: [UInt8], challenge: [UInt8]) throws -> VerifiedCredential {
        let clientDataHash = try checkClientData(clientDataJSON, type: "webauthn.create", challenge: challenge)
        guard let object = try CBOR.decode(attestationObject).mapValue, let format = object["fmt"]?.textValue,
            let statement = object["attStmt"]?.mapValue, let authData = object["authData"]?.bytesValue
        else { throw TokenError(.webAuthnMalformed, "the attestation object lacks fmt, attStmt or authData") }
        let data = try AuthenticatorData(authData)
        try checkFlags(data)
        guard let credential = data.attestedCredential else {
            throw TokenError(.webAuthnMalformed, "the authenticator data of a registration has no attested credential (AT)")
        }
        let type: VerifiedCredential.AttestationType
        switch format {
        case "none":
            guard statement.count == 0 else { throw TokenError(.webAuthnAttestationInvalid, "attestation none has a non-empty statement") }
            type = .none
        case "packed":
            type = try Self.verifyPacked(statement, signed: authData + clientDataHash, credentialKey: credential.publicKey)
        default:
            throw TokenError(.webAuthnUnsupported, "attestation format \"\(format.prefix(32))\" is not accepted; none and packed are")
        }
        return VerifiedCredential(
            id: credential.credentialID, publicKey: credential.publicKey.key, algorithm: credential.publicKey.algorithm,
            signCount: data.signCount, userVerified: data.userVerified, backupEligible: data.backupEligible,
            backedUp: data.backedUp, aaguid: credential.aaguid, attestationType: type)
    }

    /// §8.2 packed: `{alg, sig}` signed by the credential key, or `{alg, sig, x5c}` by the leaf's key.
    static func verifyPacked(_ statement: CBORMap, signed: [UInt8], credentialKey: COSEKey) throws -> VerifiedCredential.AttestationType {
        guard let alg = statement["alg"]?.intValue, let signature = statement["sig"]?.bytesValue else {
            throw TokenError(.webAuthnAttestationInvalid, "the packed statement lacks alg or sig")
        }
        guard let x5c = statement["x5c"] else {
            guard statement.count == 2 else { throw TokenError(.webAuthnAttestationInvalid, "the packed statement has unknown members") }
            // §8.2 step "If x5c is not present": alg must be the credential key's.
            guard alg == credentialKey.coseAlgorithm else {
                throw TokenError(.webAuthnAttestationInvalid, "the self attestation's alg is not the credential key's")
            }
            try credentialKey.verify(signature: signature, over: signed)
            return .self
        }
        guard statement.count == 3, let chain = x5c.arrayValue, let leaf = chain.first?.bytesValue, chain.allSatisfy({ $0.bytesValue != nil }) else {
            throw TokenError(.webAuthnAttestationInvalid, "the packed statement's x5c is not a list of certificates")
        }
        guard let (algorithm, _) = COSEKey.accepted[alg] else {
            throw TokenError(.webAuthnUnsupported, "attestation algorithm \(alg) is not accepted")
        }
        let key: JWK
        do { key = try JWK(der: leaf) } catch { throw TokenError(.webAuthnAttestationInvalid, "the attestation certificate cannot be read") }
        guard (try? key.verify(signature: signature, over: signed, algorithm: algorithm, encoding: .der)) == true else {
            throw TokenError(.invalidSignature, "the attestation signature does not verify with the certificate's key")
        }
        return .basicUntrusted
    }
}

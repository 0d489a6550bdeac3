/// The secret or the OpenSSL key behind a ``JWK``. Both cases are immutable reference owners.
enum KeyMaterial: Sendable {
    case secret(HMACKey)
    case evp(EVPKey)
}

import Hummingbird

/// `none` (RFC 7591 §2): a public client names itself with the form's `client_id` and proves
/// nothing. The method of a request that presents no other.
struct NoClientAuthentication: ClientAuthMethod {
    static let name = "none"
    static let provesSecret = false

    static func credentials(_ request: Request, form: OAuthForm) throws -> ClientCredentials? {
        ClientCredentials(id: form.optional("client_id"))
    }
}

import Hummingbird

/// `client_secret_post` (RFC 6749 §2.3.1): the form's `client_id` and `client_secret`.
struct ClientSecretPost: ClientAuthMethod {
    static let name = "client_secret_post"
    static let provesSecret = true

    static func credentials(_ request: Request, form: OAuthForm) throws -> ClientCredentials? {
        guard let secret = form.optional("client_secret") else { return nil }
        return ClientCredentials(id: form.optional("client_id"), secret: secret)
    }
}

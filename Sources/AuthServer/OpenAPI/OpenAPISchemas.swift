import OpenAPIKit

/// The JSON Schemas of the document's bodies, written as values (the server's answers as its
/// routes build them).
enum OpenAPISchemas {
    /// An object with `required` members, and `optional` ones that may be absent; other members
    /// are allowed unless `closed`.
    static func object(
        _ required: KeyValuePairs<String, JSONSchema>, optional: KeyValuePairs<String, JSONSchema> = [:], closed: Bool = false,
        description: String? = nil
    ) -> JSONSchema {
        var properties = OrderedDictionary<String, JSONSchema>()
        for (name, schema) in required { properties[name] = schema.requiredSchemaObject() }
        for (name, schema) in optional { properties[name] = schema.optionalSchemaObject() }
        return .object(description: description, properties: properties, additionalProperties: closed ? .a(false) : nil)
    }

    /// One of `values`.
    static func oneOf(_ values: [String], description: String? = nil) -> JSONSchema {
        .string(description: description, allowedValues: values.map { AnyCodable($0) })
    }

    /// A BSON ObjectId's 24 lower-case hex digits (API key ids, device ids).
    static let objectID = JSONSchema.string(pattern: "^[0-9a-f]{24}$")
    /// A JWT in its compact serialization.
    static let jwt = JSONSchema.string(description: "a JWT (compact serialization)")
    /// Seconds since 1970.
    static let unixTime = JSONSchema.integer(description: "seconds since 1970-01-01T00:00:00Z")
    /// `{}`.
    static let empty = object([:], closed: true)

    /// An App Services error body: `{"error","error_code","link"}`, `error_code` one of `names`.
    static func appServicesError(_ names: [String]) -> JSONSchema {
        object(
            [
                "error": .string(description: "a readable message"), "error_code": oneOf(names),
                "link": .string(description: "PUBLIC_URL/errors#NAME"),
            ],
            description: "an App Services error")
    }

    /// An RFC 6749 §5.2 error body, `error` one of `codes`.
    static func oauthError(_ codes: [String]) -> JSONSchema {
        object(
            ["error": oneOf(codes), "error_description": .string(pattern: "^[\\x20-\\x21\\x23-\\x5B\\x5D-\\x7E]*$")],
            description: "an RFC 6749 §5.2 error")
    }

    /// A login's answer; a link (`?link=true`) has no `refresh_token`.
    static let login = object(
        ["access_token": jwt, "user_id": .string, "device_id": objectID],
        optional: ["refresh_token": .string(description: "the session's refresh token")])
    /// A refresh's answer; `refresh_token` only with `refresh_rotation`.
    static let refresh = object(["access_token": jwt], optional: ["refresh_token": .string])
    /// `GET BASE/auth/sessions`: the user's live sessions in the bearer's app.
    static let sessions = JSONSchema.array(
        items: object([
            "id": .string, "device_id": .string(nullable: true), "platform": .string(nullable: true), "device_name": .string(nullable: true),
            "created_at": unixTime, "last_used_at": unixTime, "current": .boolean,
        ]))
    /// `GET BASE/auth/profile`.
    static let profile = object([
        "user_id": .string, "domain_id": .string(allowedValues: [""]),
        "identities": .array(items: object(["id": .string, "provider_type": .string, "provider_id": .string])),
        "data": object(
            [:], optional: ["name": .string, "email": .string, "picture_url": .string, "picture": .string, "first_name": .string, "last_name": .string], closed: true),
        "type": oneOf(["normal"]),
    ])
    /// An API key as lists show it (never the key).
    static let apiKey = object(["_id": objectID, "name": .string, "disabled": .boolean])
    /// A new API key: the key itself only here.
    static let newAPIKey = object(["_id": objectID, "key": .string, "name": .string, "disabled": .boolean])
    /// `GET BASE/app/{app}/location`.
    static let location = object([
        "deployment_model": oneOf(["GLOBAL"]), "location": oneOf(["local"]), "hostname": .string(format: .uri),
        "ws_hostname": .string(format: .uri),
    ])
    /// The key ring's public keys (RFC 7517 §5).
    static let jwks = object([
        "keys": .array(items: object(["kty": .string, "kid": .string, "alg": .string, "use": oneOf(["sig"])]))
    ])
    /// RFC 8414 §2 metadata (also served as `openid-configuration`).
    static let metadata = object(
        [
            "issuer": .string, "jwks_uri": .string(format: .uri), "token_endpoint": .string(format: .uri),
            "grant_types_supported": .array(items: .string), "response_types_supported": .array(items: .string),
        ],
        optional: [
            "introspection_endpoint": .string(format: .uri), "revocation_endpoint": .string(format: .uri),
            "token_endpoint_auth_methods_supported": .array(items: .string),
        ])
    /// RFC 6749 §5.1: the token endpoint's answer.
    static let tokenAnswer = object([
        "access_token": jwt, "token_type": oneOf(["Bearer"]), "expires_in": .integer(minimum: (0, exclusive: false)),
        "refresh_token": .string,
    ])
    /// RFC 7662 §2.2: `{"active":false}` alone for a token that is not live.
    static let introspection = object(
        ["active": .boolean],
        optional: [
            "sub": .string, "client_id": .string, "aud": .any(of: [.string, .array(items: .string)]), "iss": .string, "exp": unixTime,
            "iat": unixTime, "sid": .string, "jti": .string, "token_type": oneOf(["Bearer"]),
        ])
}

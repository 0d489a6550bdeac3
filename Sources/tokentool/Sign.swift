import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials  // not all of Foundation: see docs/performance.md, "Start-up"
#else
    import Foundation
#endif
import JOSE

/// `tokentool sign`: makes a compact JWT from claims and a private key or secret.
struct Sign: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Sign claims into a compact JWT.",
        discussion: """
            Claims come from --claims (a JSON object, - for standard input), then --set NAME=VALUE \
            (VALUE is parsed as JSON when it parses, e.g. 42, true, ["a","b"]; otherwise it is a string; \
            iss, sub and jti always stay strings). \
            iat is set to now unless present or --no-iat; --expires-in sets exp = now + DURATION.
            The algorithm defaults to the key's own (JWK alg), else RS256, ES256/384/512 by curve, EdDSA or HS256.
            Prints the token. Exit codes: 0 signed, 2 usage or configuration error (any error: no token is judged here).
            """)

    /// `--key FILE` (one private key) or `--secret-file FILE` (HMAC).
    @OptionGroup var key: KeyOptions

    @Option(name: .customLong("alg"), help: ArgumentHelp("The JWS algorithm; must be one the key allows.", valueName: "ALG"))
    var algorithm: String?

    @Option(name: .customLong("kid"), help: ArgumentHelp("The header kid (default: the key's kid, if it has one).", valueName: "KID"))
    var keyID: String?

    @Option(name: .customLong("typ"), help: ArgumentHelp("The header typ.", valueName: "TYP"))
    var type: String = "JWT"

    @Option(name: .customLong("claims"), help: ArgumentHelp("A JSON object of claims, or - for standard input.", valueName: "FILE"))
    var claimsFile: String?

    @Option(name: .customLong("set"), help: ArgumentHelp("Set one claim (repeatable; applied after --claims).", valueName: "NAME=VALUE"))
    var settings: [String] = []

    @Option(name: .customLong("expires-in"), help: ArgumentHelp("Set exp this long after now: 90s, 30m, 1h, 2d, 1h30m.", valueName: "DURATION"))
    var expiresIn: String?

    /// `--now`: the time of iat and exp.
    @OptionGroup var clock: ClockOption

    @Flag(name: .customLong("no-iat"), help: "Do not add iat.")
    var noIssuedAt = false

    func run() throws {
        try configurationErrors {
            let key = try loadKey()
            var claims = JSONObject()
            if let claimsFile {
                let text = try readFileText(claimsFile)
                let parsed: JSONValue
                do { parsed = try JSONValue(parsing: text) } catch let e as TokenError {
                    throw TokenError(.invalidInput, "--claims \(claimsFile): \(e.message)")
                }
                guard let object = parsed.objectValue else {
                    throw TokenError(.invalidInput, "--claims \(claimsFile) holds a JSON \(parsed.typeName); expected an object")
                }
                claims = object
            }
            for setting in settings {
                guard let eq = setting.firstIndex(of: "="), eq != setting.startIndex else {
                    throw TokenError(.invalidInput, "--set \"\(setting.prefix(40))\" is not NAME=VALUE")
                }
                let name = String(setting[..<eq]), raw = String(setting[setting.index(after: eq)...])
                // A value that parses as JSON is that value (42, true, null, ["a"], "quoted"); anything else is a string.
                // iss, sub and jti are StringOrURI (RFC 7519 §4.1): `--set sub=42` means the string "42".
                let parsed = (try? JSONValue(parsing: raw)) ?? .string(raw)
                claims[name] = ["iss", "sub", "jti"].contains(name) && parsed.stringValue == nil ? .string(raw) : parsed
            }
            let nowSeconds = Int64(clock.clock.now().timeIntervalSince1970.rounded(.down))
            if !noIssuedAt && claims["iat"] == nil { claims["iat"] = .int(nowSeconds) }
            if let expiresIn {
                let seconds = try parseDuration(expiresIn, flag: "--expires-in")
                guard seconds > 0 else { throw TokenError(.invalidInput, "--expires-in must be longer than 0s") }
                claims["exp"] = .int(nowSeconds + seconds)
            }
            var signer = try JWTSigner(key: key, algorithm: try algorithm.map(parseAlgorithmFlag), keyID: keyID)
            signer.type = type.isEmpty ? nil : type
            print(try signer.sign(ClaimSet(claims)))
        }
    }

    private func loadKey() throws -> JWK {
        guard key.keys.count <= 1 else { throw TokenError(.invalidInput, "give one --key: a token is signed with one key") }
        switch (key.keys.first, key.secretFile) {
        case (nil, nil): throw TokenError(.invalidInput, "no signing key: give --key FILE or --secret-file FILE")
        case (.some, .some): throw TokenError(.invalidInput, "give --key or --secret-file, not both")
        case (let path?, nil):
            let key = try KeyFile.readSingle(path: path)
            guard key.isPrivate else {
                throw TokenError(.invalidKey, "\(path) holds a public key; signing needs the private key")
            }
            return key
        case (nil, let path?): return try KeyFile.readSecret(path: path)
        }
    }
}

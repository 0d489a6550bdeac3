import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials  // not all of Foundation: see docs/performance.md, "Start-up"
#else
    import Foundation
#endif
import JOSE
#if TOKENTOOL_FULL
    import Identity
#endif

/// `tokentool verify`: checks a token's signature against trusted keys, then its claims.
struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify a JWT's signature and claims against trusted keys.",
        discussion: """
            Give at least one key: --jwks FILE, --key FILE (PEM: SPKI, PKCS#1 RSA public key, X.509 \
            certificate, or a private key whose public half is used; or a JWK or JWKS file), or \
            --secret-file FILE for HMAC. The keys decide which algorithms are allowed (JWK "alg", \
            else the key type and curve), never the token header; --alg narrows them further.
            exp, nbf and iat are always checked when present; iss, aud, typ and other claims only \
            when asked with --iss, --aud, --typ, --require.
            --json prints {"valid":true,"header":…,"payload":…,"kid":…} or {"valid":false,"error":{…}}.
            Exit codes: 0 valid, 1 token rejected, 2 usage or configuration error (unreadable key, bad JWKS).
            """)

    @Option(name: .customLong("jwks"), help: ArgumentHelp("A JWK Set file of trusted keys (repeatable).", valueName: "FILE"))
    var jwks: [String] = []

    /// `--key FILE` (repeatable: every key is trusted), `--secret-file FILE`.
    @OptionGroup var key: KeyOptions

    @Option(
        name: .customLong("kid"),
        help: ArgumentHelp("Give this kid to the --key/--secret-file keys that have none (PEM and secrets cannot carry one).", valueName: "KID"))
    var keyID: String?

    @Option(name: .customLong("alg"), help: ArgumentHelp("Accept only these algorithms (repeatable; narrows what the keys allow).", valueName: "ALG"))
    var algorithms: [String] = []

    @Option(name: .customLong("iss"), help: ArgumentHelp("Accepted issuer (repeatable; exact match).", valueName: "ISS"))
    var issuers: [String] = []

    @Option(name: .customLong("aud"), help: ArgumentHelp("Accepted audience (repeatable; the token's aud must contain one).", valueName: "AUD"))
    var audiences: [String] = []

    @OptionGroup var leeway: LeewayOption

    @OptionGroup var clock: ClockOption

    @Option(name: .customLong("require"), help: ArgumentHelp("A claim that must be present (repeatable).", valueName: "CLAIM"))
    var required: [String] = []

    @Option(
        name: .customLong("typ"),
        help: ArgumentHelp("Expected header typ (e.g. at+jwt; case-insensitive, application/ prefix ignored).", valueName: "TYP"))
    var type: String?

    @Flag(help: "Check the signature only, of any JWS: the payload need not be JSON and no claim is checked.")
    var jws = false

    /// `{"valid":true,"header":…,"payload":…,"kid":…}` or `{"valid":false,"error":{…}}`.
    @OptionGroup var output: JSONOption

    @Argument(help: ArgumentHelp("The compact JWT, or - to read it from standard input.", valueName: "jwt"))
    var token: String

    /// What was asked, as a plain value: the fast path (VerifyFastPath.swift) builds the same one.
    var request: VerifyRequest {
        VerifyRequest(
            jwks: jwks, keys: key.keys, secretFile: key.secretFile, keyID: keyID, algorithms: algorithms,
            issuers: issuers, audiences: audiences, leeway: leeway.leeway, now: clock.now, required: required,
            type: type, jws: jws, json: output.json, token: token)
    }

    func run() throws {
        try request.run()
    }
}

/// One `tokentool verify` invocation, parsed: by ArgumentParser (`Verify.request`) or, for the
/// plain invocations scripts run once per token, by `VerifyRequest(fastPath:)`.
struct VerifyRequest: Equatable {
    var jwks: [String] = []
    var keys: [String] = []
    var secretFile: String?
    var keyID: String?
    var algorithms: [String] = []
    var issuers: [String] = []
    var audiences: [String] = []
    var leeway = "0"
    var now: Int64?
    var required: [String] = []
    var type: String?
    var jws = false
    var json = false
    var token: String

    func run() throws {
        try reportingErrors(json: json) {
            let (set, sources) = try loadTrustedKeys()
            var options = VerifierOptions(
                issuers: Set(issuers), audiences: Set(audiences), requiredClaims: Set(required),
                type: type, leeway: TimeInterval(try LeewayOption.seconds(leeway)), clock: tokenClock(now: now))
            if !algorithms.isEmpty { options.algorithms = Set(try algorithms.map(parseAlgorithmFlag)) }
            if jws {
                let ignored = [
                    ("--iss", !issuers.isEmpty), ("--aud", !audiences.isEmpty), ("--require", !required.isEmpty),
                    ("--typ", type != nil), ("--leeway", leeway != "0"), ("--now", now != nil),
                ].filter(\.1).map(\.0)
                if !ignored.isEmpty {
                    throw TokenError(
                        .invalidInput,
                        "--jws checks the signature only; \(ignored.joined(separator: ", ")) would not be checked. Drop --jws to check claims")
                }
            }
            if token == "-" && secretFile == "-" {
                throw TokenError(.invalidInput, "the token and --secret-file cannot both come from standard input")
            }
            let text = try readTokenArgument(token)
            let verifier = JWTVerifier(keys: set, options: options)
            do {
                try check(text, verifier, sources, options)
            } catch let e as TokenError where e.code == .keyNotFound && keyID == nil {
                throw hinted(e, token: text, sources: sources)
            }
        }
    }

    private func check(_ text: String, _ verifier: JWTVerifier, _ sources: [KeyFromFile], _ options: VerifierOptions) throws {
        if jws {
            let result = try verifier.verifySignature(text)
            if json {
                printJSON(
                    .object([
                        "valid": true, "header": .object(result.header.members), "payload_b64": .string(result.payloadBase64URL),
                        "kid": result.keyID.map(JSONValue.string) ?? .null,
                    ]))
            } else {
                printSignatureOnly(result, key: describe(result.key, from: sources))
            }
        } else {
            let result = try verifier.verify(text)
            if json {
                printJSON(
                    .object([
                        "valid": true, "header": .object(result.header.members), "payload": .object(result.claims.object),
                        "kid": result.keyID.map(JSONValue.string) ?? .null,
                    ]))
            } else {
                printValid(
                    result, key: describe(result.key, from: sources),
                    now: options.clock.now().timeIntervalSince1970)
            }
        }
    }

    /// A token with a kid meets keys from PEM files or secrets, which cannot carry one: say how to pair them.
    private func hinted(_ error: TokenError, token: String, sources: [KeyFromFile]) -> TokenError {
        guard let kid = (try? UnverifiedToken(token))?.header?.keyID,
            let bare = sources.first(where: { $0.key.keyID == nil && !jwks.contains($0.source) })
        else { return error }
        let shown = kid.count > 64 ? String(kid.prefix(64)) + "…" : kid
        return TokenError(
            error.code, "\(error.message); \(bare.source) has no kid: pass --kid \"\(shown)\" to use it for this token", claim: error.claim)
    }

    /// Every trusted key, as one set. A single JWKS file is used as read, so a token naming one
    /// of its refused keys hears why that key was refused.
    private func loadTrustedKeys() throws -> (JWKSet, [KeyFromFile]) {
        if jwks.isEmpty && keys.isEmpty && secretFile == nil {
            throw TokenError(.invalidInput, "no trusted key: give --key FILE, --jwks FILE or --secret-file FILE")
        }
        var sources: [KeyFromFile] = []
        var sets: [JWKSet] = []
        for path in jwks {
            if path.hasPrefix("http://") || path.hasPrefix("https://") {
                let s = try fetchJWKS(path)
                warnAboutRefusedKeys(s, in: path)
                sets.append(s)
                sources += s.keys.map { KeyFromFile(key: $0, source: path) }
                continue
            }
            switch try KeyFile.read(path: path) {
            case .set(let s):
                warnAboutRefusedKeys(s, in: path)
                sets.append(s)
                sources += s.keys.map { KeyFromFile(key: $0, source: path) }
            case .key:
                throw TokenError(.invalidKey, "\(path) is a single key, not a JWK Set ({\"keys\":[…]}); pass it with --key")
            }
        }
        for path in keys {
            let contents = try KeyFile.read(path: path)
            if case .set(let s) = contents { warnAboutRefusedKeys(s, in: path); sets.append(s) }
            // A private key's public half is all verification needs.
            sources += contents.keys.map { KeyFromFile(key: $0.keyType == .oct ? $0 : $0.publicKey, source: path) }
        }
        if let secretFile {
            sources.append(KeyFromFile(key: try KeyFile.readSecret(path: secretFile), source: secretFile))
        }
        if let keyID {
            for i in sources.indices where sources[i].key.keyID == nil && !jwks.contains(sources[i].source) {
                sources[i].key.keyID = keyID
            }
        }
        if sets.count == 1, sources.count == sets[0].keys.count, !sets[0].keys.contains(where: \.isPrivate) {
            return (sets[0], sources)
        }
        do {
            // The kids of keys the files refused stay in the set: a usable key sharing one is ambiguous.
            return (try JWKSet(keys: sources.map(\.key), rejected: sets.flatMap(\.rejected)), sources)
        } catch let e as TokenError {
            throw TokenError(e.code, "the trusted keys: \(e.message)")
        }
    }

    /// A JWKS from a URL, through the Identity module's fetcher (https, or http on loopback only;
    /// size and time bounded). The core-only build has no HTTP client. The one network wait of
    /// an otherwise synchronous command.
    private func fetchJWKS(_ url: String) throws -> JWKSet {
        #if TOKENTOOL_FULL
            return try runBlocking { try await withTransport { transport in try await RemoteJWKS(url: url, transport: transport).keys() } }
        #else
            throw TokenError(
                .invalidInput,
                "--jwks \(url): this build has no HTTP client (TOKENTOOL_CORE_ONLY); save it first (curl -fsS -o jwks.json URL) and pass --jwks jwks.json"
            )
        #endif
    }

    /// The key that verified (the verifier says which) and the file it came from.
    private func describe(_ key: JWK, from sources: [KeyFromFile]) -> String {
        let thumbprint = try? key.thumbprint()
        let source =
            sources.count == 1
            ? sources.first
            : sources.first { $0.key.keyID == key.keyID && (try? $0.key.thumbprint()) == thumbprint }
        return key.summary + (source.map { " (from \($0.source))" } ?? "")
    }

    private func printValid(_ result: VerifiedToken<ClaimSet>, key: String, now: Double) {
        let claims = result.claims
        var lines = ["valid", "  key      \(key)", "  alg      \(result.header.algorithm.rawValue)"]
        if let typ = result.header.type { lines.append("  typ      \(typ)") }
        for name in ["iss", "sub", "aud"] {
            if let v = claims[name] { lines.append("  \(name)      \(describeValue(v))") }
        }
        for name in ["exp", "nbf", "iat"] {
            if let v = claims[name] { lines.append("  \(name)      \(describeTime(claim: name, value: v, now: now))") }
        }
        let registered: Set<String> = ["iss", "sub", "aud", "exp", "nbf", "iat"]
        let others = claims.object.keys.filter { !registered.contains($0) }
        if !others.isEmpty { lines.append("  claims   \(others.joined(separator: ", "))") }

        var checked = ["signature"]
        let times = ["exp", "nbf", "iat"].filter { claims[$0] != nil }
        if !times.isEmpty { checked.append(times.joined(separator: "/") + " against \(UTCTime.format(now))") }
        if !issuers.isEmpty { checked.append("iss") }
        if !audiences.isEmpty { checked.append("aud") }
        if type != nil { checked.append("typ") }
        if !required.isEmpty { checked.append("required " + required.joined(separator: ", ")) }
        lines.append("  checked  \(checked.joined(separator: ", "))")
        var unchecked: [String] = []
        if issuers.isEmpty, claims["iss"] != nil { unchecked.append("iss (add --iss)") }
        if audiences.isEmpty, claims["aud"] != nil { unchecked.append("aud (add --aud)") }
        if claims["exp"] == nil { unchecked.append("no exp: the token never expires") }
        if !unchecked.isEmpty { lines.append("  not checked  \(unchecked.joined(separator: ", "))") }
        print(lines.joined(separator: "\n"))
    }

    private func printSignatureOnly(_ result: VerifiedJWS, key: String) {
        var lines = ["valid signature (claims not checked: --jws)", "  key      \(key)", "  alg      \(result.header.algorithm.rawValue)"]
        if let text = String(validating: result.payload, as: UTF8.self),
            !text.contains(where: { $0.isNewline == false && $0.asciiValue.map { $0 < 0x20 } == true })
        {
            lines.append("  payload  \(result.payload.count) bytes: \(text)")
        } else {
            lines.append("  payload  \(result.payload.count) bytes (binary), base64url \(result.payloadBase64URL)")
        }
        print(lines.joined(separator: "\n"))
    }
}

import Foundation
import Testing
@testable import JOSE

/// Runs independent implementations (joserfc under python3, the openssl command line) as
/// child processes. A missing tool is a test failure with a clear message, never a silent skip:
/// `make test` installs both.
enum Interop {
    struct Result {
        let status: Int32
        let stdout: Data
        let stderr: String
    }

    /// Runs `command` (looked up on PATH through /usr/bin/env) with `arguments`.
    static func run(_ command: String, _ arguments: [String], stdin: Data? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [command] + arguments
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        do { try process.run() } catch {
            throw VectorError("cannot start \(command): \(error)")
        }
        // Read both pipes while the child runs, so neither can fill up and block it.
        let group = DispatchGroup()
        nonisolated(unsafe) var out = Data(), err = Data()
        group.enter()
        DispatchQueue.global().async {
            out = output.fileHandleForReading.readDataToEndOfFile(); group.leave()
        }
        group.enter()
        DispatchQueue.global().async {
            err = errors.fileHandleForReading.readDataToEndOfFile(); group.leave()
        }
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        group.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: out, stderr: String(decoding: err, as: UTF8.self))
    }

    /// Runs `openssl` and returns its standard output, or throws with its standard error.
    @discardableResult
    static func openssl(_ arguments: [String], stdin: Data? = nil) throws -> Data {
        let r = try run("openssl", arguments, stdin: stdin)
        guard r.status == 0 else {
            if r.status == 127 { throw VectorError("the openssl command line is required for interop tests (apt-get install openssl)") }
            throw VectorError("openssl \(arguments.joined(separator: " ")) failed (\(r.status)): \(r.stderr)")
        }
        return r.stdout
    }

    /// Sends a batch of requests to the joserfc helper and returns one response per request.
    static func joserfc(_ requests: [VJSON]) throws -> [VJSON] {
        let body = try JSONEncoder().encode(VJSON.array(requests))
        let r = try run("python3", ["-c", joserfcHelper], stdin: body)
        if r.status == 127 {
            throw VectorError("python3 is required for the joserfc interop tests; install it (make test does: apt-get install python3 python3-pip)")
        }
        if r.status == 3 {
            throw VectorError(
                "joserfc is required for the interop tests; install it with: python3 -m pip install joserfc (make test does this). \(r.stderr)")
        }
        guard r.status == 0 else { throw VectorError("joserfc helper failed (\(r.status)): \(r.stderr)") }
        let responses = try JSONDecoder().decode(VJSON.self, from: r.stdout).array
        guard responses.count == requests.count else { throw VectorError("joserfc helper answered \(responses.count) of \(requests.count) requests") }
        return responses
    }

    /// A temporary directory removed when `body` returns.
    static func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tokentool-interop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        return try body(dir)
    }

    /// The joserfc side, run with `python3 -c`. Reads a JSON array of requests on stdin and
    /// writes a JSON array of responses:
    /// - `{"op":"sign","alg":A,"claims":{…}}`: joserfc generates its own key, signs a JWT with
    ///   kid "joserfc-A"; answers `{"token", "jwk"}` (the public JWK; the secret for HS*).
    /// - `{"op":"sign_with","alg":A,"jwk":{private JWK},"payload":text}`: joserfc signs with our key.
    /// - `{"op":"verify","alg":A,"jwk":{public JWK},"token":T}`: answers `{"ok":true,"payload","header"}`
    ///   or `{"ok":false,"error"}`.
    static let joserfcHelper = #"""
        import json, sys, warnings
        warnings.filterwarnings("ignore")  # joserfc warns about non-recommended algorithms such as EdDSA
        try:
            from joserfc import jws, jwt
            from joserfc.jwk import RSAKey, ECKey, OKPKey, OctKey
        except ImportError as e:
            sys.stderr.write("cannot import joserfc: %s\n" % e)
            sys.exit(3)

        IMPORTERS = {"RSA": RSAKey, "EC": ECKey, "OKP": OKPKey, "oct": OctKey}
        CURVES = {"ES256": "P-256", "ES384": "P-384", "ES512": "P-521"}

        def generate(alg):
            if alg.startswith("HS"):
                return OctKey.generate_key(int(alg[2:]))
            if alg.startswith("RS") or alg.startswith("PS"):
                return RSAKey.generate_key(2048)
            if alg in CURVES:
                return ECKey.generate_key(CURVES[alg])
            if alg in ("EdDSA", "Ed25519"):
                return OKPKey.generate_key("Ed25519")
            raise ValueError("unknown alg " + alg)

        def load(jwk):
            return IMPORTERS[jwk["kty"]].import_key(jwk)

        responses = []
        for req in json.load(sys.stdin):
            op, alg = req["op"], req["alg"]
            if op == "sign":
                key = generate(alg)
                token = jwt.encode({"alg": alg, "kid": "joserfc-" + alg}, req["claims"], key, algorithms=[alg])
                public = key.as_dict(private=(alg.startswith("HS")))
                public["kid"] = "joserfc-" + alg
                responses.append({"token": token, "jwk": public})
            elif op == "sign_with":
                token = jws.serialize_compact({"alg": alg}, req["payload"].encode(), load(req["jwk"]), algorithms=[alg])
                responses.append({"token": token})
            elif op == "verify":
                try:
                    obj = jws.deserialize_compact(req["token"], load(req["jwk"]), algorithms=[alg])
                    responses.append({"ok": True, "payload": obj.payload.decode("utf-8"), "header": obj.protected})
                except Exception as e:
                    responses.append({"ok": False, "error": type(e).__name__})
            else:
                raise ValueError("unknown op " + op)
        json.dump(responses, sys.stdout)
        """#
}

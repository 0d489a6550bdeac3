import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials  // not all of Foundation: see docs/performance.md, "Start-up"
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Dispatch
@_spi(Benchmark) import JOSE
import Synchronization

/// `tokentool bench`: how fast sign, verify and decode are, beside the bare OpenSSL primitive
/// on the same bytes (`raw-verify`, `raw-sign`), so the cost of everything around the
/// cryptography reads as a ratio from one run. See docs/performance.md.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure sign, verify and decode throughput against the raw OpenSSL primitive.",
        discussion: """
            One row per algorithm and operation. verify = full JWTVerifier.verify (split, base64url, \
            header and claims JSON, signature, exp); sign = JWTSigner.sign of a prepared ClaimSet; \
            decode = UnverifiedToken. raw-verify / raw-sign = the bare OpenSSL primitive over the same \
            signing input, everything preparable prepared once; verify-cached = JWTVerifier.verify with \
            its verified-token cache holding the token (exp/nbf re-checked, no signature or JSON work); raw-decode = jansson alone parsing and \
            freeing the same header and claims, the floor under decode and verify. Claims: the workload of \
            TestVectors/bench/workload.json (built in). Keys are generated (RSA-2048, P-256, P-384, P-521, \
            Ed25519, HMAC secrets of 32/48/64 bytes for HS256/384/512) unless --keys names a directory \
            with rsa.pem, p256.pem, p384.pem, p521.pem, ed25519.pem and hmac.key (raw secret bytes).
            """)

    @Option(name: .customLong("alg"), help: "Algorithm (repeatable; default: all).")
    var algs: [String] = []

    @Option(
        name: .customLong("op"),
        help:
            "sign, verify or decode (repeatable; default: all). raw-verify / raw-sign / raw-decode run the primitive alone; verify-cached the cached verify alone."
    )
    var ops: [String] = []

    @Option(help: "Timed seconds per row.")
    var seconds: Double = 1

    @Option(help: "Untimed warm-up seconds per row (also sizes batches).")
    var warmup: Double = 0.2

    @Option(help: "Run exactly N operations per row and thread, no warm-up (for callgrind).")
    var iterations: Int?

    @Option(help: "Threads running the operation at once; the row reports their total.")
    var threads: Int = 1

    @Option(help: "Directory with rsa.pem, p256.pem, p384.pem, p521.pem, ed25519.pem, hmac.key (e.g. the peer benchmark's keys/).")
    var keys: String?

    @Option(help: "Claims file (a JSON object) instead of the built-in workload.")
    var workload: String?

    /// One JSON object per line.
    @OptionGroup var output: JSONOption

    @Flag(
        help:
            "Leave out the raw-verify / verify-cached / raw-sign / raw-decode rows that --op verify / sign / decode bring (for instruction counts of one op)."
    )
    var noRaw = false

    static let allOps = ["verify", "raw-verify", "verify-cached", "sign", "raw-sign", "decode", "raw-decode"]

    func validate() throws {
        guard seconds > 0, warmup >= 0 else { throw ValidationError("--seconds must be > 0 and --warmup >= 0") }
        // Each runner is a dispatch queue, and libdispatch caps its threads (255 on Linux): every
        // runner must be running before any is timed, so N stays well under that cap.
        guard threads >= 1, threads <= 64 else { throw ValidationError("--threads must be 1 to 64") }
        if let iterations, iterations < 1 { throw ValidationError("--iterations must be at least 1") }
        for op in ops where !Self.allOps.contains(op) {
            throw ValidationError("unknown --op \(op); expected sign, verify, decode, raw-sign, raw-verify, verify-cached or raw-decode")
        }
    }

    func run() throws {
        // `Ed25519` (RFC 9864) is EdDSA's primitive under another name: one row is enough by default.
        let algorithms = try algs.isEmpty ? JWSAlgorithm.allCases.filter { $0 != .ed25519 } : algs.map(JWSAlgorithm.parse)
        // verify, sign and decode bring their raw rows (verify its cached row too); raw-* alone runs
        // only the primitive.
        var selected: [String] = []
        for op in Self.allOps {
            let base = op == "verify-cached" ? "verify" : op.hasPrefix("raw-") ? String(op.dropFirst(4)) : op
            if ops.isEmpty || ops.contains(op) || (ops.contains(base) && !noRaw) { selected.append(op) }
        }
        let claimsText = try workload.map(readFileText) ?? BenchWorkload.claimsJSON
        guard case .object(let claimsObject) = try JSONValue(parsing: claimsText) else {
            throw TokenError(.invalidInput, "workload is not a JSON object")
        }
        let claims = ClaimSet(claimsObject)
        let benchKeys = BenchKeys(directory: keys)

        var rows: [BenchRow] = []
        if !output.json {
            print(
                "tokentool bench: \(threads) thread\(threads == 1 ? "" : "s"), "
                    + (iterations.map { "\($0) iterations" } ?? "\(seconds) s") + " per row, keys: \(keys ?? "generated")")
        }
        for alg in algorithms {
            var loaded: JWK
            do { loaded = try benchKeys.key(for: alg) } catch let e as TokenError {
                printError("bench: skipping \(alg.rawValue): \(e.message)")
                continue
            }
            loaded.keyID = "bench"  // the kid the workload tokens carry
            let key = loaded
            let signer = try JWTSigner(key: key, algorithm: alg, keyID: "bench")
            let token = try signer.sign(claims)
            let verifier = try JWTVerifier(key: key.publicKey)
            _ = try verifier.verify(token)  // the workload token must verify before anything is timed
            let cachedVerifier = try JWTVerifier(key: key.publicKey, cache: VerifiedTokenCacheLimits())
            _ = try cachedVerifier.verify(token)  // in the cache before anything is timed
            let parts = token.split(separator: ".", omittingEmptySubsequences: false)
            let signingInput = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
            let signature = try Base64URL.decode(String(parts[2]), what: "signature")
            let documents = RawJSONParse(
                header: try Base64URL.decode(String(parts[0]), what: "header"),
                claims: try Base64URL.decode(String(parts[1]), what: "payload"))
            guard documents.parse() else { throw TokenError(.internalError, "raw \(alg.rawValue) JSON parse failed its self-check") }
            let probe = try RawPrimitive(key: key, algorithm: alg, signingInput: signingInput, signature: signature)
            guard probe.verify(), probe.sign() else { throw TokenError(.internalError, "raw \(alg.rawValue) primitive failed its self-check") }

            for op in selected {
                let factory: @Sendable () throws -> () -> Bool
                switch op {
                case "verify": factory = { { (try? verifier.verify(token)) != nil } }
                case "verify-cached": factory = { { (try? cachedVerifier.verify(token)) != nil } }
                case "sign": factory = { { (try? signer.sign(claims)) != nil } }
                case "decode": factory = { { (try? UnverifiedToken(token)) != nil } }
                case "raw-decode": factory = { { documents.parse() } }
                case "raw-verify":
                    factory = {
                        let raw = try RawPrimitive(key: key, algorithm: alg, signingInput: signingInput, signature: signature)
                        return { raw.verify() }
                    }
                default:
                    factory = {
                        let raw = try RawPrimitive(key: key, algorithm: alg, signingInput: signingInput, signature: signature)
                        return { raw.sign() }
                    }
                }
                let (count, elapsed) = try BenchRunner.run(
                    threads: threads, seconds: seconds, warmup: warmup,
                    iterations: iterations, factory: factory)
                let row = BenchRow(alg: alg.rawValue, op: op, iterations: count, seconds: elapsed)
                rows.append(row)
                if output.json {
                    var o: JSONObject = [
                        "alg": .string(row.alg), "op": .string(op), "ops_per_sec": .double((row.opsPerSecond * 10).rounded() / 10),
                        "iterations": .int(Int64(count)), "seconds": .double((elapsed * 10000).rounded() / 10000),
                    ]
                    if threads > 1 { o["threads"] = .int(Int64(threads)) }
                    printJSON(.object(o))
                    fflush(nil)
                }
            }
            if !output.json { printTable(rows.filter { $0.alg == alg.rawValue }, header: alg == algorithms.first) }
        }
    }

    private func printTable(_ rows: [BenchRow], header: Bool) {
        func pad(_ s: String, _ n: Int, left: Bool = false) -> String {
            s.count >= n ? s : (left ? s + String(repeating: " ", count: n - s.count) : String(repeating: " ", count: n - s.count) + s)
        }
        if header {
            print(pad("alg", 6, left: true) + " " + pad("op", 10, left: true) + pad("ops/s", 13) + pad("µs/op", 10) + "   overhead vs raw")
        }
        for r in rows {
            var overhead = ""
            if r.op == "verify-cached", let full = rows.first(where: { $0.op == "verify" }) {
                overhead = "×\(fixed(full.microseconds / r.microseconds, 1)) faster than verify"
            } else if !r.op.hasPrefix("raw-"), let raw = rows.first(where: { $0.op == "raw-" + r.op }) {
                overhead = "\(fixed(r.microseconds - raw.microseconds, 2, sign: true)) µs (×\(fixed(r.microseconds / raw.microseconds, 2)))"
            } else if r.op == "decode" {
                overhead = "+\(fixed(r.microseconds, 2)) µs (no raw-decode row)"
            }
            print(
                pad(r.alg, 6, left: true) + " " + pad(r.op, 10, left: true)
                    + pad(fixed(r.opsPerSecond, 0), 13) + pad(fixed(r.microseconds, 2), 10) + "   " + overhead)
        }
    }
}

/// `x` with `digits` decimals, as `%.<digits>f` printed it before the bench dropped Foundation,
/// except that ties round away from zero and no "-0.00" is shown.
func fixed(_ x: Double, _ digits: Int, sign: Bool = false) -> String {
    guard x.isFinite else { return "\(x)" }
    var scale: Int64 = 1
    for _ in 0..<digits { scale *= 10 }
    let scaled = Int64((abs(x) * Double(scale)).rounded())
    var text = String(scaled / scale)
    if digits > 0 {
        let fraction = String(scaled % scale)
        text += "." + String(repeating: "0", count: digits - fraction.count) + fraction
    }
    if x < 0 && scaled != 0 { return "-" + text }
    return sign ? "+" + text : text
}

private struct BenchRow {
    let alg: String
    let op: String
    let iterations: Int
    let seconds: Double
    var opsPerSecond: Double { seconds > 0 ? Double(iterations) / seconds : 0 }
    /// Time per operation of one thread's worth of work (total throughput's inverse).
    var microseconds: Double { 1e6 / opsPerSecond }
}

/// Where the benchmark keys come from: generated once per run, or read from --keys DIR.
private final class BenchKeys {
    let directory: String?
    private var cache: [String: JWK] = [:]
    init(directory: String?) { self.directory = directory }

    func key(for alg: JWSAlgorithm) throws -> JWK {
        let name: String
        switch alg.scheme {
        case .hmac: name = directory == nil ? "hmac\(alg.hashLength)" : "hmac"
        case .rsaPKCS1, .rsaPSS: name = "rsa"
        case .ecdsa: name = alg == .es256 ? "p256" : (alg == .es384 ? "p384" : "p521")
        case .eddsa: name = "ed25519"
        }
        if let k = cache[name] { try k.check(alg, for: .sign); return k }
        let key: JWK
        if let directory {
            key =
                alg.scheme == .hmac ? try KeyFile.readSecret(path: directory + "/hmac.key") : try KeyFile.readSingle(path: directory + "/\(name).pem")
        } else {
            switch name {
            case "rsa": key = try JWK.generateRSA(bits: 2048)
            case "p256": key = try JWK.generate(curve: .p256)
            case "p384": key = try JWK.generate(curve: .p384)
            case "p521": key = try JWK.generate(curve: .p521)
            case "ed25519": key = try JWK.generate(curve: .ed25519)
            // HS384/HS512 need secrets at least as long as the hash (RFC 7518 §3.2).
            default: key = try JWK.generateSecret(bytes: alg.hashLength)
            }
        }
        cache[name] = key
        try key.check(alg, for: .sign)
        return key
    }
}

/// Runs one operation on N threads at once: warm-up (sizing batches so the clock is read
/// about once a millisecond), then timed batches until `seconds` pass; or exactly `iterations`.
private enum BenchRunner {
    struct Results {
        var counts: [Int] = []
        var elapsed: [Double] = []
        var failure: String?
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

    static func run(
        threads: Int, seconds: Double, warmup: Double, iterations: Int?,
        factory: @escaping @Sendable () throws -> () -> Bool
    ) throws -> (Int, Double) {
        let results = Mutex(Results())
        let ready = DispatchGroup()
        let done = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        for index in 0..<threads {
            ready.enter()
            done.enter()
            // A serial queue of its own per runner: libdispatch gives each one its own thread.
            DispatchQueue(label: "tokentool.bench.\(index)").async {
                defer { done.leave() }
                let op: () -> Bool
                do { op = try factory() } catch {
                    results.withLock { $0.failure = "\(error)" }
                    ready.leave()
                    return
                }
                var batch = 1
                var failed = false
                if iterations == nil {
                    var n = 0
                    let t0 = now()
                    var el = 0.0
                    repeat {
                        if !op() { failed = true; break }
                        n += 1
                        el = now() - t0
                    } while el < warmup
                    batch = max(1, Int(Double(n) / max(el, 1e-9) / 1000))
                }
                ready.leave()
                start.wait()
                var count = 0
                let t0 = now()
                var el = 0.0
                if let iterations {
                    while count < iterations && !failed {
                        if !op() { failed = true }
                        count += 1
                    }
                    el = now() - t0
                } else {
                    repeat {
                        for _ in 0..<batch where !op() { failed = true }
                        count += batch
                        el = now() - t0
                    } while el < seconds && !failed
                }
                results.withLock {
                    if failed { $0.failure = "the operation failed" }
                    $0.counts.append(count)
                    $0.elapsed.append(el)
                }
            }
        }
        ready.wait()
        for _ in 0..<threads { start.signal() }
        done.wait()
        let outcome = results.withLock { $0 }
        if let failure = outcome.failure { throw TokenError(.internalError, "benchmark operation failed: \(failure)") }
        return (outcome.counts.reduce(0, +), outcome.elapsed.max() ?? 0)
    }
}

/// The benchmark claims: a copy of TestVectors/bench/workload.json (the claims of the
/// peer benchmark), built in so `tokentool bench` works from any directory.
enum BenchWorkload {
    static let claimsJSON = #"""
        {
          "iss": "https://accounts.google.com",
          "azp": "1234987819200-okc8ahd6ks5ps8n1ppa5chtrarbh2dso.apps.googleusercontent.com",
          "aud": "1234987819200-okc8ahd6ks5ps8n1ppa5chtrarbh2dso.apps.googleusercontent.com",
          "sub": "110169484474386276334",
          "hd": "example.com",
          "email": "jane.doe@example.com",
          "email_verified": true,
          "at_hash": "HK6E_P6Dh8Y93mRNtsDB1Q",
          "nonce": "0394852-3190485-2490358",
          "name": "Jane Doe",
          "picture": "https://lh3.googleusercontent.com/a/ACg8ocJ0dRgxcHdbhiY0gK7lh3rMZ3x0FjXE=s96-c",
          "given_name": "Jane",
          "family_name": "Doe",
          "locale": "en",
          "iat": 1790000000,
          "exp": 4102444800
        }
        """#
}

import CLIHarness
import Foundation
import JOSE
import Testing
@testable import Sessions

/// TOTP (RFC 6238 with SHA-1, 6 digits, 30 s, one step of drift) against the RFC's own vectors,
/// Debian's `oathtool` and PyPI's `pyotp`; base32 against RFC 4648's vectors.
@Suite struct TOTPTests {
    /// RFC 6238 Appendix B: the SHA-1 seed is the 20 ASCII bytes "12345678901234567890".
    static let rfcSecret = Array("12345678901234567890".utf8)

    /// RFC 6238 Appendix B, the SHA1 rows: (Unix time, 8-digit TOTP).
    static let appendixB: [(Int64, String)] = [
        (59, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"),
        (1_234_567_890, "89005924"), (2_000_000_000, "69279037"), (20_000_000_000, "65353130"),
    ]

    @Test func rfc6238AppendixBVectors() throws {
        let totp = try TOTP(secret: Self.rfcSecret)
        for (time, expected) in Self.appendixB {
            // The 8-digit values check HMAC-SHA-1 and the dynamic truncation; 6 digits are the
            // same 31-bit number modulo 10^6, so the last six digits.
            #expect(try TOTP.hotp(secret: Self.rfcSecret, counter: UInt64(TOTP.step(at: time)), digits: 8) == expected, "t=\(time)")
            #expect(try totp.code(at: time) == String(expected.suffix(6)), "t=\(time)")
        }
    }

    /// RFC 4226 Appendix D: HOTP of the same secret, counters 0 to 9 (6 digits).
    @Test func rfc4226AppendixDVectors() throws {
        let expected = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"]
        for (counter, code) in expected.enumerated() {
            #expect(try TOTP.hotp(secret: Self.rfcSecret, counter: UInt64(counter), digits: 6) == code)
        }
    }

    @Test func stepsAreFloorOfThirtySeconds() {
        #expect(TOTP.step(at: 0) == 0)
        #expect(TOTP.step(at: 29) == 0)
        #expect(TOTP.step(at: 30) == 1)
        #expect(TOTP.step(at: 59) == 1)
        #expect(TOTP.step(at: -1) == -1)
    }

    @Test func acceptsOneStepOfDriftEitherWay() throws {
        let totp = try TOTP(secret: Self.rfcSecret)
        let now: Int64 = 1_234_567_890
        let step = TOTP.step(at: now)
        for drift in -1...1 {
            let code = try totp.code(atStep: step + Int64(drift))
            #expect(try totp.verify(code, at: now, lastAcceptedStep: nil) == step + Int64(drift))
        }
        for drift in [-2, 2, 10] {
            let code = try totp.code(atStep: step + Int64(drift))
            #expect(throws: TokenError(.invalidMFACode, "")) { try totp.verify(code, at: now, lastAcceptedStep: nil) }
        }
    }

    @Test func aCodeIsAcceptedOnce() throws {
        let totp = try TOTP(secret: Self.rfcSecret)
        let now: Int64 = 1_234_567_890
        let code = try totp.code(at: now)
        let step = try totp.verify(code, at: now, lastAcceptedStep: nil)
        // The same code again, in its window: refused.
        #expect(throws: TokenError(.invalidMFACode, "")) { try totp.verify(code, at: now, lastAcceptedStep: step) }
        #expect(throws: TokenError(.invalidMFACode, "")) { try totp.verify(code, at: now + 30, lastAcceptedStep: step) }
        // An older code once a newer one was used: refused, though inside the window.
        let older = try totp.code(atStep: step - 1)
        #expect(throws: TokenError(.invalidMFACode, "")) { try totp.verify(older, at: now, lastAcceptedStep: step) }
        // The next step's code: accepted.
        #expect(try totp.verify(try totp.code(atStep: step + 1), at: now + 30, lastAcceptedStep: step) == step + 1)
    }

    @Test func malformedCodesAreRefused() throws {
        let totp = try TOTP(secret: Self.rfcSecret)
        let good = try totp.code(at: 59)
        #expect(try totp.verify("287 082", at: 59, lastAcceptedStep: nil) == 1)
        for bad in ["", "28708", "2870820", "28708a", "２８７０８２", "287-082", "+287082", "94287082", String(good.reversed())] {
            #expect(throws: TokenError(.invalidMFACode, ""), "\(bad)") { try totp.verify(bad, at: 59, lastAcceptedStep: nil) }
        }
    }

    @Test func secretLengthIsBounded() throws {
        #expect(throws: TokenError(.invalidInput, "")) { try TOTP(secret: [UInt8](repeating: 1, count: 15)) }
        #expect(throws: TokenError(.invalidInput, "")) { try TOTP(secret: [UInt8](repeating: 1, count: 65)) }
        #expect(throws: TokenError(.invalidInput, "")) { try TOTP(base32Secret: "not base32!") }
        let secret = try TOTP.generateSecret()
        #expect(secret.count == 20)
        #expect(try TOTP(secret: secret).base32Secret.count == 32)
        #expect(try TOTP(base32Secret: TOTP(secret: secret).base32Secret.lowercased()).secret == secret)
    }

    /// RFC 4648 §10's base32 vectors, both ways.
    @Test func base32RFC4648Vectors() {
        let vectors = [
            ("", ""), ("f", "MY======"), ("fo", "MZXQ===="), ("foo", "MZXW6==="), ("foob", "MZXW6YQ="),
            ("fooba", "MZXW6YTB"), ("foobar", "MZXW6YTBOI======"),
        ]
        for (plain, encoded) in vectors {
            #expect(Base32.encode(Array(plain.utf8)) == encoded)
            #expect(Base32.decode(encoded) == Array(plain.utf8))
            #expect(Base32.decode(encoded.lowercased()) == Array(plain.utf8))
            let bare = String(encoded.prefix { $0 != "=" })
            #expect(Base32.encode(Array(plain.utf8), padding: false) == bare)
            #expect(Base32.decode(bare) == Array(plain.utf8))
        }
        // Not base32: a character outside the alphabet, white space, short or misplaced padding,
        // impossible lengths, non-zero unused bits.
        for bad in ["M1", "MY== ", "MY=", "MY==", "M=Y=====", "M", "MZX", "MZXW6Y", "MZ", "MZ======", "MZXW6YTBOI====="] {
            #expect(Base32.decode(bad) == nil, "\(bad)")
        }
    }

    /// The same secrets and times through Debian's oathtool (`--totp --base32 --now @T`).
    @Test(.enabled(if: ExternalTool.oathtool, "oathtool is missing (apt-get install oathtool; make deps installs it)"))
    func matchesOathtool() async throws {
        for round in 0..<6 {
            let totp = try TOTP(secret: try TOTP.generateSecret())
            let time = Int64(1_700_000_000 + round * 7_919_333)
            let theirs = try await ExternalTool.output("oathtool", ["--totp", "--base32", "--now", "@\(time)", totp.base32Secret])
            #expect(theirs == (try totp.code(at: time)))
            #expect(try totp.verify(theirs, at: time + 30, lastAcceptedStep: nil) == TOTP.step(at: time))
        }
        let rfc = try await ExternalTool.output("oathtool", ["--totp", "--base32", "--digits", "8", "--now", "@59", Base32.encode(Self.rfcSecret)])
        #expect(rfc == "94287082")
    }

    /// The same secrets and times through PyPI's pyotp, and our `otpauth://` URI against its own,
    /// then parsed back by it.
    @Test(.enabled(if: ExternalTool.pyotp, "pyotp is missing (pip install pyotp; make deps installs it)"))
    func matchesPyotp() async throws {
        var cases: [(TOTP, Int64)] = []
        for round in 0..<6 { cases.append((try TOTP(secret: try TOTP.generateSecret()), Int64(1_600_000_000 + round * 3_333_331))) }
        let script = cases.map { "print(pyotp.TOTP('\($0.0.base32Secret)').at(\($0.1)))" }.joined(separator: "\n")
        let theirs = try await ExternalTool.output("python3", ["-c", "import pyotp\n" + script]).split(separator: "\n").map(String.init)
        #expect(theirs == (try cases.map { try $0.0.code(at: $0.1) }))

        let totp = cases[0].0
        for (app, email) in [("Token Tool", "ada+x@example.com"), ("Ünïcode & Co", "b.c_d~e@exa-mple.org")] {
            let uri = totp.uri(app: app, email: email)
            let parse = """
                import pyotp, sys
                app, email, secret, uri = sys.stdin.read().split("\\n")[:4]
                print(pyotp.TOTP(secret).provisioning_uri(name=email, issuer_name=app))
                t = pyotp.parse_uri(uri)
                print(t.name == email, t.issuer == app, t.secret == secret, t.digits, t.interval, t.digest().name)
                """
            let out = try await ExternalTool.output("python3", ["-c", parse], stdin: "\(app)\n\(email)\n\(totp.base32Secret)\n\(uri)\n")
                .split(separator: "\n").map(String.init)
            #expect(out.first == uri)
            #expect(out.last == "True True True 6 30 sha1")
        }
    }
}

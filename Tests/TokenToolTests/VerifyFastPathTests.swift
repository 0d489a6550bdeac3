import ArgumentParser
import Foundation
import Testing
@testable import tokentool

/// `tokentool verify`'s fast path (Sources/tokentool/VerifyFastPath.swift) must read exactly what
/// ArgumentParser reads, and leave everything else to it.
@Suite struct VerifyFastPathTests {
    /// ArgumentParser's reading of the same words, as the plain value both paths produce.
    private func parsed(_ words: [String]) throws -> VerifyRequest {
        let command = try TokenTool.parseAsRoot(words)
        return try #require(command as? Verify, "parsed as \(type(of: command))").request
    }

    @Test(arguments: [
        ["verify", "--key", "k.pem", "eyJ.e30.sig"],
        ["verify", "eyJ.e30.sig", "--key", "k.pem"],
        ["verify", "--jwks", "a.json", "--jwks", "b.json", "--key", "k.pem", "--key", "k2.pem", "eyJ.e30.sig"],
        ["verify", "--secret-file", "s.key", "--kid", "k1", "--alg", "HS256", "--alg", "HS384", "t"],
        ["verify", "--key", "k.pem", "--iss", "a", "--iss", "b", "--aud", "x", "--require", "sub", "--require", "email", "t"],
        ["verify", "--key", "k.pem", "--leeway", "2m", "--now", "1300819320", "--typ", "at+jwt", "--json", "t"],
        ["verify", "--json", "--jws", "--key", "k.pem", "t"],
        ["verify", "--key", "k.pem", "--now", "+5", "t"],
        ["verify", "--key", "", "t"],
        ["verify", "--key", "k.pem", ""],
        ["verify", "--kid", "has space", "--key", "k.pem", "t.with.dots"],
    ])
    func acceptsWhatArgumentParserReadsTheSame(words: [String]) throws {
        let fast = try #require(VerifyRequest(fastPath: words), "the fast path should take \(words)")
        #expect(fast == (try parsed(words)))
    }

    @Test(arguments: [
        ["decode", "t"],
        ["verify"],
        ["verify", "--key", "k.pem"],
        ["verify", "--key"],
        ["verify", "--key", "k.pem", "t", "u"],
        ["verify", "--help"],
        ["verify", "-h"],
        ["verify", "help"],
        ["verify", "--key=k.pem", "t"],
        ["verify", "--key", "k.pem", "--", "t"],
        ["verify", "--key", "k.pem", "-"],
        ["verify", "--secret-file", "-", "t"],
        ["verify", "--key", "-k.pem", "t"],
        ["verify", "--key", "k.pem", "--kid", "a", "--kid", "b", "t"],
        ["verify", "--key", "k.pem", "--json", "--json", "t"],
        ["verify", "--key", "k.pem", "--now", "soon", "t"],
        ["verify", "--key", "k.pem", "--now", "-5", "t"],
        ["verify", "--key", "k.pem", "--unknown", "x", "t"],
        ["verify", "--key", "k.pem", "-x", "t"],
        ["verify", "--version"],
    ])
    func leavesEverythingElseToArgumentParser(words: [String]) {
        #expect(VerifyRequest(fastPath: words) == nil)
    }

    /// A new option of `Verify` would only fall back to ArgumentParser, but a renamed one would
    /// leave the fast path reading a name ArgumentParser refuses: both must know the same names.
    @Test func knowsExactlyTheOptionsOfVerify() {
        let help = Verify.helpMessage(columns: 1000)
        let usage = help.split(separator: "\n").filter { $0.hasPrefix("  -") }
        let declared = Set(
            usage.compactMap { line in
                line.split(separator: " ").first { $0.hasPrefix("--") }.map { String($0.split(separator: ",")[0]) }
            })
        #expect(declared.subtracting(["--help"]) == VerifyRequest.fastPathNames)
    }

    /// The same invocations through both paths: `--key FILE` takes the fast path, `--key=FILE`
    /// (which it refuses) ArgumentParser's. Status, stdout and stderr must be identical.
    @Test func bothPathsAnswerAlike() throws {
        let s = try Scratch()
        try s.write("key.jwk", RFC7515A1.jwk)
        try s.write("other.jwk", #"{"kty":"oct","k":"\#(String(repeating: "A", count: 86))"}"#)
        let before = String(RFC7515A1.exp - 60)
        let cases: [[String]] = [
            ["--key", "key.jwk", "--now", before, RFC7515A1.token],
            ["--key", "key.jwk", "--now", before, "--json", RFC7515A1.token],
            ["--key", "key.jwk", RFC7515A1.token],  // expired
            ["--key", "key.jwk", "--json", RFC7515A1.token],
            ["--key", "other.jwk", "--now", before, RFC7515A1.token],  // wrong key
            ["--key", "missing.jwk", "--now", before, RFC7515A1.token],  // configuration error
            ["--key", "key.jwk", "--now", before, "--iss", "mallory", RFC7515A1.token],
            ["--key", "key.jwk", "--jws", RFC7515A1.token],
            ["--key", "key.jwk", "--jws", "--iss", "joe", RFC7515A1.token],  // refused combination
            ["--key", "key.jwk", "--now", before, "--alg", "RS256", RFC7515A1.token],
            ["--key", "key.jwk", "--now", before, "not-a-token"],
        ]
        var statuses = Set<Int32>()
        for words in cases {
            #expect(VerifyRequest(fastPath: ["verify"] + words) != nil)
            let fast = try s.tokentool(args: ["verify"] + words)
            let slow = try s.tokentool(args: ["verify", "--key=\(words[1])"] + words.dropFirst(2))
            #expect(fast.status == slow.status, "\(words)")
            #expect(fast.stdout == slow.stdout, "\(words)")
            #expect(fast.stderr == slow.stderr, "\(words)")
            statuses.insert(fast.status)
        }
        #expect(statuses == [0, 1, 2])  // the cases cover valid, rejected and configuration errors
    }
}

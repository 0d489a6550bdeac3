import Foundation
import JOSE
import Testing

/// Every example in README.md and docs/{tokens,keys,cli,errors,server}.md runs.
///
/// Convention: a ```sh block is run by bash (`set -eo pipefail`, stderr merged into stdout), the
/// blocks of one page in order, in one fresh directory (a `cd` carries over to the next block), with
/// the built tokentool on PATH. A ```text
/// block that directly follows an ```sh block is its expected output: `…` inside a line matches any
/// text, and a line holding only `…` matches any number of lines. Blocks marked ```bash (the
/// README's set-up commands) and ```swift are not run here; the Swift example of docs/tokens.md is
/// compiled and run below, verbatim.
@Suite struct DocsTests {
    static let pages = ["README.md", "docs/tokens.md", "docs/keys.md", "docs/cli.md", "docs/errors.md", "docs/server.md"]

    struct Block {
        let language: String
        let text: String
        let line: Int
        /// Only blank lines separate it from the previous block.
        let followsDirectly: Bool
    }

    static func blocks(_ page: String) throws -> [Block] {
        let text = try String(contentsOf: CLI.packageRoot.appendingPathComponent(page), encoding: .utf8)
        var out: [Block] = []
        var current: (String, [String], Int, Bool)? = nil
        var onlyBlankSinceLast = false
        for (i, line) in text.components(separatedBy: "\n").enumerated() {
            if line.hasPrefix("```") {
                if let c = current {
                    out.append(Block(language: c.0, text: c.1.joined(separator: "\n"), line: c.2, followsDirectly: c.3))
                    current = nil
                    onlyBlankSinceLast = true
                } else {
                    current = (String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces), [], i + 1, onlyBlankSinceLast && !out.isEmpty)
                }
            } else if current != nil {
                current!.1.append(line)
            } else if !line.trimmingCharacters(in: .whitespaces).isEmpty {
                onlyBlankSinceLast = false
            }
        }
        return out
    }

    /// Matches `actual` against `expected` with the `…` wildcards.
    static func matches(_ actual: [String], _ expected: [String]) -> Bool {
        func lineMatches(_ a: String, _ e: String) -> Bool {
            let parts = e.components(separatedBy: "…")
            if parts.count == 1 { return a == e }
            guard a.hasPrefix(parts[0]) else { return false }
            var rest = a.dropFirst(parts[0].count)
            for (k, part) in parts.enumerated().dropFirst() {
                if k == parts.count - 1 { return part.isEmpty || rest.hasSuffix(part) && rest.count >= part.count }
                guard let r = rest.range(of: part) else { return false }
                rest = rest[r.upperBound...]
            }
            return true
        }
        // memoised (i, j) search; `…` lines match any run of lines.
        var memo: [Int: Bool] = [:]
        func go(_ i: Int, _ j: Int) -> Bool {
            let key = i * (expected.count + 1) + j
            if let m = memo[key] { return m }
            let r: Bool
            if j == expected.count { r = i == actual.count }
            else if expected[j] == "…" { r = go(i, j + 1) || (i < actual.count && go(i + 1, j)) }
            else { r = i < actual.count && lineMatches(actual[i], expected[j]) && go(i + 1, j + 1) }
            memo[key] = r
            return r
        }
        return go(0, 0)
    }

    static func lines(_ text: String) -> [String] {
        var l = text.components(separatedBy: "\n").map { String($0.reversed().drop(while: { $0 == " " }).reversed()) }
        while l.last == "" { l.removeLast() }
        return l
    }

    @Test(arguments: pages)
    func examplesRun(page: String) throws {
        let s = try Scratch()
        let blocks = try Self.blocks(page)
        var ran = 0
        for (k, block) in blocks.enumerated() where block.language == "sh" {
            // A `cd` carries over to the next block, as in the reader's shell; mktemp stays inside the scratch directory.
            let state = s.path(".docs-cwd")
            let script = "exec 2>&1\n[ -f '\(state)' ] && cd \"$(cat '\(state)')\"\ntrap 'pwd > \"\(state)\"' EXIT\nset -eo pipefail\n" + block.text
            let r = try CLI.sh(script, in: s.url, environment: ["TMPDIR": s.url.path])
            ran += 1
            #expect(r.status == 0, "\(page):\(block.line): example failed:\n\(block.text)\n\(r.stdout)")
            if k + 1 < blocks.count, blocks[k + 1].language == "text", blocks[k + 1].followsDirectly {
                let expected = Self.lines(blocks[k + 1].text), actual = Self.lines(r.stdout)
                #expect(Self.matches(actual, expected), "\(page):\(blocks[k + 1].line): output differs.\n--- expected\n\(expected.joined(separator: "\n"))\n--- actual\n\(actual.joined(separator: "\n"))")
            }
        }
        #expect(ran > 0, "\(page) has no ```sh example")
    }

    @Test func matcherCanFail() {
        #expect(Self.matches(["a", "b", "c"], ["a", "…", "c"]))
        #expect(Self.matches(["abc"], ["a…c"]))
        #expect(!Self.matches(["abd"], ["a…c"]))
        #expect(!Self.matches(["a", "b"], ["a"]))
        #expect(Self.matches(["exp 2026 expires in 5m"], ["exp … expires in …"]))
    }

    @Test func demoScriptRunsEverySection() throws {
        let s = try Scratch()
        let r = try CLI.sh("'\(CLI.packageRoot.path)/scripts/demo.sh' '\(CLI.binary.path)' 2>&1", in: s.url)
        #expect(r.status == 0, "\(r)")
        for heading in ["Generate a key pair", "Sign a token", "Decode it", "Verify it", "Rejected tokens"] {
            #expect(r.stdout.contains(heading), "\(heading)")
        }
        #expect(r.stdout.contains("error: expired: "))
        #expect(r.stdout.contains("error: invalid_signature: "))
        #expect(r.stdout.contains("(exit code 1)"))
        #expect(r.stdout.contains("(exit code 2)"))
    }

    @Test func readmeSetUpIsExactlyMakeDemoAndMakeTest() throws {
        let setUp = try Self.blocks("README.md").filter { $0.language == "bash" }
        #expect(setUp.count == 1)
        #expect(Self.lines(setUp.first?.text ?? "") == ["make demo", "make test"])
    }

    /// The Swift example of docs/tokens.md, verbatim between the markers (checked below).
    @Test func tokensSwiftExample() throws {
        // docs/tokens.md begin
        var key = try JWK.generate(curve: .p256)
        key.keyID = "k1"
        let signer = try JWTSigner(key: key)
        let token = try signer.sign(["sub": "42", "aud": "api", "exp": 4102444800])

        let verifier = try JWTVerifier(key: key.publicKey, options: VerifierOptions(audiences: ["api"]))
        let verified = try verifier.verify(token)
        print(verified.claims.subject ?? "-")   // 42
        // docs/tokens.md end
        #expect(verified.claims.subject == "42")
        #expect(verified.keyID == "k1")

        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8).components(separatedBy: "\n")
        let begin = try #require(source.firstIndex { $0.hasSuffix("// docs/tokens.md begin") })
        let end = try #require(source.firstIndex { $0.hasSuffix("// docs/tokens.md end") })
        let here = source[(begin + 1)..<end].map { $0.trimmingCharacters(in: .whitespaces) }
        let doc = try #require(Self.blocks("docs/tokens.md").first { $0.language == "swift" })
        let docLines = doc.text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0 != "import JOSE" }
        #expect(Array(here) == docLines.drop(while: \.isEmpty).map { $0 })
    }
}

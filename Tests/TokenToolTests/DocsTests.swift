import CLIHarness
import Foundation
import JOSE
import Testing

/// Every page of README.md and docs/ is checked: its ```sh examples run, each of its ```swift
/// examples is a verbatim copy of a marked region of a test that compiles (and, for
/// docs/library.md and docs/tokens.md, runs) it, and every repository path it names exists.
///
/// Convention: a ```sh block is run by bash (`set -eo pipefail`, stderr merged into stdout), the
/// blocks of one page in order, in one fresh directory (a `cd` carries over to the next block), with
/// the built tokentool on PATH. A ```text
/// block that directly follows an ```sh block is its expected output: `…` inside a line matches any
/// text, and a line holding only `…` matches any number of lines. Blocks marked ```bash (the
/// README's set-up commands, the benchmark recipes of docs/performance.md) are not run. A Swift
/// example lives in a test between `// docs/PAGE begin` and `// docs/PAGE end` (its `import`
/// lines aside); a ```swift block starting with `public protocol` quotes a declaration, and each
/// of its lines must appear in Sources/. Client code for another SDK is fenced ```swift (NAME client)
/// and is not compiled here (there is no such SDK on this platform).
@Suite struct DocsTests {
    /// README.md and every page of docs/.
    static let pages: [String] = {
        let docs = CLI.packageRoot.appendingPathComponent("docs")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: docs.path)) ?? []
        return ["README.md"] + names.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }()

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
            if j == expected.count {
                r = i == actual.count
            } else if expected[j] == "…" {
                r = go(i, j + 1) || (i < actual.count && go(i + 1, j))
            } else {
                r = i < actual.count && lineMatches(actual[i], expected[j]) && go(i + 1, j + 1)
            }
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

    /// The examples run as processes waited for off the concurrency pool (``CLI/detached(_:)``): an
    /// example that starts a server and polls it for seconds would otherwise hold one of the pool's
    /// few threads, and stall the in-process servers of every test running beside it.
    @Test(arguments: pages)
    func examplesRun(page: String) async throws {
        // The core-only build (TOKENTOOL_CORE_ONLY=1) has no server or session commands to run.
        if !Self.isFullBuild && Self.fullBuildPages.contains(page) { return }
        let s = try Scratch()
        let blocks = try Self.blocks(page)
        var ran = 0
        for (k, block) in blocks.enumerated() where block.language == "sh" {
            // A `cd` carries over to the next block, as in the reader's shell; mktemp stays inside the scratch directory.
            let state = s.path(".docs-cwd")
            // When an example fails, the background jobs it started are ended (a server that `set -e`
            // stopped the example before killing would hold the test forever); a page whose server
            // outlives a block (docs/oauth.md) keeps it while its blocks succeed.
            let script =
                "exec 2>&1\n[ -f '\(state)' ] && cd \"$(cat '\(state)')\"\n"
                + "trap 'rc=$?; pwd > \"\(state)\"; if [ $rc -ne 0 ]; then j=$(jobs -p); [ -z \"$j\" ] || kill $j 2>/dev/null; fi' EXIT\n"
                + "set -eo pipefail\n" + block.text
            let dir = s.url
            let r = try await CLI.detached { try CLI.sh(script, in: dir, environment: ["TMPDIR": dir.path]) }
            ran += 1
            #expect(r.status == 0, "\(page):\(block.line): example failed:\n\(block.text)\n\(r.stdout)")
            if k + 1 < blocks.count, blocks[k + 1].language == "text", blocks[k + 1].followsDirectly {
                let expected = Self.lines(blocks[k + 1].text), actual = Self.lines(r.stdout)
                #expect(
                    Self.matches(actual, expected),
                    "\(page):\(blocks[k + 1].line): output differs.\n--- expected\n\(expected.joined(separator: "\n"))\n--- actual\n\(actual.joined(separator: "\n"))"
                )
            }
        }
        if ["README.md", "docs/tokens.md", "docs/keys.md", "docs/cli.md", "docs/errors.md"].contains(page) {
            #expect(ran > 0, "\(page) has no ```sh example")
        }
    }

    @Test func matcherCanFail() {
        #expect(Self.matches(["a", "b", "c"], ["a", "…", "c"]))
        #expect(Self.matches(["abc"], ["a…c"]))
        #expect(!Self.matches(["abd"], ["a…c"]))
        #expect(!Self.matches(["a", "b"], ["a"]))
        #expect(Self.matches(["exp 2026 expires in 5m"], ["exp … expires in …"]))
    }

    /// Pages whose shell examples need the full build.
    static let fullBuildPages: Set<String> = ["docs/server.md", "docs/accounts.md", "docs/oidc.md", "docs/mfa.md"]
    /// `false` in the core-only build (TOKENTOOL_CORE_ONLY=1).
    static var isFullBuild: Bool {
        #if canImport(Sessions)
            true
        #else
            false
        #endif
    }

    @Test func demoScriptRunsEverySection() async throws {
        guard Self.isFullBuild else { return }  // its session sections need the full build
        let s = try Scratch()
        let dir = s.url
        let r = try await CLI.detached { try CLI.sh("'\(CLI.packageRoot.path)/scripts/demo.sh' '\(CLI.binary.path)' 2>&1", in: dir) }
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
        print(verified.claims.subject ?? "-")  // 42
        // docs/tokens.md end
        #expect(verified.claims.subject == "42")
        #expect(verified.keyID == "k1")
    }

    @Test func everyPageIsListed() {
        #expect(Self.pages.count >= 11 && Self.pages.contains("docs/library.md") && Self.pages.contains("docs/architecture.md"))
    }

    /// A line as Swift examples are compared: trimmed, each run of spaces one space, so a page may
    /// align its end-of-line comments while the formatter puts two spaces before them in the test.
    static func normalized(_ line: some StringProtocol) -> String {
        line.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ").trimmingCharacters(in: .whitespaces)
    }

    /// Normalized lines of every `// docs/PAGE begin` … `// docs/PAGE end` region of the test sources, by page.
    static func markedRegions() throws -> [String: [[String]]] {
        let tests = CLI.packageRoot.appendingPathComponent("Tests")
        var regions: [String: [[String]]] = [:]
        guard let walk = FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil) else { return [:] }
        for case let url as URL in walk where url.pathExtension == "swift" {
            var open: (page: String, lines: [String])? = nil
            for line in try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n") {
                let t = Self.normalized(line)
                if t.hasPrefix("// docs/"), t.hasSuffix(" begin") {
                    open = ("docs/" + t.dropFirst(8).dropLast(6), [])
                } else if let o = open, t == "// \(o.page) end" {
                    regions[o.page, default: []].append(o.lines)
                    open = nil
                } else if open != nil {
                    open!.lines.append(t)
                }
            }
        }
        return regions
    }

    @Test(arguments: pages)
    func swiftExamplesAreCompiledByATest(page: String) throws {
        let regions = try Self.markedRegions()[page] ?? []
        for block in try Self.blocks(page) where block.language == "swift" {
            var lines = block.text.components(separatedBy: "\n").map { Self.normalized($0) }
            if lines.first?.hasPrefix("public protocol") == true {
                let sources = try Self.sourceLines()
                for line in lines where !line.isEmpty {
                    #expect(sources.contains(line), "\(page):\(block.line): \"\(line)\" is not in Sources/")
                }
                continue
            }
            lines.removeAll { $0.hasPrefix("import ") }
            while lines.first == "" { lines.removeFirst() }
            while lines.last == "" { lines.removeLast() }
            #expect(
                regions.contains(lines), "\(page):\(block.line): this Swift example is not a verbatim region of any test (// \(page) begin … end)")
        }
    }

    /// Normalized lines of every Swift file under Sources/.
    static func sourceLines() throws -> Set<String> {
        let root = CLI.packageRoot.appendingPathComponent("Sources")
        var out: Set<String> = []
        guard let walk = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        for case let url as URL in walk where url.pathExtension == "swift" {
            for line in try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n") {
                out.insert(Self.normalized(line))
            }
        }
        return out
    }

    /// Every repository path a page names (Sources/…, Tests/…, scripts/…, TestVectors/…, docs/…,
    /// and relative links) exists, so a moved file cannot leave a page pointing nowhere.
    @Test(arguments: pages)
    func pathsAndLinksExist(page: String) throws {
        let text = try String(contentsOf: CLI.packageRoot.appendingPathComponent(page), encoding: .utf8)
        let base = CLI.packageRoot.appendingPathComponent(page).deletingLastPathComponent()
        let pathPattern = try NSRegularExpression(pattern: #"(?<![\w./-])(Sources|Tests|scripts|TestVectors)/[A-Za-z0-9_+./-]*[A-Za-z0-9_]"#)
        let linkPattern = try NSRegularExpression(pattern: #"\]\(([^)#:\s]+)(#[^)]*)?\)"#)
        let range = NSRange(text.startIndex..., in: text)
        for match in pathPattern.matches(in: text, range: range) {
            let path = String(text[Range(match.range, in: text)!])
            #expect(
                FileManager.default.fileExists(atPath: CLI.packageRoot.appendingPathComponent(path).path),
                "\(page) names \(path), which does not exist")
        }
        for match in linkPattern.matches(in: text, range: range) {
            let target = String(text[Range(match.range(at: 1), in: text)!])
            #expect(
                FileManager.default.fileExists(atPath: base.appendingPathComponent(target).path), "\(page) links to \(target), which does not exist")
        }
    }
}

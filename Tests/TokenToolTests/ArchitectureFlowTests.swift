import CLIHarness
import Foundation
import Testing

/// docs/architecture.md's walk-throughs ("How a request flows") and recipes ("Recipes") name real
/// code: in their ```text blocks, a line whose last word is a path under Sources/ names a file or
/// folder that exists, and when it names a Swift file, the line's first word (the symbol, up to
/// its `(`, last dotted part) is written in that file.
@Suite struct ArchitectureFlowTests {
    /// The sections checked.
    static let sections = ["## How a request flows", "## Recipes"]

    /// What is wrong with the ```text blocks of `sections` in `page`, one line per problem.
    static func problems(page: String, root: URL, sections: [String] = sections) -> [String] {
        var problems: [String] = []
        for heading in sections {
            guard let start = page.range(of: "\n" + heading + "\n") else {
                problems.append("no section \(heading)")
                continue
            }
            let end = page.range(of: "\n## ", range: start.upperBound..<page.endIndex)?.lowerBound ?? page.endIndex
            var lines = 0
            for block in textBlocks(page[start.upperBound..<end]) {
                for line in block.split(separator: "\n") {
                    let words = line.split(separator: " ")
                    guard let path = words.last, path.contains("/"), words.count >= 2 else { continue }
                    lines += 1
                    let url = root.appendingPathComponent("Sources").appendingPathComponent(String(path))
                    guard FileManager.default.fileExists(atPath: url.path) else {
                        problems.append("\(heading): Sources/\(path) does not exist")
                        continue
                    }
                    guard path.hasSuffix(".swift") else { continue }
                    let symbol = Self.symbol(String(words[0]))
                    let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
                    if !symbol.isEmpty, !Self.containsWord(symbol, in: text) {
                        problems.append("\(heading): \(symbol) is not in Sources/\(path)")
                    }
                }
            }
            if lines == 0 { problems.append("\(heading): no line names a file") }
        }
        return problems
    }

    /// The bodies of the ```text blocks of `text`.
    static func textBlocks(_ text: Substring) -> [Substring] {
        var blocks: [Substring] = []
        var rest = text[...]
        while let open = rest.range(of: "```text\n"), let close = rest.range(of: "```", range: open.upperBound..<rest.endIndex) {
            blocks.append(rest[open.upperBound..<close.lowerBound])
            rest = rest[close.upperBound...]
        }
        return blocks
    }

    /// `SessionService.refresh(token)` → `refresh`; `POST` → ``; `RouteTable` → `RouteTable`.
    static func symbol(_ word: String) -> String {
        let name = word.split(separator: "(").first.map(String.init) ?? ""
        let last = name.split(separator: ".").last.map(String.init) ?? ""
        return last.first.map { $0.isLetter || $0 == "_" } == true && last.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) ? last : ""
    }

    /// Whether `word` occurs in `text` as a whole identifier.
    static func containsWord(_ word: String, in text: String) -> Bool {
        var rest = text[...]
        while let found = rest.range(of: word) {
            let before = found.lowerBound == text.startIndex ? nil : text[text.index(before: found.lowerBound)]
            let after = found.upperBound == text.endIndex ? nil : text[found.upperBound]
            let isPart = { (c: Character?) in c.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false }
            if !isPart(before), !isPart(after) { return true }
            rest = text[found.upperBound...]
        }
        return false
    }

    @Test func theWalkThroughsAndRecipesNameRealCode() throws {
        let page = try String(contentsOf: CLI.packageRoot.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        #expect(Self.problems(page: page, root: CLI.packageRoot) == [])
    }

    @Test func theCheckCanFail() {
        let page = """
            intro
            ## How a request flows
            ```text
            JWTVerifier.verify(token)      checks                      JOSE/JWS/JWTVerifier.swift
            NoSuchThing.neverWrittenHere  never written                JOSE/JWS/JWTVerifier.swift
            Gone                           a file that is not there    JOSE/Nowhere.swift
            ```
            ## Recipes
            text without a block
            """
        let found = Self.problems(page: page, root: CLI.packageRoot)
        #expect(
            found == [
                "## How a request flows: neverWrittenHere is not in Sources/JOSE/JWS/JWTVerifier.swift",
                "## How a request flows: Sources/JOSE/Nowhere.swift does not exist",
                "## Recipes: no line names a file",
            ])
    }
}

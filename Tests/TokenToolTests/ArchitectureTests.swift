import CLIHarness
import Foundation
import Testing

/// docs/architecture.md matches the code: each arrow of its module graph is an import that
/// exists, each import of one of our modules is drawn, and C is called only from its rooms.
@Suite struct ArchitectureTests {
    /// Every module of the package: the folders of Sources/ (a new module cannot be left out of the graph).
    static let nodes: Set<String> = {
        let sources = CLI.packageRoot.appendingPathComponent("Sources").path
        return Set((try? FileManager.default.contentsOfDirectory(atPath: sources)) ?? [])
    }()
    /// The C modules: drawn only as targets of arrows.
    static let cModules: Set<String> = ["COpenSSL", "CJansson"]

    /// `module → [imported module]` as drawn in the first ```text block after "## Modules".
    static func drawnGraph() throws -> [String: Set<String>] {
        let page = try String(contentsOf: CLI.packageRoot.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        guard let section = page.range(of: "## Modules"), let open = page.range(of: "```text\n", range: section.upperBound..<page.endIndex),
            let close = page.range(of: "```", range: open.upperBound..<page.endIndex)
        else { return [:] }
        var graph: [String: Set<String>] = [:]
        for line in page[open.upperBound..<close.lowerBound].split(separator: "\n") {
            let sides = line.components(separatedBy: "→")
            guard sides.count == 2 else { continue }
            let targets = sides[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            graph[sides[0].trimmingCharacters(in: .whitespaces)] = Set(targets)
        }
        return graph
    }

    /// Every Swift file under `Sources/<module>` (or under `folder` when it names its root, e.g.
    /// `Tests/JOSETests`), with its path relative to the package root.
    static func sources(_ module: String) throws -> [(path: String, text: String)] {
        let root = CLI.packageRoot.appendingPathComponent(module.contains("/") ? module : "Sources/\(module)")
        guard let walk = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        var out: [(String, String)] = []
        for case let url as URL in walk where url.pathExtension == "swift" {
            let relative = String(url.path.dropFirst(CLI.packageRoot.path.count + 1))
            out.append((relative, try String(contentsOf: url, encoding: .utf8)))
        }
        return out
    }

    /// The module names a file imports (any access level or attribute before `import`).
    static func imports(_ text: String) -> Set<String> {
        var found: Set<String> = []
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ").filter { !$0.hasPrefix("@") }
            guard let i = words.firstIndex(of: "import"), i + 1 < words.count,
                words[..<i].allSatisfy({ ["public", "internal", "package", "private", "fileprivate"].contains($0) })
            else { continue }
            found.insert(String(words[i + 1]))
        }
        return found
    }

    @Test func everyArrowIsARealImportAndEveryImportIsDrawn() throws {
        let graph = try Self.drawnGraph()
        #expect(Self.nodes.isSuperset(of: ["JOSE", "tokentool"] + Self.cModules), "modules found: \(Self.nodes.sorted())")
        #expect(Set(graph.keys) == Self.nodes.subtracting(Self.cModules), "modules drawn: \(graph.keys.sorted())")
        for (module, drawn) in graph {
            let imported = try Self.sources(module).reduce(into: Set<String>()) { $0.formUnion(Self.imports($1.text)) }
                .intersection(Self.nodes).subtracting([module])
            #expect(drawn == imported, "\(module): drawn \(drawn.sorted()), imported \(imported.sorted())")
        }
    }

    @Test func cIsCalledOnlyFromItsRooms() throws {
        let tests = try FileManager.default.contentsOfDirectory(atPath: CLI.packageRoot.appendingPathComponent("Tests").path)
        let folders = Self.nodes.subtracting(Self.cModules).map { "Sources/\($0)" } + tests.map { "Tests/\($0)" }
        #expect(folders.contains("Tests/JOSETests"))
        for folder in folders {
            for file in try Self.sources(folder) {
                let c = Self.imports(file.text)
                if c.contains("COpenSSL") { #expect(file.path.contains("/OpenSSL/"), "\(file.path) imports COpenSSL") }
                if c.contains("CJansson") { #expect(file.path.contains("/Jansson/"), "\(file.path) imports CJansson") }
            }
        }
    }

    /// Tests run the built tokentool through Tests/CLIHarness alone: no other test source looks
    /// for the binary itself (``CLI/binary`` is the one place that knows where it is).
    @Test func oneHarnessRunsTokentool() throws {
        let needles = ["/proc/self/" + "exe", "appendingPathComponent(\"" + "tokentool\")", ".build/" + "debug/tokentool"]
        let tests = try FileManager.default.contentsOfDirectory(atPath: CLI.packageRoot.appendingPathComponent("Tests").path)
        for folder in tests where folder != "CLIHarness" {
            for file in try Self.sources("Tests/\(folder)") {
                for needle in needles where file.text.contains(needle) {
                    Issue.record("\(file.path) finds tokentool itself (\(needle)); use CLI.binary")
                }
            }
        }
        #expect(try Self.sources("Tests/CLIHarness").contains { $0.text.contains(needles[0]) })
    }

    /// Every Swift target of Package.swift (library, executable, test; not the C target
    /// `COpenSSL`) gets the `strict` settings:
    /// Swift 6, `InternalImportsByDefault`, `ExistentialAny`.
    @Test func everyTargetIsStrict() throws {
        let manifest = try String(contentsOf: CLI.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        let strict = try #require(manifest.range(of: "let strict: [SwiftSetting] = [")).upperBound
        let settings = manifest[strict..<(manifest.range(of: "]", range: strict..<manifest.endIndex)?.lowerBound ?? manifest.endIndex)]
        for feature in [".swiftLanguageMode(.v6)", "InternalImportsByDefault", "ExistentialAny"] {
            #expect(settings.contains(feature), "strict lacks \(feature)")
        }
        let targets = Self.calls(of: [".target(", ".testTarget(", ".executableTarget("], in: manifest)
        #expect(targets.count >= 15, "targets found: \(targets.count)")
        // The C modules have no Swift to set (COpenSSL is a C target for its load-time constructor).
        let swiftTargets = targets.filter { t in !Self.cModules.contains { t.contains("name: \"\($0)\"") } }
        #expect(swiftTargets.count == targets.count - 1, "C targets found: \(targets.count - swiftTargets.count)")
        for target in swiftTargets { #expect(target.contains("swiftSettings: strict"), "not strict: \(target.prefix(80))") }
    }

    /// The text of each call of one of `functions` in `text`, up to its closing parenthesis.
    static func calls(of functions: [String], in text: String) -> [Substring] {
        var found: [Substring] = []
        for function in functions {
            var rest = text[...]
            while let open = rest.range(of: function) {
                var depth = 0
                var end = open.upperBound
                for i in text[open.upperBound...].indices {
                    if text[i] == "(" { depth += 1 }
                    if text[i] == ")" {
                        if depth == 0 { end = i; break }
                        depth -= 1
                    }
                }
                found.append(text[open.lowerBound..<end])
                rest = text[end...]
            }
        }
        return found
    }

    @Test func theImportReaderCanFail() {
        #expect(
            Self.calls(of: [".target("], in: ".target(name: \"A\", x: f(1)), .target(name: \"B\")") == [
                ".target(name: \"A\", x: f(1)", ".target(name: \"B\"",
            ])
        #expect(
            Self.imports("internal import COpenSSL\n@_spi(Testing) @testable import Sessions\nimport Foundation // x") == [
                "COpenSSL", "Sessions", "Foundation",
            ])
        #expect(Self.imports("// we import nothing\nlet important = 1").isEmpty)
    }
}

import CLIHarness
import Foundation
import Testing

/// Nothing in the repository points at things outside it: a reader of a comment, a doc or a
/// script has only the repository, so a numbered issue or a planning note tells them nothing.
/// Say what is meant instead (a page of docs/, a type, a protocol by its name). CHANGELOG.md's
/// history is exempt.
@Suite struct RepositoryTests {
    /// The folders and files read, relative to the package root.
    static let scanned = ["Sources", "Tests", "docs", "scripts", "README.md", "CONTRIBUTING.md"]

    /// What must not appear: a numbered issue and the project's planning notes, which live
    /// outside the repository. Spelled in pieces so this file does not name them itself.
    static let outsideReferences: [(name: String, regex: NSRegularExpression)] = {
        // The notes' names are upper case: docs/server.md and docs/cli.md are ours.
        let notes = ["SERVER", "CLI", "DESIGN", "STYLE"].map { ($0 + ".md", #"\b"# + $0 + #"\.md"#, NSRegularExpression.Options()) }
        let patterns =
            [
                ("a numbered issue", "issue [0-9]", NSRegularExpression.Options.caseInsensitive),
                ("the shared notes folder", #"\.\./"# + "shared", []),
            ] + notes
        return patterns.map { (name, pattern, options) in (name, try! NSRegularExpression(pattern: pattern, options: options)) }
    }()

    /// `path:line: reference` for every outside reference in `text`.
    static func hits(in text: String, path: String) -> [String] {
        var found: [String] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(line)
            let range = NSRange(line.startIndex..<line.endIndex, in: line)
            for (name, regex) in outsideReferences where regex.firstMatch(in: line, range: range) != nil {
                found.append("\(path):\(number + 1): \(name)")
            }
        }
        return found
    }

    /// Every text file under the scanned folders, with its path relative to the package root.
    static func files() -> [(path: String, text: String)] {
        let root = CLI.packageRoot
        var out: [(String, String)] = []
        for entry in scanned {
            let url = root.appendingPathComponent(entry)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else { continue }
            let urls: [URL]
            if isFolder.boolValue {
                let walk = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey])
                urls = (walk?.allObjects as? [URL] ?? []).filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
            } else {
                urls = [url]
            }
            for file in urls {
                // Binary files (fuzz corpora, keys in DER) are not prose: skip what is not UTF-8.
                guard let data = FileManager.default.contents(atPath: file.path), let text = String(data: data, encoding: .utf8) else { continue }
                out.append((String(file.path.dropFirst(root.path.count + 1)), text))
            }
        }
        return out
    }

    @Test func nothingPointsOutsideTheRepository() {
        let files = Self.files()
        #expect(files.contains { $0.path == "README.md" } && files.contains { $0.path.hasPrefix("Sources/") }, "nothing was scanned")
        let found = files.flatMap { Self.hits(in: $0.text, path: $0.path) }
        #expect(found.isEmpty, "outside references:\n\(found.joined(separator: "\n"))")
    }

    @Test func theScanFindsEachKindOfReference() {
        let sample = [
            "see issue " + "6", "(Issue " + "11 item 3)", "SERVER" + ".md \"Errors\"", "the " + "CLI" + ".md table",
            "DESIGN" + ".md", "STYLE" + ".md", "../../" + "shared/x",
        ]
        for line in sample {
            #expect(Self.hits(in: line, path: "x").count == 1, "\(line)")
        }
        #expect(Self.hits(in: "docs/cli.md, docs/server.md, the issue's fix, issues 5", path: "x").isEmpty)
    }
}

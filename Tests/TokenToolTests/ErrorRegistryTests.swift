import ArgumentParser
import CLIHarness
import Foundation
import JOSE
import Testing
@testable import tokentool
#if canImport(Sessions)
    import Identity
    import Sessions
#endif
#if canImport(AuthServer)
    import AuthServer
#endif

/// The error registry: every code each module declares has a class, a CLI exit code and a row in
/// docs/errors.md that states the same class; and docs/errors.md lists no code the modules lack.
@Suite struct ErrorRegistryTests {
    /// Every code of every module this build has (the core-only build has JOSE's alone).
    static let allCodes: [TokenError.Code] = {
        var codes = TokenError.Code.joseCodes
        #if canImport(Sessions)
            codes += TokenError.Code.identityCodes + TokenError.Code.webAuthnCodes + TokenError.Code.sessionsCodes
        #endif
        #if canImport(AuthServer)
            codes += TokenError.Code.authServerCodes
        #endif
        return codes
    }()

    /// `| \`code\` | class | …` rows of docs/errors.md: code → class as written.
    static func documentedClasses() throws -> [String: String] {
        let page = try String(contentsOf: CLI.packageRoot.appendingPathComponent("docs/errors.md"), encoding: .utf8)
        var rows: [String: String] = [:]
        for line in page.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            let name = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            // The table of the classes themselves is not a table of codes.
            guard cells.count > 3, TokenError.Kind(rawValue: name) == nil else { continue }
            rows[name] = cells[2]
        }
        return rows
    }

    @Test func eachCodeIsDeclaredOnce() {
        let names = Self.allCodes.map(\.rawValue)
        #expect(Set(names).count == names.count, "declared twice: \(names.filter { n in names.filter { $0 == n }.count > 1 })")
    }

    /// A code declared (`Code("name", class)`) in the sources of this build's modules but left out of its
    /// module's list would escape every check here: each declaration must be listed.
    @Test func everyDeclaredCodeIsListed() throws {
        var modules = ["JOSE"]
        #if canImport(Sessions)
            modules += ["Identity", "Sessions", "SessionStoreSQLite", "SessionStorePostgres", "tokentool"]
        #endif
        #if canImport(AuthServer)
            modules += ["AuthServer", "AuthMiddleware"]
        #endif
        var declared: [String] = []
        for module in modules {
            for file in try ArchitectureTests.sources(module) {
                var rest = file.text[...]
                while let start = rest.range(of: "Code(\"") {
                    let name = rest[start.upperBound...].prefix { $0 != "\"" }
                    declared.append(String(name))
                    rest = rest[start.upperBound...]
                }
            }
        }
        #expect(declared.count >= Self.allCodes.count, "declarations found: \(declared.count)")
        let listed = Set(Self.allCodes.map(\.rawValue))
        #expect(Set(declared).subtracting(listed).isEmpty, "declared but in no module's list: \(Set(declared).subtracting(listed).sorted())")
    }

    @Test(arguments: allCodes) func codeIsSnakeCase(_ code: TokenError.Code) {
        #expect(code.rawValue.allSatisfy { ("a"..."z").contains($0) || $0 == "_" } && !code.rawValue.isEmpty, "\(code)")
    }

    /// The CLI contract: 1 when something was judged and refused, 2 when nothing was judged.
    @Test func exitCodeFollowsClass() {
        #expect(TokenError.Kind.rejected.exitCode == ExitCode(1))
        #expect(TokenError.Kind.configuration.exitCode == ExitCode(2))
        #expect(TokenError.Kind.infrastructure.exitCode == ExitCode(2))
        #expect(TokenError.Kind.allCases.count == 3, "a new class needs its exit code")
    }

    @Test(arguments: allCodes) func codeIsDocumentedWithItsClass(_ code: TokenError.Code) throws {
        let documented = try Self.documentedClasses()
        #expect(documented[code.rawValue] != nil, "docs/errors.md has no row for \(code)")
        if let written = documented[code.rawValue] {
            #expect(written == code.kind.rawValue, "docs/errors.md says \(code) is \(written)")
        }
        #expect(code.rejectsToken == (code.kind == .rejected))
    }

    @Test func docsListOnlyDeclaredCodes() throws {
        let declared = Set(Self.allCodes.map(\.rawValue))
        // The class table's rows (`| \`rejected\` | … |`) name classes, not codes.
        let documented = Set(try Self.documentedClasses().keys).subtracting(TokenError.Kind.allCases.map(\.rawValue))
        #if canImport(Sessions)
            #expect(documented.subtracting(declared).isEmpty, "documented but not declared: \(documented.subtracting(declared).sorted())")
        #else
            #expect(declared.isSubset(of: documented))
        #endif
    }

    /// Other pages list codes with their exit code (`| \`code\` | 1 | …`): each must agree with the class.
    @Test func exitCodesOnEveryPageFollowTheClass() throws {
        let codes = Dictionary(uniqueKeysWithValues: Self.allCodes.map { ($0.rawValue, $0) })
        let docs = CLI.packageRoot.appendingPathComponent("docs")
        for name in try FileManager.default.contentsOfDirectory(atPath: docs.path) where name.hasSuffix(".md") {
            let page = try String(contentsOf: docs.appendingPathComponent(name), encoding: .utf8)
            for line in page.split(separator: "\n") where line.hasPrefix("| `") {
                let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
                guard cells.count > 3, let code = codes[cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))],
                    let exit = Int32(cells[2])
                else { continue }
                #expect(exit == code.kind.exitCode.rawValue, "docs/\(name): \(code) is listed with exit \(exit)")
            }
        }
    }
}

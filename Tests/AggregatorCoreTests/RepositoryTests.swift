import AggregatorCore
import Foundation
import Testing

/// The repository's documents that state facts the code also states (docs/DEVELOPMENT.md): they
/// are checked against it here, so that one of them cannot drift.
struct RepositoryTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    private func text(_ path: String) throws -> String {
        try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
    }

    /// docs/configuration.md has one table row per key the daemon accepts, and no other.
    @Test func theConfigurationDocumentNamesEveryKeyTheDaemonAccepts() throws {
        let rows = try text("docs/configuration.md").split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("| `"), let end = line.dropFirst(3).firstIndex(of: "`") else { return nil }
            return String(line[line.index(line.startIndex, offsetBy: 3)..<end])
        }
        let keys = Configuration.keys.map(\.name)
        #expect(Set(rows).subtracting(keys).isEmpty, "documented, not accepted: \(Set(rows).subtracting(keys).sorted())")
        #expect(Set(keys).subtracting(rows).isEmpty, "accepted, not documented: \(Set(keys).subtracting(rows).sorted())")
        #expect(rows.count == Set(rows).count, "a key documented twice")
    }

    /// The repository stands alone (docs/DEVELOPMENT.md): no file refers to a directory beside the
    /// checkout or cites a document that is not in it. CHANGELOG.md tells history and may.
    @Test func nothingRefersToAPathOutsideTheRepository() throws {
        let outside = ["../" + "shared", "DESIGN " + "§", "/work/" + "shared"]
        let skipped = [".build", ".git", ".swiftpm", "bench/out", "Fuzz/Corpus", "docs/figures", "docs/screenshots"]
        let files = FileManager.default.enumerator(at: Self.root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL }
            .filter { url in
                let relative = String(url.path.dropFirst(Self.root.path.count + 1))
                return !skipped.contains { relative == $0 || relative.hasPrefix($0 + "/") } && relative != "CHANGELOG.md"
            } ?? []
        var found: [String] = []
        for file in files {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }  // directories, binaries
            for pattern in outside where text.contains(pattern) {
                found.append("\(file.path.dropFirst(Self.root.path.count + 1)): \(pattern)")
            }
        }
        #expect(files.count > 300)
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    /// docs/ARCHITECTURE.md's module table names every target of Package.swift (tests aside) with
    /// exactly the dependencies Package.swift gives it.
    @Test func theModuleTableIsPackageSwifts() throws {
        let package = try text("Package.swift")
        var declared: [String: Set<String>] = [:]
        for kind in [".target(", ".systemLibrary(", ".executableTarget("] {
            for part in package.components(separatedBy: kind).dropFirst() {
                let head = part.prefix { $0 != ")" }
                guard let name = Self.quoted(in: String(head)).first else { continue }
                var dependencies: Set<String> = []
                if let start = head.range(of: "dependencies: ["), let end = head[start.upperBound...].firstIndex(of: "]") {
                    dependencies = Set(Self.quoted(in: String(head[start.upperBound..<end])))
                }
                declared[name] = dependencies
            }
        }
        #expect(declared.count > 15 && declared["FeedStore"] == ["CSQLite", "CLibPQ"], "Package.swift read: \(declared)")
        let document = try text("docs/ARCHITECTURE.md")
        let table = document[document.range(of: "## Modules")!.upperBound...].components(separatedBy: "\n## ")[0]
        var documented: [String: Set<String>] = [:]
        for row in table.split(separator: "\n") where row.hasPrefix("| `") {
            let cells = row.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard cells.count > 3 else { continue }
            let dependencies = Set(Self.ticked(in: cells[2]))
            for name in Self.ticked(in: cells[1]) { documented[name] = dependencies }
        }
        #expect(Set(documented.keys) == Set(declared.keys), "targets: \(Set(declared.keys).symmetricDifference(documented.keys).sorted())")
        for (name, dependencies) in declared where documented[name] != nil {
            #expect(documented[name] == dependencies, "\(name) depends on \(dependencies.sorted()), the table says \(documented[name]!.sorted())")
        }
    }

    private static func quoted(in text: String) -> [String] {
        text.components(separatedBy: "\"").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
    }

    private static func ticked(in text: String) -> [String] {
        text.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
    }

    /// The README stays a short entry point; the project has its licence, changelog and guide.
    @Test func theReadmeIsShortAndTheUsualFilesAreThere() throws {
        #expect(try text("README.md").split(separator: "\n", omittingEmptySubsequences: false).count <= 200)
        for file in ["LICENSE", "CHANGELOG.md", "CONTRIBUTING.md", "bench/README.md", "docs/DEVELOPMENT.md"] {
            #expect(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(file).path), "\(file)")
        }
        #expect(try text("LICENSE").contains("Apache License"))
    }

    /// No function, initializer or closure-bodied property of the sources is longer than 80 lines
    /// (docs/DEVELOPMENT.md): split by meaning, they fit on a screen.
    @Test func noFunctionIsLongerThanAScreen() throws {
        var long: [String] = []
        let sources = Self.root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        #expect(files.count > 100)
        let sample = "protocol P {\n    func f()\n}\nstruct S {\n    func g() {\n" + String(repeating: "        let x = \"{\" // }\n", count: 85)
            + "    }\n    init() {}\n}\n"
        #expect(Self.functions(in: sample).map(\.length) == [87], "the counter itself (a one-line function is not followed)")
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for (line, length, declaration) in Self.functions(in: text) where length > 80 {
                long.append("\(file.path.dropFirst(Self.root.path.count + 1)):\(line): \(length) lines: \(declaration)")
            }
        }
        #expect(long.isEmpty, "\(long.joined(separator: "\n"))")
    }

    /// Only the dialect layer (`Sources/FeedStore/Connection/`) knows which backend it talks to
    /// (docs/ARCHITECTURE.md, "Storage"): no other code compares dialects, switches on them or names
    /// a backend's connection type.
    @Test func noCodeOutsideTheDialectLayerBranchesOnTheBackend() throws {
        let sources = Self.root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" && !$0.path.contains("/FeedStore/Connection/") } ?? []
        let patterns = ["dialect ==", "dialect !=", "case .sqlite", "case .postgres", "switch dialect", "switch database.dialect",
                        "== .sqlite", "== .postgres", "PostgresConnection", "SQLiteConnection", "isPostgres"]
        var found: [String] = []
        for file in files {
            for (number, line) in try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                .enumerated() {
                let code = Self.codePart(of: String(line))
                if let pattern = patterns.first(where: code.contains), !code.trimmingCharacters(in: .whitespaces).hasPrefix("///") {
                    found.append("\(file.path.dropFirst(Self.root.path.count + 1)):\(number + 1): \(pattern)")
                }
            }
        }
        #expect(files.count > 100)
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    /// Each function's first line, length in lines and declaration, by counting braces outside
    /// strings and comments.
    static func functions(in text: String) -> [(line: Int, length: Int, declaration: String)] {
        var found: [(line: Int, length: Int, declaration: String)] = []
        var open: [(line: Int, depth: Int, declaration: String, started: Bool)] = []
        var depth = 0
        var inMultilineString = false
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw)
            if line.components(separatedBy: "\"\"\"").count % 2 == 0 { inMultilineString.toggle(); continue }
            if inMultilineString { continue }
            let code = codePart(of: line)
            // A body opens with the brace that ends its line (not a default closure's in the signature).
            let opensBody = code.trimmingCharacters(in: .whitespaces).hasSuffix("{")
            if isDeclaration(code) {
                while let last = open.last, !last.started { open.removeLast() }  // a requirement, without a body
                // One on a single line (`func f() {}`) is short: not followed.
                if opensBody || !code.contains("{") { open.append((index + 1, depth, line.trimmingCharacters(in: .whitespaces), false)) }
            }
            let lastOpening = code.lastIndex(of: "{")
            for position in code.indices where code[position] == "{" || code[position] == "}" {
                let character = code[position]
                depth += character == "{" ? 1 : -1
                if character == "{", opensBody, position == lastOpening, let last = open.last, !last.started,
                   depth == last.depth + 1 {
                    open[open.count - 1].started = true
                }
                if character == "}", let last = open.last, last.started, depth == last.depth {
                    found.append((last.line, index + 1 - last.line + 1, String(last.declaration.prefix(100))))
                    open.removeLast()
                }
            }
        }
        return found
    }

    /// The line without its comment and the contents of its string literals.
    private static func codePart(of line: String) -> String {
        var code = ""
        var inString = false
        var previous: Character = " "
        for character in line {
            if inString {
                if character == "\"", previous != "\\" { inString = false }
            } else if character == "\"" {
                inString = true
            } else if character == "/", previous == "/" {
                code.removeLast()
                break
            } else {
                code.append(character)
            }
            previous = character
        }
        return code
    }

    private static func isDeclaration(_ code: String) -> Bool {
        var words = code.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: true)
        let modifiers: Set<Substring> = ["public", "private", "fileprivate", "internal", "package", "open", "static", "final",
                                         "override", "mutating", "nonmutating", "nonisolated", "convenience", "required", "class"]
        while let first = words.first, first.hasPrefix("@") || modifiers.contains(first) || first.hasPrefix("private(") {
            words.removeFirst()
        }
        guard let first = words.first else { return false }
        return first == "func" || first == "deinit" || first.hasPrefix("init(") || first.hasPrefix("init?(") || first.hasPrefix("init<")
    }
}

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

    /// The README stays a short entry point; the project has its licence, changelog and guide.
    @Test func theReadmeIsShortAndTheUsualFilesAreThere() throws {
        #expect(try text("README.md").split(separator: "\n", omittingEmptySubsequences: false).count <= 200)
        for file in ["LICENSE", "CHANGELOG.md", "CONTRIBUTING.md", "bench/README.md", "docs/DEVELOPMENT.md"] {
            #expect(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(file).path), "\(file)")
        }
        #expect(try text("LICENSE").contains("Apache License"))
    }
}

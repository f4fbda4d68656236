import ControlProtocol
import Testing

@Suite struct FilePathTests {
    @Test func theDirectoryOfBareNamesRootFilesAndNestedPaths() {
        #expect(FilePath.directory(of: "a.db") == "")
        #expect(FilePath.directory(of: "s") == "")
        #expect(FilePath.directory(of: "/a.db") == "/")
        #expect(FilePath.directory(of: "./s") == ".")
        #expect(FilePath.directory(of: "/var/lib/aggregator/a.db") == "/var/lib/aggregator")
    }
}

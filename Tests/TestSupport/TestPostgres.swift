import Foundation

/// The PostgreSQL test cluster, when the run has one: `AGGREGATOR_TEST_POSTGRES` holds the URI of
/// its `postgres` database (`make test-postgres` starts the cluster with Tests/postgres-cluster.sh
/// and sets it). Daemons the tests start then keep their data there, each in a new database.
public enum TestPostgres {
    public static let baseURI = ProcessInfo.processInfo.environment["AGGREGATOR_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }
    public static var isOn: Bool { baseURI != nil }

    /// A new empty database on the cluster, as its URI.
    public static func freshDatabase() throws -> String {
        guard let base = baseURI else { throw TestSupportError("no PostgreSQL test cluster (AGGREGATOR_TEST_POSTGRES)") }
        let name = "e2e_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let created = try Binary(url: URL(fileURLWithPath: "/usr/bin/psql")).run(["-q", "-X", base, "-c", "CREATE DATABASE \(name)"])
        guard created.status == 0 else { throw TestSupportError("cannot create a test database: \(created.error)") }
        return uri(base, database: name)
    }

    /// Everything the database `uri` holds, as `pg_dump` writes it.
    public static func dump(_ uri: String) throws -> Data {
        let dumped = try Binary(url: URL(fileURLWithPath: "/usr/bin/pg_dump")).run([uri])
        guard dumped.status == 0 else { throw TestSupportError("pg_dump failed: \(dumped.error)") }
        return Data(dumped.output.utf8)
    }

    /// `base` naming the database `name` instead of its own.
    static func uri(_ base: String, database name: String) -> String {
        guard let scheme = base.range(of: "://") else { return base }
        let query = base.firstIndex(of: "?") ?? base.endIndex
        let pathStart = base[scheme.upperBound..<query].firstIndex(of: "/") ?? query
        return String(base[..<pathStart]) + "/" + name + String(base[query...])
    }
}

/// A daemon's `--database` for a test: `name` in `directory`, or a new database on the PostgreSQL
/// test cluster when the run has one.
public func testDatabase(in directory: URL, named name: String = "a.db") throws -> String {
    TestPostgres.isOn ? try TestPostgres.freshDatabase() : directory.appendingPathComponent(name).path
}

@testable import AggregatorCore
import CSQLite
import FeedFetcher
@testable import FeedStore
import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

/// A round whose results cannot be stored (the database full: SQLite's max_page_count; locked by
/// another program; write errors from the disk) tells the truth: those feeds count as failed, are
/// recorded failing with a storage reason and checked again soon; once the fault is gone, the next
/// round stores everything.
@Suite(.timeLimit(.minutes(3))) struct StorageFaultTests {
    /// A store in a temporary directory with one feed of the test server (250 entries), due now,
    /// and a refresh pipeline over it.
    private struct Fixture {
        let server: FeedTestServer
        let directory: URL
        let path: String
        let store: FeedStore
        let pipeline: RefreshPipeline
        let due: [FeedFetchState]

        init(named name: String) async throws {
            server = try FeedTestServer()
            directory = try temporaryDirectory()
            path = directory.appendingPathComponent("\(name).db").path
            store = try FeedStore(path: path)
            let logger = Logger(minimumLevel: .error, component: "test", journald: false) { _ in }
            pipeline = RefreshPipeline(store: store, fetcher: FeedFetcher(userAgent: "aggregatord-test"), logger: logger)
            try await store.addFeeds([.init(url: server.url("/many.xml"))], account: 1)
            due = try await store.feedsToFetch()
        }

        func remove() {
            server.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test func aFullDatabaseFailsTheRoundsFeedsAndTheNextRoundStoresThem() async throws {
        let fixture = try await Fixture(named: "full")
        defer { fixture.remove() }
        let (path, pipeline, due) = (fixture.path, fixture.pipeline, fixture.due)
        #expect(due.count == 1)

        // Room for what is there now and a little more: not for 250 entries with their index.
        let pages = try #require(try StoreReader(path: path).database.integer("PRAGMA page_count"))
        try await fixture.store.limitPages(to: Int(pages) + 2)
        let failed = await pipeline.refresh(due)
        #expect(failed.failed == 1 && failed.ok == 0 && failed.newEntries == 0 && failed.unstored == 1, "\(failed.line)")
        #expect(failed.line.contains(" unstored=1 "))
        let feeds = try StoreReader(path: path).feeds(account: 1)
        #expect(feeds.allSatisfy { $0.status == .failing && ($0.lastError ?? "").contains("not stored: ") }, "\(feeds)")
        #expect(feeds.allSatisfy { $0.lastError?.contains("not the feed's") == true })
        #expect(try StoreReader(path: path).totals(account: 1).entries == 0)
        // Checked again after the shortest interval, not at once and not at some unrelated later time.
        let retries = feeds.compactMap(\.nextCheckAt).map { $0.timeIntervalSinceNow }
        #expect(retries.count == 1 && retries.allSatisfy { $0 > 0 && $0 <= pipeline.policy.minimumInterval + 5 }, "\(retries)")

        // Room again: the next round stores everything.
        try await fixture.store.limitPages(to: 1_000_000)
        let stored = await pipeline.refresh(due)
        #expect(stored.failed == 0 && stored.ok == 1 && stored.newEntries == 250, "\(stored.line)")
        #expect(try StoreReader(path: path).feeds(account: 1).allSatisfy { $0.status == .ok })
        #expect(try StoreReader(path: path).totals(account: 1).entries == 250)
    }

    /// Another program holding the database's write lock through a round: the round's results
    /// cannot be stored, the round says so, and the next one, the lock gone, stores everything.
    @Test func aDatabaseLockedByAnotherProgramFailsTheRoundAndLosesNothing() async throws {
        let fixture = try await Fixture(named: "locked")
        defer { fixture.remove() }
        let (path, pipeline, due) = (fixture.path, fixture.pipeline, fixture.due)

        let other = try Database(path: path)
        try other.execute("BEGIN IMMEDIATE")  // what `sqlite3 a.db` does on its first write
        let failed = await pipeline.refresh(due)
        #expect(failed.failed == 1 && failed.ok == 0 && failed.newEntries == 0 && failed.unstored == 1, "\(failed.line)")
        try other.execute("ROLLBACK")

        let stored = await pipeline.refresh(due)
        #expect(stored.failed == 0 && stored.ok == 1 && stored.newEntries == 250, "\(stored.line)")
        #expect(try StoreReader(path: path).totals(account: 1).entries == 250)
        #expect(try StoreReader(path: path).feeds(account: 1).allSatisfy { $0.status == .ok })
    }

    /// The disk answering writes with EIO (SQLite's own hook for fault injection in its Unix VFS):
    /// through a whole round, the round fails its feed and stores nothing (not even the feed's
    /// failure: the summary and the log say it); for the commit alone, the feed is recorded failing
    /// with the storage reason; the errors gone, the next round stores everything, intact.
    @Test func writeErrorsFailTheRoundAndLoseNothing() async throws {
        let fixture = try await Fixture(named: "eio")
        defer { fixture.remove() }
        let (path, pipeline, due) = (fixture.path, fixture.pipeline, fixture.due)

        WriteFaults.failWrites(to: fixture.directory.path + "/")
        let failed = await pipeline.refresh(due)
        #expect(WriteFaults.failWrites(to: nil) >= 2, "the commit's write and the failure record's")
        #expect(failed.failed == 1 && failed.ok == 0 && failed.newEntries == 0 && failed.unstored == 1, "\(failed.line)")
        #expect(try StoreReader(path: path).totals(account: 1).entries == 0)

        // The first write to the WAL is the commit's (a checkpoint, which may come first, writes to
        // the database file, and its failure fails no commit).
        WriteFaults.failWrites(to: path + "-wal", count: 1)
        let once = await pipeline.refresh(due)
        #expect(WriteFaults.failWrites(to: nil) == 1)
        #expect(once.failed == 1 && once.newEntries == 0 && once.unstored == 1, "\(once.line)")
        let feeds = try StoreReader(path: path).feeds(account: 1)
        #expect(feeds.allSatisfy { $0.status == .failing && ($0.lastError ?? "").contains("not stored: ") }, "\(feeds)")
        #expect(feeds.allSatisfy { ($0.lastError ?? "").localizedCaseInsensitiveContains("I/O") }, "\(feeds)")
        let retries = feeds.compactMap(\.nextCheckAt).map { $0.timeIntervalSinceNow }
        #expect(retries.count == 1 && retries.allSatisfy { $0 > 0 && $0 <= pipeline.policy.minimumInterval + 5 }, "\(retries)")
        #expect(try StoreReader(path: path).totals(account: 1).entries == 0)

        let stored = await pipeline.refresh(due)
        #expect(stored.failed == 0 && stored.ok == 1 && stored.newEntries == 250, "\(stored.line)")
        #expect(try StoreReader(path: path).totals(account: 1).entries == 250)
        #expect(try StoreReader(path: path).feeds(account: 1).allSatisfy { $0.status == .ok })
        var integrity: [String] = []
        try StoreReader(path: path).database.prepare("PRAGMA integrity_check").query([]) { integrity.append($0.text(at: 0) ?? "") }
        #expect(integrity == ["ok"])
    }
}

/// Write errors for some files, injected through SQLite's Unix VFS hook for replacing its system
/// calls (`xSetSystemCall`, meant for fault injection): while a path prefix is set, `write`,
/// `pwrite` and `pwrite64` to the files whose path starts with it fail with EIO. Installed once for the test
/// process and left in place: other tests' files pass through to the real calls.
enum WriteFaults {
    private struct Fault {
        var prefix: String
        var remaining: Int?  // nil: every write fails
        var failed = 0
    }
    private static let fault = Mutex<Fault?>(nil)

    /// Makes writes to files whose path starts with `prefix` fail (`count` of them, or all), or none
    /// when nil; returns how many failed under the fault this replaces.
    @discardableResult
    static func failWrites(to prefix: String?, count: Int? = nil) -> Int {
        _ = installed
        return fault.withLock { fault in
            defer { fault = prefix.map { Fault(prefix: $0, remaining: count) } }
            return fault?.failed ?? 0
        }
    }

    /// Whether a write to `descriptor` is to fail now (and counts it).
    static func fails(_ descriptor: Int32) -> Bool {
        guard let prefix = fault.withLock({ $0?.prefix }) else { return false }
        var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/fd/\(descriptor)", &target, target.count - 1)
        guard length > 0 else { return false }
        let file = String(decoding: target[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard file.hasPrefix(prefix) else { return false }
        return fault.withLock { fault in
            guard fault != nil, fault?.remaining != 0 else { return false }
            fault?.remaining? -= 1
            fault?.failed += 1
            return true
        }
    }

    private static let installed: Void = {
        let vfs = sqlite3_vfs_find(nil)!
        let real = RealWrites.calls  // taken before they are replaced
        let replacements = [("write", real.write.map { _ in unsafeBitCast(failingWrite, to: sqlite3_syscall_ptr.self) }),
                            ("pwrite", real.pwrite.map { _ in unsafeBitCast(failingPWrite, to: sqlite3_syscall_ptr.self) }),
                            ("pwrite64", real.pwrite64.map { _ in unsafeBitCast(failingPWrite64, to: sqlite3_syscall_ptr.self) })]
        for case let (name, replacement?) in replacements {  // this SQLite's build uses only some
            #expect(vfs.pointee.xSetSystemCall(vfs, name, replacement) == SQLITE_OK, "\(name)")
        }
    }()
}

private typealias WriteCall = @convention(c) (Int32, UnsafeRawPointer?, Int) -> Int
private typealias PWriteCall = @convention(c) (Int32, UnsafeRawPointer?, Int, Int64) -> Int

/// The real calls, as SQLite had them before the test's replacements (nil: not used by this build).
private struct RealWrites: @unchecked Sendable {
    let write: WriteCall?
    let pwrite: PWriteCall?
    let pwrite64: PWriteCall?
    static let calls: RealWrites = {
        let vfs = sqlite3_vfs_find(nil)!
        func real<Call>(_ name: String, as type: Call.Type) -> Call? {
            vfs.pointee.xGetSystemCall(vfs, name).map { unsafeBitCast($0, to: type) }
        }
        return RealWrites(write: real("write", as: WriteCall.self), pwrite: real("pwrite", as: PWriteCall.self),
                          pwrite64: real("pwrite64", as: PWriteCall.self))
    }()
}

private let failingWrite: WriteCall = { descriptor, buffer, count in
    if WriteFaults.fails(descriptor) { errno = EIO; return -1 }
    return RealWrites.calls.write!(descriptor, buffer, count)
}
private let failingPWrite: PWriteCall = { descriptor, buffer, count, offset in
    if WriteFaults.fails(descriptor) { errno = EIO; return -1 }
    return RealWrites.calls.pwrite!(descriptor, buffer, count, offset)
}
private let failingPWrite64: PWriteCall = { descriptor, buffer, count, offset in
    if WriteFaults.fails(descriptor) { errno = EIO; return -1 }
    return RealWrites.calls.pwrite64!(descriptor, buffer, count, offset)
}

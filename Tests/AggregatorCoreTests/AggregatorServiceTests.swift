@testable import AggregatorCore
import FeedFetcher
import FeedStore
import Foundation
import Synchronization
import TestSupport
import Testing

/// The service's typed calls and errors, over a real store, pipeline and local feed server.
/// The time limit only ends a hang: in a full parallel run on two cores a test here waits for
/// threads (tests that block them while a child process runs) and takes 15–20 s; alone, under 2 s.
@Suite(.timeLimit(.minutes(3))) struct AggregatorServiceTests {
    final class Fixture: Sendable {
        let server: FeedTestServer
        let directory: URL
        let service: AggregatorService

        init(entryRules: (any EntryRules)? = nil) throws {
            server = try FeedTestServer()
            directory = try temporaryDirectory()
            let store = try FeedStore(path: directory.appendingPathComponent("service.db").path, entryRules: entryRules)
            let logger = Logger(minimumLevel: .error, component: "test", journald: false) { _ in }
            let pipeline = RefreshPipeline(store: store, fetcher: FeedFetcher(userAgent: "aggregatord-test"), logger: logger)
            let scheduler = Scheduler(store: store, pipeline: pipeline, logger: logger)
            service = AggregatorService(store: store, scheduler: scheduler, pipeline: pipeline)
        }

        deinit {
            service.stopFetching()
            server.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test func whatGoesWrongIsOneCaseEachFrontEndCanMap() async throws {
        let fixture = try Fixture()
        let service = fixture.service
        let added = try await service.addFeed(url: fixture.server.url("/page.html"), category: "News", for: owner)
        #expect(added.feed.url == fixture.server.url("/feed.xml"))  // discovered from the page's <link>
        #expect(added.candidates.count == 2)

        await #expect(throws: AggregatorError.alreadySubscribed("already subscribed to \(fixture.server.url("/feed.xml"))")) {
            try await service.addFeed(url: fixture.server.url("/feed.xml"), for: owner)
        }
        await #expect(throws: AggregatorError.self) { try await service.addFeed(url: "ftp://example.org/feed", for: owner) }
        await #expect(throws: AggregatorError.notFound("no feed with id 99")) { try await service.removeFeed(.id(99), for: owner) }
        await #expect(throws: AggregatorError.notFound("no feed with URL http://nowhere.example/")) {
            try await service.removeFeed(.url("http://nowhere.example/"), for: owner)
        }
        await #expect(throws: AggregatorError.notFound("no article with id 5")) { try await service.article(id: 5, for: try await service.account(named: nil)) }
        await #expect(throws: AggregatorError.invalidArgument("say read and/or starred")) {
            try await service.mark(.ids([1]), read: nil, starred: nil, for: owner)
        }
        await #expect(throws: AggregatorError.invalidArgument("the limit must be 1 to 1000, not 0")) {
            try await service.articles(ArticleQuery(), limit: 0, for: try await service.account(named: nil))
        }
        await #expect(throws: AggregatorError.self) { try await service.backup(to: "relative/path.db") }
    }

    /// A round judges each document by its followers' rules in the feed's fetch task and hands the
    /// writer the verdicts (docs/SECURITY.md): arriving entries are hidden as the rules say.
    @Test func aRoundJudgesArrivingEntriesBeforeTheWriter() async throws {
        let fixture = try Fixture(entryRules: EntryRuleMatcher())
        let service = fixture.service
        let added = try await service.addFeed(url: fixture.server.url("/many.xml"), for: owner)
        var rules = FeedChanges()
        rules.blocklist = "^Item 1\\d$"
        _ = try await service.updateFeed(.id(added.feed.id), rules, for: owner)
        _ = try await service.refresh(nil, wait: true, for: owner)
        let titles = try await service.articles(ArticleQuery(), limit: 1000, for: owner).articles.compactMap(\.title)
        #expect(titles.count == 240 && !titles.contains("Item 12") && titles.contains("Item 2"), "\(titles.count)")
    }

    @Test func aWaitedRefreshStoresReportsAndBroadcasts() async throws {
        let fixture = try Fixture()
        let service = fixture.service
        let first = service.events.subscribe()
        let second = service.events.subscribe()
        #expect(service.events.subscriberCount == 2)
        // Adding the feed stores the document discovery fetched as its first fetch (docs/ARCHITECTURE.md,
        // "Fetch once"): a round of one feed, reported as any.
        _ = try await service.addFeed(url: fixture.server.url("/feed.xml"), for: owner)
        let progress = Mutex<[RefreshProgress]>([])
        let outcome = try await service.refresh(nil, wait: true, for: owner) { step in progress.withLock { $0.append(step) } }
        guard case .finished(let summary) = outcome else { Issue.record("not waited for"); return }
        #expect((summary.feeds, summary.ok + summary.notModified, summary.newEntries) == (1, 1, 0), "nothing new since")
        #expect(progress.withLock { $0.map(\.done) } == [1])
        // Every subscriber hears every event, in order.
        for stream in [first, second] {
            var events = stream.makeAsyncIterator()
            #expect(await events.next() == .entriesStored(count: 1))
            guard case .roundFinished(let added)? = await events.next() else { Issue.record("no round for the add"); continue }
            #expect((added.feeds, added.ok, added.newEntries) == (1, 1, 1))
            #expect(await events.next() == .roundFinished(summary))
        }
        let page = try await service.articles(ArticleQuery(unreadOnly: true), for: try await service.account(named: nil))
        #expect(page.articles.map(\.title) == ["One"])
        #expect(try await service.mark(.matching(ArticleQuery()), read: true, starred: nil, for: owner) == 1)
        #expect(try await service.status(for: owner).totals.unread == 0)
    }

    @Test func aWatchHearsOfArticlesStoredAfterItStartedAndEndsWhenCancelled() async throws {
        let fixture = try Fixture()
        let service = fixture.service
        _ = try await service.addFeed(url: fixture.server.url("/feed.xml"), for: owner)
        _ = try await service.refresh(nil, wait: true, for: owner)  // "One" is stored before the watch
        let seen = AsyncStream<String?>.makeStream()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await service.watch(ArticleQuery(), for: owner) { seen.continuation.yield($0.title) }
            }
            while service.events.subscriberCount == 0 { await Task.yield() }  // the watch listens
            _ = try await service.addFeed(url: fixture.server.url("/other.xml"), for: owner)
            _ = try await service.refresh(nil, wait: true, for: owner)
            var titles = seen.stream.makeAsyncIterator()
            #expect(await titles.next() == "Two")
            group.cancelAll()
        }
        #expect(service.events.subscriberCount == 0, "a cancelled watch leaves the broadcast")
    }
}

/// The first account, which a new database has: everything these tests do is its.
let owner = AccountIdentity(id: 1, name: "admin", isAdmin: true)

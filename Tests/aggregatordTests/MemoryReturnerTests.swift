import AggregatorCore
@testable import aggregatord
import Synchronization
import Testing

@Suite struct MemoryReturnerTests {
    /// Counts the trims a returner makes while `body` runs beside it.
    private func trims(delay: Duration, _ body: (MemoryReturner) async throws -> Void) async rethrows -> Int {
        let count = Mutex(0)
        let returner = MemoryReturner(delay: delay) { count.withLock { $0 += 1 } }
        let running = Task { await returner.run(logger: Logger(minimumLevel: .error)) }
        defer { running.cancel() }
        try await body(returner)
        return count.withLock { $0 }
    }

    @Test func idleDaemonIsNeverWoken() async throws {
        let made = try await trims(delay: .milliseconds(10)) { _ in try await Task.sleep(for: .milliseconds(300)) }
        #expect(made == 0)
    }

    @Test func workIsFollowedByOneTrimAfterTheDelay() async throws {
        let made = try await trims(delay: .milliseconds(50)) { returner in
            returner.noteWork()
            try await Task.sleep(for: .milliseconds(500))
        }
        #expect(made == 1)
    }

    /// A burst of work (every request notes it) costs one trim, or two when work went on past the
    /// first, never one per note.
    @Test func burstsOfWorkCollapse() async throws {
        let made = try await trims(delay: .milliseconds(100)) { returner in
            for _ in 0..<10_000 { returner.noteWork() }
            try await Task.sleep(for: .milliseconds(600))
        }
        #expect((1...2).contains(made))
    }

    @Test func residentMemoryIsRead() {
        #expect(MemoryReturner.residentBytes() > 1_048_576)
    }
}

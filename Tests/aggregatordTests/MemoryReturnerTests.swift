import AggregatorCore
@testable import aggregatord
import Synchronization
import Testing

@Suite struct MemoryReturnerTests {
    /// A returner that counts its trims, running beside `body`; the count at the end.
    private func trims(delay: Duration,
                       _ body: (MemoryReturner, _ trims: @Sendable () -> Int) async throws -> Void) async rethrows -> Int {
        let count = Mutex(0)
        let returner = MemoryReturner(delay: delay) { count.withLock { $0 += 1 } }
        let running = Task { await returner.run(logger: Logger(minimumLevel: .error)) }
        defer { running.cancel() }
        try await body(returner) { count.withLock { $0 } }
        return count.withLock { $0 }
    }

    /// Whether `condition` holds within 20 s (a loaded or sanitized build may be slow to get there).
    private func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<2_000 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        return condition()
    }

    @Test func idleDaemonIsNeverWoken() async throws {
        let made = try await trims(delay: .milliseconds(10)) { _, _ in try await Task.sleep(for: .milliseconds(300)) }
        #expect(made == 0)
    }

    @Test func workIsFollowedByOneTrimAfterTheDelay() async throws {
        let made = try await trims(delay: .milliseconds(50)) { returner, trims in
            returner.noteWork()
            #expect(try await eventually { trims() >= 1 })
            try await Task.sleep(for: .milliseconds(300))
        }
        #expect(made == 1)
    }

    /// A burst of work (every request notes it) costs one trim, or two when work went on past the
    /// first, never one per note.
    @Test func burstsOfWorkCollapse() async throws {
        let made = try await trims(delay: .milliseconds(50)) { returner, trims in
            for _ in 0..<10_000 { returner.noteWork() }
            #expect(try await eventually { trims() >= 1 })
            try await Task.sleep(for: .milliseconds(300))
        }
        #expect((1...2).contains(made))
    }

    @Test func residentMemoryIsRead() {
        #expect(MemoryReturner.residentBytes() > 1_048_576)
    }
}

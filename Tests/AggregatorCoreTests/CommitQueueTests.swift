@testable import AggregatorCore
import FeedStore
import Foundation
import Synchronization
import Testing

@Suite struct CommitQueueTests {
    private func refresh(_ id: Int64) -> FeedRefresh {
        FeedRefresh(feedID: FeedID(id), document: nil, record: .failure("x"), checkedAt: Date(), nextCheckAt: Date(), intervalSeconds: 60)
    }

    @Test func everythingPutIsTakenOnceInOrderAndAPutWaitsForRoom() async throws {
        let queue = CommitQueue(capacity: 3)
        let taken = Mutex<[Int64]>([])
        let batches = Mutex<[Int]>([])
        async let drained: Void = {
            while case let batch = await queue.take(), !batch.isEmpty {
                batches.withLock { $0.append(batch.count) }
                taken.withLock { $0 += batch.map(\.feedID.rawValue) }
                try? await Task.sleep(for: .milliseconds(5))  // a slow store: puts pile up, up to the capacity
            }
        }()
        for id in 1...40 { await queue.put(refresh(Int64(id))) }
        await queue.close()
        await drained
        #expect(taken.withLock { $0 } == Array(1...40))
        #expect(batches.withLock { $0 }.allSatisfy { $0 <= 3 })
        #expect(batches.withLock { $0 }.contains { $0 > 1 }, "a slow taker gets several at once")
    }

    @Test func closingAnEmptyQueueEndsAWaitingTaker() async {
        let queue = CommitQueue(capacity: 3)
        async let batch = queue.take()
        try? await Task.sleep(for: .milliseconds(20))
        await queue.close()
        #expect(await batch.isEmpty)
    }
}

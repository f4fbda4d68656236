@testable import aggregatorctl
import Foundation
import Testing

/// `parse FILE…` hands results over in argument order while workers finish in any order; the
/// queue wakes a thread only when it can go on. A missed wake-up would hang, so each run happens on
/// a thread of its own and the test fails if it is not done in 30 seconds.
@Suite struct OrderedWorkQueueTests {
    /// Runs `queue` to the end on another thread, recording the order of what it hands over.
    private func consumeAll(_ queue: OrderedWorkQueue<Int>, workers: Int) -> [(index: Int, output: Int)]? {
        let done = DispatchSemaphore(value: 0)
        let consumed = Consumed()
        Thread {
            queue.run(workers: workers) { index, output in
                consumed.items.append((index, output))
                if index % 50 == 0 { usleep(2_000) }  // a slow consumer: workers wait on the window
            }
            done.signal()
        }.start()
        return done.wait(timeout: .now() + 30) == .success ? consumed.items : nil
    }

    private final class Consumed: @unchecked Sendable {
        var items: [(index: Int, output: Int)] = []  // written by the consuming thread only, read after it is done
    }

    @Test(arguments: [(workers: 1, window: 1), (workers: 2, window: 1), (workers: 3, window: 2), (workers: 4, window: 32)])
    func resultsArriveInOrderWhateverOrderTheyFinishIn(workers: Int, window: Int) throws {
        let count = 300
        let queue = OrderedWorkQueue<Int>(count: count, window: window) { index in
            // Uneven work: some items finish long after later ones.
            if index % 7 == 0 { usleep(UInt32(200 + index % 5 * 100)) }
            return index * index
        }
        let consumed = try #require(consumeAll(queue, workers: workers), "the queue did not finish in 30 s")
        #expect(consumed.map(\.index) == Array(0..<count))
        #expect(consumed.allSatisfy { $0.output == $0.index * $0.index })
    }

    @Test func nothingToDoReturnsAtOnce() throws {
        let consumed = try #require(consumeAll(OrderedWorkQueue<Int>(count: 0) { $0 }, workers: 2))
        #expect(consumed.isEmpty)
    }
}

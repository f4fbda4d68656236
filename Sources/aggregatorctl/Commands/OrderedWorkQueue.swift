import Dispatch
import FoundationEssentials
import Glibc

/// Runs `work` for indices 0..<count on worker threads (one per core) and hands the results to the
/// caller's thread strictly in index order, at most `window` ahead of what was consumed: both cores
/// parse while output keeps the order of the arguments and memory stays bounded.
final class OrderedWorkQueue<Output>: @unchecked Sendable {
    // Every mutable field below is guarded by `condition`.
    private let condition = ThreadCondition()
    private var finished: [Int: Output] = [:]
    private var nextToClaim = 0
    private var nextToConsume = 0
    // Who is asleep, so a thread wakes the others only when one of them can go on: a wake-up is a
    // context switch, and a broadcast after every file woke three threads for each.
    private var consumerIsWaiting = false
    private var waitingWorkers = 0
    private let count: Int
    private let window: Int
    private let work: @Sendable (Int) -> Output

    init(count: Int, window: Int = 32, work: @escaping @Sendable (Int) -> Output) {
        self.count = count
        self.window = max(1, window)
        self.work = work
    }

    /// Calls `consume` with each result in order; returns when all are consumed.
    func run(workers: Int = ProcessInfo.processInfo.activeProcessorCount, consume: (Int, Output) -> Void) {
        for _ in 0..<max(1, min(workers, count)) {
            // Dispatch threads (no Foundation `Thread` in the client): each blocks only on `condition`.
            DispatchQueue.global().async { self.workerLoop() }
        }
        for index in 0..<count {
            condition.lock()
            while finished[index] == nil {
                consumerIsWaiting = true
                condition.wait()
            }
            consumerIsWaiting = false
            let output = finished.removeValue(forKey: index)!
            nextToConsume = index + 1
            if waitingWorkers > 0 { condition.broadcast() }
            condition.unlock()
            consume(index, output)
        }
    }

    private func workerLoop() {
        while true {
            condition.lock()
            while nextToClaim < count && nextToClaim >= nextToConsume + window {
                waitingWorkers += 1
                condition.wait()
                waitingWorkers -= 1
            }
            guard nextToClaim < count else {
                condition.unlock()
                return
            }
            let index = nextToClaim
            nextToClaim += 1
            condition.unlock()
            let output = work(index)
            condition.lock()
            finished[index] = output
            if consumerIsWaiting && index == nextToConsume { condition.broadcast() }
            condition.unlock()
        }
    }
}

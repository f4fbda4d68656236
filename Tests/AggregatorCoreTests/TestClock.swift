import AggregatorCore
import Foundation
import Synchronization

/// A clock that moves only when the test moves it. Every sleep that has to wait is announced on
/// `sleeps` with its deadline, so a test knows when the scheduler went to sleep and until when.
final class TestClock: SchedulerClock {
    private struct Sleeper {
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var sleepers: [Int: Sleeper] = [:]
        var nextID = 0
    }

    private let state: Mutex<State>
    /// The deadline of each sleep that began waiting, in order.
    let sleeps: AsyncStream<Date>
    private let announce: AsyncStream<Date>.Continuation

    init(now: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        state = Mutex(State(now: now))
        (sleeps, announce) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    var now: Date { state.withLock { $0.now } }

    func sleep(until deadline: Date) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case waiting, due, cancelled }
                let outcome = state.withLock { state -> Outcome in
                    if Task.isCancelled { return .cancelled }
                    if deadline <= state.now { return .due }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return .waiting
                }
                switch outcome {
                case .waiting: announce.yield(deadline)
                case .due: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock to `moment` and ends every sleep due by then.
    func advance(to moment: Date) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = moment
            let due = state.sleepers.filter { $0.value.deadline <= moment }
            for id in due.keys { state.sleepers[id] = nil }
            return Array(due.values)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// How many sleeps wait now.
    var waitingSleeps: Int { state.withLock { $0.sleepers.count } }
}

import Foundation

/// Where the scheduler and the refresh pipeline read the time and wait for it. The daemon uses the
/// wall clock; tests drive a clock of their own, so that hours of schedule pass without real sleeps.
public protocol SchedulerClock: Sendable {
    /// The current moment.
    var now: Date { get }
    /// Returns once `deadline` has come.
    /// - Throws: `CancellationError` when the calling task is cancelled first.
    func sleep(until deadline: Date) async throws
}

/// The wall clock.
public struct SystemClock: SchedulerClock {
    public init() {}

    public var now: Date { Date() }

    public func sleep(until deadline: Date) async throws {
        let seconds = deadline.timeIntervalSinceNow
        guard seconds > 0 else { return }
        // A feed checked a fraction of a second late loses nothing; the kernel may batch the wake-up.
        try await Task.sleep(for: .seconds(seconds), tolerance: .milliseconds(250))
    }
}

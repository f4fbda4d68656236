import AggregatorCore
import CMalloc
import Foundation

/// Gives the memory the allocator holds free back to the system, a while after the daemon worked.
///
/// glibc keeps freed memory in its arenas (one for each thread that allocates, up to eight a core)
/// for reuse, and a free page inside an arena goes back to the system only on `malloc_trim`. Under
/// the soak's load (bench/soak_load.sh) the daemon had 29 MB in use but held 108 MB; one trim
/// brought it from 143 MB to 90 MB resident. So: one trim a `delay` after work, however much work;
/// none while idle (nothing wakes an idle daemon).
final class MemoryReturner: Sendable {
    private let delay: Duration
    private let trim: @Sendable () -> Void
    private let worked: AsyncStream<Void>
    private let workedContinuation: AsyncStream<Void>.Continuation

    init(delay: Duration = .seconds(60), trim: @escaping @Sendable () -> Void = { malloc_trim(0) }) {
        self.delay = delay
        self.trim = trim
        // One pending note is enough: work noted during a wait is covered by the trim that ends it
        // or, if it came after that trim began, by one more.
        (worked, workedContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Called when the daemon has done some work (a request answered, a round done); cheap.
    func noteWork() {
        workedContinuation.yield()
    }

    /// Trims a `delay` after work was noted, until the calling task is cancelled.
    func run(logger: Logger) async {
        for await _ in worked {
            do { try await Task.sleep(for: delay) } catch { return }
            let before = Self.residentBytes()
            let started = ContinuousClock.now
            trim()
            logger.debug("Returned free memory to the system", [
                "resident_mb_before": before / 1_048_576, "resident_mb_after": Self.residentBytes() / 1_048_576,
                "duration_ms": (ContinuousClock.now - started) / .milliseconds(1)])
        }
    }

    /// This process's resident memory in bytes (/proc/self/statm), 0 if unreadable.
    static func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

import Foundation

/// A task executor with a thread of its own: tasks that prefer it (`withTaskExecutorPreference`) run
/// there, never waiting for Swift's cooperative pool. In-process servers under test answer on one,
/// so that other tests blocking the pool's few threads (a full parallel run) cannot starve them.
public final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []  // guarded by `condition`

    public init(name: String) {
        let thread = Thread { [self] in run() }  // lives as long as the test process
        thread.name = name
        thread.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

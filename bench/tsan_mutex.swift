// Does ThreadSanitizer see Synchronization.Mutex as synchronization on Linux? Correct code by
// construction (every access under a lock) run under TSan, with Mutex and with NSLock:
//   swiftc -sanitize=thread -O bench/tsan_mutex.swift -o /tmp/tsan_mutex
//   /tmp/tsan_mutex mutex   # 4 "Swift access race" reports, and the right total
//   /tmp/tsan_mutex lock    # none
// docs/RELIABILITY.md, "Sanitizers", has the verdict on the suite's reports this explains.
import Dispatch
import Foundation
import Synchronization

// Correct code by construction: every access to the counters is under a lock.
final class Counters: Sendable {
    let mutex = Mutex<[Int: Int]>([:])
    let lock = NSLock()
    nonisolated(unsafe) var locked: [Int: Int] = [:]
}
let counters = Counters()
let useMutex = CommandLine.arguments.count > 1 && CommandLine.arguments[1] == "mutex"
DispatchQueue.concurrentPerform(iterations: 8) { worker in
    for i in 0..<20_000 {
        if useMutex {
            counters.mutex.withLock { $0[i % 64, default: 0] += worker }
        } else {
            counters.lock.lock(); counters.locked[i % 64, default: 0] += worker; counters.lock.unlock()
        }
    }
}
print(useMutex ? counters.mutex.withLock { $0.values.reduce(0, +) } : counters.locked.values.reduce(0, +))

import Glibc

/// Runs `body` on a new detached thread: for blocking calls (accept, recv) that must not hold a thread
/// of Swift's cooperative pool. A POSIX thread rather than Foundation's `Thread`: this module is
/// linked into the client, which stays free of the Foundation that carries ICU.
func startDetachedThread(_ body: @escaping @Sendable () -> Void) {
    final class Box { let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body } }
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let started = pthread_create(&thread, nil, { context in
        let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
        box.body()
        return nil
    }, context)
    guard started == 0 else {
        Unmanaged<Box>.fromOpaque(context).release()
        fatalError("cannot start a thread: \(String(cString: strerror(started)))")
    }
    pthread_detach(thread)
}

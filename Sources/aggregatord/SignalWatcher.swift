import Dispatch
import Glibc

/// Delivers SIGINT, SIGTERM and SIGHUP as an async sequence instead of interrupting the process.
final class SignalWatcher {
    let signals: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    init(_ watched: [Int32] = [SIGINT, SIGTERM, SIGHUP]) {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        signals = stream
        sources = watched.map { number in
            signal(number, SIG_IGN)  // the dispatch source sees it; the default action must not run
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    deinit {
        sources.forEach { $0.cancel() }
    }
}

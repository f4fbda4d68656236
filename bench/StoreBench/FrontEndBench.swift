import AggregatorCore
import FeedStore
import Foundation
import HTTPAPI
import HTTPServer

/// `storebench front-end DB TOKEN PATH [SECONDS] [TASKS]`: requests a second that the HTTP front end
/// answers in this process, without HTTP: TASKS tasks (default 32, as wrk's connections) each call
/// `HTTPFrontEnd.handle` with GET PATH and the token, for SECONDS (default 10). The same work as a
/// request over HTTP, login and routing included, without the socket, libmicrohttpd and its threads:
/// the rate HTTP is compared with (bench/http_throughput.sh).
enum FrontEndBench {
    static func run(databasePath: String, token: String, path: String, seconds: Double, tasks: Int) async throws {
        let store = try FeedStore(path: databasePath)
        let logger = Logger(minimumLevel: .error)
        let service = AggregatorService(configuration: try Configuration.resolve(flags: ["database": databasePath],
                                                                                  environment: [:]),
                                        store: store, logger: logger)
        let frontEnd = HTTPFrontEnd(service: service)
        let parts = path.split(separator: "?", maxSplits: 1)
        let query: [(name: String, value: String)] = parts.count < 2 ? [] : parts[1].split(separator: "&").map { item in
            let pair = item.split(separator: "=", maxSplits: 1).map(String.init)
            return (name: pair[0], value: pair.count > 1 ? pair[1] : "")
        }
        let request = HTTPRequest(method: "GET", path: String(parts[0]), query: query,
                                  headers: ["x-auth-token": token, "accept-encoding": "gzip"], clientAddress: "127.0.0.1")
        let first = await frontEnd.handle(request)
        guard first.status == 200 else {
            print("the front end answered \(first.status): \(String(decoding: first.body, as: UTF8.self))")
            exit(1)
        }
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        let count = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    var answered = 0
                    while ContinuousClock.now < deadline {
                        _ = await frontEnd.handle(request)
                        answered += 1
                    }
                    return answered
                }
            }
            return await group.reduce(0, +)
        }
        print(String(format: "RESULT {\"requests\": %d, \"seconds\": %.1f, \"per_second\": %.1f, \"bytes\": %d}",
                     count, seconds, Double(count) / seconds, first.body.count))
    }
}

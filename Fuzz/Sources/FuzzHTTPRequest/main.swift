import AggregatorCore
import FeedStore
import Foundation
import FuzzSupport
import HTTPAPI
import HTTPServer

// Every HTTP route's decoding: a request made of the input (method, path, query, headers, body)
// answered by the front end over a real service and store, logged in (an API token and a web
// session are added, so the fuzzer gets past the login to the parameters and bodies). The answer is
// a status of 1xx–5xx, and never 500: an error the code did not foresee. Form and multipart bodies
// are also decoded alone. Routes that fetch from the network (adding a feed, discovery, refresh)
// are skipped: their inputs are URLs, fuzzed through CanonicalURL and the fetcher's own tests.
//
// Input: METHOD-BYTE PATH?QUERY "\n" (NAME ": " VALUE "\n")* "\n" BODY
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-http-\(getpid())")
try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
let databasePath = directory.appendingPathComponent("a.db").path
let store = try! FeedStore(path: databasePath)
let service = AggregatorService(configuration: try! Configuration.resolve(flags: ["database": databasePath], environment: [:]),
                                store: store, logger: Logger(minimumLevel: .error))
let frontEnd = HTTPFrontEnd(service: service)
let methods = ["GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"]
let fetching = ["discover", "quickadd", "subscription/edit", "refresh", "/import"]

/// Where a task leaves its result for the thread waiting on it.
final class Outcome<T>: @unchecked Sendable {
    var value: T?
}

/// Runs `body` on Swift's pool and waits for it here (libFuzzer calls the target synchronously),
/// until the task has let go of everything: what it still held after signalling would otherwise
/// look like a leak of this input to libFuzzer's leak check.
func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let done = DispatchSemaphore(value: 0)
    var outcome = Outcome<T>()
    Task { [outcome] in
        outcome.value = await body()
        done.signal()
    }
    done.wait()
    while !isKnownUniquelyReferenced(&outcome) { usleep(10) }
    return outcome.value!
}

/// The token and the session cookie every request carries (made once, before fuzzing).
let (token, cookie): (String, String) = blocking {
    let account = try! await service.addAccount(name: "fuzz", password: "fuzz password", isAdmin: true).identity
    let token = try! await service.createToken(for: account, label: "fuzz").secret
    guard case .started(let session) = await service.startSession(name: "fuzz", password: "fuzz password", from: "::1",
                                                                   userAgent: "fuzz") else { fatalError("no session") }
    _ = try! await service.createCategory("Fuzz", for: account)
    return (token, session.secret)
}
// One request of each kind first: what they set up once (lazy globals, caches) is then not
// taken by the leak checker for a leak of the first input that reached it.
for (method, path) in [("GET", "/unread"), ("GET", "/static/app.css"), ("GET", "/v1/entries"), ("GET", "/v1/feeds"),
                       ("GET", "/reader/api/0/stream/items/ids"), ("POST", "/fever/"), ("GET", "/metrics"),
                       ("GET", "/login"), ("GET", "/nowhere")] {
    let request = HTTPRequest(method: method, path: path, headers: ["x-auth-token": token,
                                                                     "cookie": "aggregatord_session=\(cookie)"],
                              clientAddress: "::1")
    _ = blocking { await frontEnd.handle(request) }
}
nonisolated(unsafe) var requests = 0

runFuzzer { data, size in
    guard size > 1, let data else { return 0 }
    let method = methods[Int(data[0]) % methods.count]
    let input = bytes(data + 1, size - 1)
    let lines = input.split(separator: UInt8(ascii: "\n"), maxSplits: 64, omittingEmptySubsequences: false)
    let target = String(decoding: lines[0], as: UTF8.self)
    var parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
    if parts.isEmpty { parts = [""] }
    let path = parts[0].hasPrefix("/") ? parts[0] : "/" + parts[0]
    if fetching.contains(where: path.contains) || (method == "POST" && (path.hasSuffix("/feeds") || path.hasSuffix("/feeds/"))) {
        return -1
    }
    var headers = ["x-auth-token": token, "cookie": "aggregatord_session=\(cookie)", "accept-encoding": "gzip"]
    var index = 1
    while index < lines.count, !lines[index].isEmpty {
        let line = String(decoding: lines[index], as: UTF8.self)
        if let colon = line.firstIndex(of: ":") {
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        index += 1
    }
    let body = index + 1 < lines.count ? Data(lines[(index + 1)...].joined(separator: [UInt8(ascii: "\n")])) : Data()
    let query = parts.count > 1 ? FormBody.pairs(parts[1]) : []
    _ = MultipartForm.parts(of: body, contentType: headers["content-type"] ?? "")
    requests += 1
    let address = "10.\(requests >> 16 & 255).\(requests >> 8 & 255).\(requests & 255)"
    let request = HTTPRequest(method: method, path: path, query: query, headers: headers, body: body, clientAddress: address)
    let response = blocking { await frontEnd.handle(request) }
    require((100...599).contains(response.status), "status \(response.status)")
    require(response.status != 500, "500 for \(method) \(path): \(String(decoding: response.body.prefix(300), as: UTF8.self))")
    return 0
}

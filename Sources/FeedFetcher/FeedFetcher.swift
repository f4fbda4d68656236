import CCurl
import Foundation
import Synchronization

/// HTTP for feeds on libcurl's multi interface: one loop thread drives every transfer, callers
/// `await` their answer, and cancelling a caller really stops its transfer (docs/ARCHITECTURE.md, "Fetching").
public final class FeedFetcher: Sendable {
    private let loop: CurlLoop

    /// - Parameters:
    ///   - userAgent: the User-Agent header, e.g. `UserAgent.header(version:)`.
    ///   - addressPolicy: which resolved addresses may be connected to.
    public init(userAgent: String, addressPolicy: AddressPolicy = AddressPolicy()) {
        loop = CurlLoop(userAgent: userAgent, addressPolicy: addressPolicy)
    }

    deinit {
        loop.stop()
    }

    /// Fetches `request.url` conditionally. Never throws anything but `FetchError`.
    public func fetch(_ request: FetchRequest) async throws(FetchError) -> FetchResponse {
        guard let scheme = request.url.split(separator: ":").first?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .unsupportedURL(request.url)
        }
        if let proxy = loop.proxy.withLock({ $0 }) { return try await fetch(request, through: proxy) }
        let result = await loop.run(request)
        return try result.get()
    }

    /// Through the `proxy` an admin set (docs/SECURITY.md): the proxy connects, so the address rule is
    /// applied here, to what the target's name resolves to, before each request (redirects are
    /// followed here for that, one hop a request, a private copy's credentials on its own host only).
    private func fetch(_ request: FetchRequest, through proxy: String) async throws(FetchError) -> FetchResponse {
        let policy = loop.policy(for: request)
        var hop = request
        var statuses: [Int] = []
        var reachedNonPublic = false
        while true {
            let host = FetchRequest.host(of: hop.url)
            guard let addresses = await HostResolver.addresses(of: host, timeout: request.limits.connectTimeout),
                  !addresses.isEmpty else {
                throw .transport("cannot resolve \(host)")
            }
            for address in addresses {
                if let refusal = policy.refusal(forAddress: address) { throw .refusedAddress(refusal) }
                if !AddressPolicy.isPublic(address) { reachedNonPublic = true }
            }
            var response = try await loop.run(hop, proxy: proxy).get()
            guard let location = response.redirectLocation else {
                response.reachedNonPublicAddress = reachedNonPublic
                let permanent = !statuses.isEmpty && statuses.allSatisfy { $0 == 301 || $0 == 308 }
                response.permanentRedirect = permanent ? response.finalURL : nil
                return response
            }
            statuses.append(response.status)
            guard statuses.count <= request.limits.maximumRedirects else {
                throw .transport("more than \(request.limits.maximumRedirects) redirects")
            }
            guard let next = URL(string: location, relativeTo: URL(string: hop.url))?.absoluteString,
                  let scheme = next.split(separator: ":").first?.lowercased(), scheme == "http" || scheme == "https" else {
                throw .unsupportedURL(location)
            }
            if FetchRequest.host(of: next) != request.host, hop.credentials != nil {
                hop.credentials = FetchCredentials(userAgent: hop.credentials?.userAgent)  // its cookie and password stay home
            }
            hop.url = next
        }
    }

    /// The policy fetches start with (before a request's own `refusingPrivateNetworks`).
    public var addressPolicy: AddressPolicy {
        loop.addressPolicy.withLock { $0 }
    }

    /// Applies `policy` to fetches started from now on (a configuration reload).
    public func setAddressPolicy(_ policy: AddressPolicy) {
        loop.addressPolicy.withLock { $0 = policy }
    }

    /// Sends fetches started from now on through `proxy` (a URL curl takes: `http://host:port`,
    /// `socks5h://…`), or directly with nil. Proxy environment variables are never used.
    public func setProxy(_ proxy: String?) {
        loop.proxy.withLock { $0 = proxy }
    }

    /// Stops the loop: transfers in flight end with `.cancelled`.
    public func stop() {
        loop.stop()
    }
}

/// The thread that owns the curl multi handle. Other threads only put work in the inbox and wake it.
private final class CurlLoop: @unchecked Sendable {
    private struct Inbox {
        var added: [Transfer] = []
        var cancelled: [Int] = []
        var stopping = false
        var nextID = 0
    }

    // Touched only by the loop thread once created.
    private let multi: UnsafeMutableRawPointer
    private var active: [Int: Transfer] = [:]
    /// How many transfers run per host, and those their per-host limit holds back, oldest first.
    /// The loop starts the next the moment one ends, so a bounded host never waits for a caller.
    private var runningPerHost: [String: Int] = [:]
    private var heldBack: [String: [Transfer]] = [:]
    private let inbox = Mutex(Inbox())
    private let userAgent: String
    /// Read as each transfer starts, so a change applies to the next fetches.
    let addressPolicy: Mutex<AddressPolicy>
    /// The proxy fetches go through (`FeedFetcher.setProxy`), nil: none.
    let proxy = Mutex<String?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    private static let globalInit: Void = { _ = aggregator_curl_global_init() }()

    init(userAgent: String, addressPolicy: AddressPolicy) {
        Self.globalInit
        multi = curl_multi_init()
        self.userAgent = userAgent
        self.addressPolicy = Mutex(addressPolicy)
        let thread = Thread { [self] in self.runLoop() }
        thread.name = "curl-loop"
        thread.start()
    }

    /// The policy a request's connections obey: the fetcher's, refusing private networks too when
    /// the request asks (`FetchRequest.refusingPrivateNetworks`).
    func policy(for request: FetchRequest) -> AddressPolicy {
        var policy = addressPolicy.withLock { $0 }
        if let reason = request.refusingPrivateNetworks, !policy.denyPrivateNetworks {
            policy = AddressPolicy(denyPrivateNetworks: true, reason: reason)
        }
        return policy
    }

    /// Runs one transfer. Through `proxy`, one request: redirects are answered, not followed, and
    /// the connection (to the proxy) is not checked; the caller checked the target's addresses.
    func run(_ request: FetchRequest, proxy: String? = nil) async -> Result<FetchResponse, FetchError> {
        let id = inbox.withLock { inbox -> Int in
            inbox.nextID += 1
            return inbox.nextID
        }
        guard let transfer = Transfer(id: id, request: request) else {
            return .failure(.transport("cannot create a curl handle"))
        }
        transfer.addressPolicy = policy(for: request)
        transfer.proxy = proxy
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.wait(with: continuation)
                let accepted = inbox.withLock { inbox -> Bool in
                    guard !inbox.stopping else { return false }
                    inbox.added.append(transfer)
                    return true
                }
                if accepted { curl_multi_wakeup(multi) } else { transfer.finish(.failure(.cancelled)) }
            }
        } onCancel: {
            inbox.withLock { $0.cancelled.append(id) }
            curl_multi_wakeup(multi)
        }
    }

    func stop() {
        let wasStopping = inbox.withLock { inbox -> Bool in
            defer { inbox.stopping = true }
            return inbox.stopping
        }
        guard !wasStopping else { return }
        curl_multi_wakeup(multi)
        finished.wait()
    }

    private func runLoop() {
        var running: Int32 = 0
        while true {
            let (added, cancelled, stopping) = inbox.withLock { inbox in
                defer { inbox.added = []; inbox.cancelled = [] }
                return (inbox.added, inbox.cancelled, inbox.stopping)
            }
            for transfer in added {
                if hasRoom(for: transfer) {
                    start(transfer)
                } else {
                    heldBack[transfer.host, default: []].append(transfer)
                }
            }
            for id in cancelled {
                if let transfer = active.removeValue(forKey: id) {
                    curl_multi_remove_handle(multi, transfer.easy)
                    transfer.finish(.failure(.cancelled))
                    _ = ended(transfer)
                } else if let transfer = releaseHeldBack(id) {
                    transfer.finish(.failure(.cancelled))
                }
            }
            if stopping {
                for transfer in active.values {
                    curl_multi_remove_handle(multi, transfer.easy)
                    transfer.finish(.failure(.cancelled))
                }
                for transfer in heldBack.values.joined() { transfer.finish(.failure(.cancelled)) }
                active.removeAll()
                heldBack.removeAll()
                curl_multi_cleanup(multi)
                finished.signal()
                return
            }
            curl_multi_perform(multi, &running)
            var remaining: Int32 = 0
            var startedHeldBack = false
            while let message = curl_multi_info_read(multi, &remaining) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                let code = message.pointee.data.result
                var pointer: UnsafeMutableRawPointer?
                aggregator_curl_getinfo_pointer(easy, CURLINFO_PRIVATE, &pointer)
                guard let pointer else { continue }
                let transfer = Unmanaged<Transfer>.fromOpaque(pointer).takeUnretainedValue()
                curl_multi_remove_handle(multi, easy)
                active.removeValue(forKey: transfer.id)
                transfer.finish(Self.result(of: transfer, code: code))
                if ended(transfer) { startedHeldBack = true }
            }
            // A transfer just started sends its request now rather than after a wait. With no transfer
            // at all there is nothing to time out: sleep until `curl_multi_wakeup` (a fetch asked for,
            // cancelled, or the fetcher stopping) rather than waking every second for nothing.
            let idle = active.isEmpty && heldBack.isEmpty
            if !startedHeldBack { curl_multi_poll(multi, nil, 0, idle ? Int32.max : 1000, nil) }
        }
    }

    /// Whether the transfer's per-host limit lets it start now.
    private func hasRoom(for transfer: Transfer) -> Bool {
        runningPerHost[transfer.host, default: 0] < transfer.request.perHostLimit ?? .max
    }

    private func start(_ transfer: Transfer) {
        if let refused = transfer.configure(userAgent: userAgent) {
            // A limit or check that did not take would make this fetch unsafe: it does not run.
            transfer.finish(.failure(.transport("curl refused an option (\(refused)); not fetched")))
            return
        }
        active[transfer.id] = transfer
        runningPerHost[transfer.host, default: 0] += 1
        curl_multi_add_handle(multi, transfer.easy)
    }

    /// A running transfer ended: the transfers held back for its host start while their limit allows.
    /// - Returns: whether one started.
    private func ended(_ transfer: Transfer) -> Bool {
        let host = transfer.host
        runningPerHost[host, default: 1] -= 1
        var started = false
        while var waiting = heldBack[host], let next = waiting.first, hasRoom(for: next) {
            waiting.removeFirst()
            heldBack[host] = waiting.isEmpty ? nil : waiting
            start(next)
            started = true
        }
        if runningPerHost[host] == 0 { runningPerHost[host] = nil }
        return started
    }

    /// Takes a held-back transfer out of its queue, if `id` is one.
    private func releaseHeldBack(_ id: Int) -> Transfer? {
        for (host, waiting) in heldBack {
            guard let index = waiting.firstIndex(where: { $0.id == id }) else { continue }
            var rest = waiting
            let transfer = rest.remove(at: index)
            heldBack[host] = rest.isEmpty ? nil : rest
            return transfer
        }
        return nil
    }

    // MARK: - Results

    private static func result(of transfer: Transfer, code: CURLcode) -> Result<FetchResponse, FetchError> {
        if let failure = transfer.failure { return .failure(failure) }
        let limits = transfer.request.limits
        switch code {
        case CURLE_OK:
            break
        case CURLE_FILESIZE_EXCEEDED:
            return .failure(.tooLarge(limit: limits.maximumBodyBytes))
        case CURLE_TOO_MANY_REDIRECTS:
            return .failure(.transport("more than \(limits.maximumRedirects) redirects"))
        case CURLE_UNSUPPORTED_PROTOCOL:
            return .failure(.unsupportedURL(transfer.redirectTarget ?? transfer.request.url))
        case CURLE_OPERATION_TIMEDOUT:
            return .failure(.transport("timed out (no complete answer within the time limits)"))
        default:
            return .failure(.transport(String(cString: curl_easy_strerror(code))))
        }
        var status = 0
        aggregator_curl_getinfo_long(transfer.easy, CURLINFO_RESPONSE_CODE, &status)
        var effective: UnsafeMutablePointer<CChar>?
        aggregator_curl_getinfo_string(transfer.easy, CURLINFO_EFFECTIVE_URL, &effective)
        let finalURL = effective.map { String(cString: $0) } ?? transfer.request.url
        let headers = transfer.headers
        if transfer.proxy != nil, (300..<400).contains(status), status != 304, let location = headers["location"] {
            var redirect = FetchResponse(status: status, body: Data(), finalURL: finalURL, etag: nil, lastModified: nil,
                                         contentType: nil, freshFor: nil)
            redirect.redirectLocation = location
            return .success(redirect)
        }
        guard status == 304 || (200..<300).contains(status) else {
            let retryAfter = (status == 429 || status == 503) ? headers["retry-after"].flatMap { HTTPDate.delay($0) } : nil
            return .failure(.httpStatus(status, retryAfter: retryAfter))
        }
        let redirects = transfer.statuses.dropLast()
        let permanent = !redirects.isEmpty && redirects.allSatisfy { $0 == 301 || $0 == 308 }
        return .success(FetchResponse(
            status: status, body: status == 304 ? Data() : transfer.body, finalURL: finalURL,
            permanentRedirect: permanent ? finalURL : nil, etag: headers["etag"], lastModified: headers["last-modified"],
            contentType: headers["content-type"], freshFor: HTTPDate.freshness(headers),
            reachedNonPublicAddress: transfer.reachedNonPublic))
    }
}

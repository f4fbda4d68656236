import CCurl
import Foundation

/// One transfer on the curl loop: its easy handle, what has arrived, and who waits for it.
/// Created by a caller, then touched only by the loop thread (curl calls back on that thread).
final class Transfer: @unchecked Sendable {
    let id: Int
    let request: FetchRequest
    /// The request's host, as its per-host limit counts.
    let host: String
    let easy: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var continuation: CheckedContinuation<Result<FetchResponse, FetchError>, Never>?

    var body = Data()
    var failure: FetchError?
    /// Headers of the latest response (a redirect chain sends several).
    var headers: [String: String] = [:]
    var statuses: [Int] = []
    /// The Location of the latest redirect, for messages about where it pointed.
    var redirectTarget: String?

    init?(id: Int, request: FetchRequest) {
        guard let easy = curl_easy_init() else { return nil }
        self.id = id
        self.request = request
        host = request.host
        self.easy = easy
    }

    deinit {
        curl_slist_free_all(headerList)
        curl_easy_cleanup(easy)
    }

    func wait(with continuation: CheckedContinuation<Result<FetchResponse, FetchError>, Never>) {
        self.continuation = continuation
    }

    /// Resumes the waiting caller exactly once.
    func finish(_ result: Result<FetchResponse, FetchError>) {
        continuation?.resume(returning: result)
        continuation = nil
    }

    /// Sets every option a fetch needs on the easy handle: validators, limits, redirects, address checks.
    /// - Returns: the first option curl refused (with curl's reason), or nil when all were set. A
    ///   transfer missing one of its limits or checks must not run.
    func configure(userAgent: String) -> String? {
        var refused: String?
        func check(_ code: CURLcode, _ option: String) {
            guard code != CURLE_OK, refused == nil else { return }
            refused = "\(option): \(String(cString: curl_easy_strerror(code)))"
        }
        setRequest(userAgent: userAgent, check)
        setLimits(check)
        setCallbacks(check)
        return refused
    }

    /// What is asked, and as whom: the URL, user agent, a private copy's credentials, the headers.
    private func setRequest(userAgent: String, _ check: (CURLcode, String) -> Void) {
        check(aggregator_curl_setopt_string(easy, CURLOPT_URL, request.url), "URL")
        let credentials = request.credentials
        check(aggregator_curl_setopt_string(easy, CURLOPT_USERAGENT, credentials?.userAgent ?? userAgent), "USERAGENT")
        if let username = credentials?.username {
            // Basic only, and (curl's default) never to another host a redirect leads to.
            check(aggregator_curl_setopt_long(easy, CURLOPT_HTTPAUTH, 1), "HTTPAUTH")  // CURLAUTH_BASIC (a macro)
            check(aggregator_curl_setopt_string(easy, CURLOPT_USERNAME, username), "USERNAME")
            check(aggregator_curl_setopt_string(easy, CURLOPT_PASSWORD, credentials?.password ?? ""), "PASSWORD")
        }
        if let cookie = credentials?.cookie {
            // Through the cookie engine, bound to the feed's host: CURLOPT_COOKIE would follow redirects anywhere.
            for line in FetchCredentials.cookieLines(cookie, host: host) {
                check(aggregator_curl_setopt_string(easy, CURLOPT_COOKIELIST, line), "COOKIELIST")
            }
        }
        if credentials?.allowsSelfSignedCertificates == true {
            check(aggregator_curl_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 0), "SSL_VERIFYPEER")
            check(aggregator_curl_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 0), "SSL_VERIFYHOST")
        }
        var list: UnsafeMutablePointer<curl_slist>?
        // RFC 9110 §13.1.3: a server that sees If-None-Match ignores If-Modified-Since; send both anyway
        // for servers that only implement one.
        if let etag = request.etag { list = curl_slist_append(list, "If-None-Match: \(etag)") }
        if let lastModified = request.lastModified { list = curl_slist_append(list, "If-Modified-Since: \(lastModified)") }
        list = curl_slist_append(list, "Accept: application/rss+xml, application/atom+xml, application/feed+json, application/xml;q=0.9, */*;q=0.8")
        headerList = list
        check(aggregator_curl_setopt_slist(easy, CURLOPT_HTTPHEADER, list), "HTTPHEADER")
    }

    /// Where it may go and for how long: protocols, proxy, redirects, time and size limits.
    private func setLimits(_ check: (CURLcode, String) -> Void) {
        let limits = request.limits
        check(aggregator_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1), "NOSIGNAL")
        // "" turns off the proxy libcurl would take from http_proxy, https_proxy and ALL_PROXY: through a
        // proxy the address check would see the proxy, not the feed's host (docs/SECURITY.md). The
        // admin's `proxy` is used, one request a transfer (`FeedFetcher.fetch(_:through:)`).
        check(aggregator_curl_setopt_string(easy, CURLOPT_PROXY, proxy ?? ""), "PROXY")
        check(aggregator_curl_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"), "PROTOCOLS_STR")
        check(aggregator_curl_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"), "REDIR_PROTOCOLS_STR")
        check(aggregator_curl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, proxy == nil ? 1 : 0), "FOLLOWLOCATION")
        check(aggregator_curl_setopt_long(easy, CURLOPT_MAXREDIRS, limits.maximumRedirects), "MAXREDIRS")
        // "": every encoding curl decodes.
        check(aggregator_curl_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, ""), "ACCEPT_ENCODING")
        check(aggregator_curl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(limits.connectTimeout)),
              "CONNECTTIMEOUT_MS")
        check(aggregator_curl_setopt_long(easy, CURLOPT_TIMEOUT_MS, Self.milliseconds(limits.totalTimeout)), "TIMEOUT_MS")
        check(aggregator_curl_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, limits.lowSpeedBytesPerSecond), "LOW_SPEED_LIMIT")
        check(aggregator_curl_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, max(1, Self.milliseconds(limits.lowSpeedTime) / 1000)),
              "LOW_SPEED_TIME")
        // Rejects on Content-Length before any body arrives; the write callback counts what does arrive.
        check(aggregator_curl_setopt_off(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limits.maximumBodyBytes)),
              "MAXFILESIZE_LARGE")
    }

    /// What curl calls back: the body and headers as they arrive, the address checks before each
    /// connection and request.
    private func setCallbacks(_ check: (CURLcode, String) -> Void) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        check(aggregator_curl_setopt_pointer(easy, CURLOPT_PRIVATE, me), "PRIVATE")
        check(aggregator_curl_setopt_pointer(easy, CURLOPT_WRITEDATA, me), "WRITEDATA")
        check(aggregator_curl_setopt_pointer(easy, CURLOPT_HEADERDATA, me), "HEADERDATA")
        check(aggregator_curl_setopt_pointer(easy, CURLOPT_OPENSOCKETDATA, me), "OPENSOCKETDATA")
        check(aggregator_curl_set_write_function(easy) { buffer, size, count, userdata in
            let transfer = Unmanaged<Transfer>.fromOpaque(userdata!).takeUnretainedValue()
            let length = size * count
            guard transfer.body.count + length <= transfer.request.limits.maximumBodyBytes else {
                transfer.failure = .tooLarge(limit: transfer.request.limits.maximumBodyBytes)
                return 0  // anything but `length` aborts the transfer
            }
            if let buffer { transfer.body.append(UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: length) }
            return length
        }, "WRITEFUNCTION")
        check(aggregator_curl_set_header_function(easy) { buffer, size, count, userdata in
            let transfer = Unmanaged<Transfer>.fromOpaque(userdata!).takeUnretainedValue()
            let length = size * count
            guard let buffer else { return length }
            transfer.takeHeaderLine(UnsafeRawBufferPointer(start: buffer, count: length).bindMemory(to: UInt8.self))
            return length
        }, "HEADERFUNCTION")
        check(aggregator_curl_setopt_pointer(easy, CURLOPT_PREREQDATA, me), "PREREQDATA")
        check(aggregator_curl_set_opensocket_function(easy) { clientp, _, address in
            let transfer = Unmanaged<Transfer>.fromOpaque(clientp!).takeUnretainedValue()
            guard let address else { return aggregator_curl_socket_bad() }
            var text = [CChar](repeating: 0, count: 64)
            if aggregator_curl_address_string(address, &text, 64) != 0, transfer.refuses(address: text) {
                return aggregator_curl_socket_bad()
            }
            return socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
        }, "OPENSOCKETFUNCTION")
        // Called before every request, also on a connection kept alive from an earlier transfer, which
        // the check above never saw under the policy in force now (a reload may have changed it).
        check(aggregator_curl_set_prereq_function(easy) { clientp, primaryIP, _, _, _ in
            let transfer = Unmanaged<Transfer>.fromOpaque(clientp!).takeUnretainedValue()
            guard let primaryIP else { return aggregator_curl_prereq_ok() }
            return transfer.refuses(address: primaryIP) ? aggregator_curl_prereq_abort() : aggregator_curl_prereq_ok()
        }, "PREREQFUNCTION")
    }

    var addressPolicy = AddressPolicy()
    /// Some connection was to a non-public address (`FetchResponse.reachedNonPublicAddress`).
    var reachedNonPublic = false
    /// The admin's proxy this transfer goes through; its connection is to the proxy, not checked.
    var proxy: String?

    /// Whether the policy refuses the numeric `address` (a C string); records the refusal as the failure,
    /// and a non-public address it lets through.
    private func refuses(address: UnsafePointer<CChar>) -> Bool {
        guard proxy == nil else { return false }
        let text = String(cString: address)
        if !AddressPolicy.isPublic(text) { reachedNonPublic = true }
        guard let refusal = addressPolicy.refusal(forAddress: text) else { return false }
        failure = .refusedAddress(refusal)
        return true
    }

    /// The headers the fetcher reads; others are not kept (a 304 pass reads ~8 lines a feed).
    private static let kept: Set<String> = ["etag", "last-modified", "content-type", "retry-after", "cache-control",
                                            "expires", "location"]

    /// One header line as curl hands it over (with its CRLF), read on the bytes: going through
    /// Foundation's trimming cost a fifth of a round of 304s.
    private func takeHeaderLine(_ line: UnsafeBufferPointer<UInt8>) {
        let trimmed = Self.trimmed(line[...])
        if trimmed.starts(with: "HTTP/".utf8) {
            // A new response in the chain (redirect, 100 Continue): start its headers afresh.
            headers = [:]
            let parts = trimmed.split(separator: UInt8(ascii: " "), maxSplits: 2)
            if parts.count > 1, let status = Int(String(decoding: parts[1], as: UTF8.self)) { statuses.append(status) }
            return
        }
        guard let colon = trimmed.firstIndex(of: UInt8(ascii: ":")) else { return }
        let name = String(decoding: trimmed[..<colon].map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
        guard Self.kept.contains(name) else { return }
        let value = String(decoding: Self.trimmed(trimmed[(colon + 1)...]), as: UTF8.self)
        headers[name] = value
        if name == "location" { redirectTarget = value }
    }

    private static func trimmed(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return bytes[bytes.startIndex..<bytes.startIndex]
        }
        return bytes[first...last]
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

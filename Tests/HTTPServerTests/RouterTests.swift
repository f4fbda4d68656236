@testable import HTTPServer
import Foundation
import Testing

@Suite struct RouterTests {
    let router: Router<String> = {
        var router = Router<String>()
        router.add("GET", "/v1/feeds/{feedID}", "feed")
        router.add("GET", "/v1/feeds/counters", "counters")
        router.add("PUT", "/v1/feeds/{feedID}", "update")
        router.add("GET", "/v1/feeds/{feedID}/entries/{entryID}", "entry")
        return router
    }()

    private func found(_ method: String, _ path: String) -> (String, [String: String])? {
        if case .found(let handler, let parameters, _) = router.match(method: method, path: path) { return (handler, parameters) }
        return nil
    }

    @Test func placeholdersLiteralsAndMethods() {
        #expect(found("GET", "/v1/feeds/12")?.0 == "feed" && found("GET", "/v1/feeds/12")?.1 == ["feedID": "12"])
        #expect(found("GET", "/v1/feeds/counters")?.0 == "counters", "a literal wins over a placeholder")
        #expect(found("PUT", "/v1/feeds/12")?.0 == "update")
        #expect(found("HEAD", "/v1/feeds/12")?.0 == "feed")
        #expect(found("GET", "/v1/feeds/3/entries/4")?.1 == ["feedID": "3", "entryID": "4"])
        #expect(found("GET", "/v1/feeds/12/")?.0 == "feed", "a trailing slash is the same path")
    }

    @Test func unknownPathsAndMethodsAreToldApart() {
        guard case .methodNotAllowed(let allowed) = router.match(method: "DELETE", path: "/v1/feeds/12") else {
            Issue.record("DELETE should be not allowed")
            return
        }
        #expect(allowed == ["GET", "PUT"])
        for path in ["/v1/feeds", "/v1/feeds//entries/4", "/v1/feeds/1/entries/2/3", "", "/"] {
            guard case .notFound = router.match(method: "GET", path: path) else {
                Issue.record("\(path) should not be found")
                continue
            }
        }
    }
}

@Suite struct ResponseCompressionTests {
    @Test func largeTextGoesOutGzippedToClientsThatTakeIt() throws {
        let body = Data(String(repeating: #"{"title":"An entry","status":"unread"},"#, count: 100).utf8)
        let response = HTTPResponse.json(body)
        let compressed = ResponseCompression.compressed(response, acceptEncoding: "gzip, deflate, br")
        #expect(compressed.headers.contains { $0 == ("Content-Encoding", "gzip") })
        #expect(compressed.body.count < body.count / 10 && compressed.body.starts(with: [0x1F, 0x8B]))
        #expect(ResponseCompression.compressed(response, acceptEncoding: nil).body == body)
        #expect(ResponseCompression.compressed(response, acceptEncoding: "gzip;q=0").body == body)
        #expect(ResponseCompression.compressed(response, acceptEncoding: "br").body == body)
        #expect(ResponseCompression.compressed(.json(Data("{}".utf8)), acceptEncoding: "gzip").body == Data("{}".utf8))
        let image = HTTPResponse(status: 200, headers: [("Content-Type", "image/png")], body: body)
        #expect(ResponseCompression.compressed(image, acceptEncoding: "gzip").body == body)
    }
}

@Suite struct TrustedProxiesTests {
    private func request(from peer: String, forwardedFor: String? = nil, proto: String? = nil) -> HTTPRequest {
        var headers: [String: String] = [:]
        headers["x-forwarded-for"] = forwardedFor
        headers["x-forwarded-proto"] = proto
        return HTTPRequest(method: "GET", path: "/", headers: headers, clientAddress: peer)
    }

    @Test func onlyATrustedPeerNamesTheClient() throws {
        let loopback = TrustedProxies.loopback
        #expect(loopback.client(of: request(from: "127.0.0.1", forwardedFor: "203.0.113.5")) == "203.0.113.5")
        #expect(loopback.client(of: request(from: "::1", forwardedFor: "2001:db8::7")) == "2001:db8::7")
        #expect(loopback.client(of: request(from: "198.51.100.1", forwardedFor: "203.0.113.5")) == "198.51.100.1",
                "an untrusted peer cannot claim another address")
        // The nearest untrusted hop wins: what a client wrote itself at the left is not believed.
        #expect(loopback.client(of: request(from: "127.0.0.1", forwardedFor: "10.9.9.9, 203.0.113.5, 127.0.0.1"))
            == "203.0.113.5")
        #expect(loopback.client(of: request(from: "127.0.0.1", forwardedFor: "garbage")) == "127.0.0.1")
        #expect(loopback.isHTTPS(request(from: "127.0.0.1", proto: "https")))
        #expect(!loopback.isHTTPS(request(from: "198.51.100.1", proto: "https")))
    }

    @Test func networksAndBadLists() throws {
        let proxies = try #require(TrustedProxies("10.0.0.0/8, fd00::/8 192.0.2.7"))
        #expect(proxies.trusts("10.200.1.1") && proxies.trusts("fd12::1") && proxies.trusts("192.0.2.7"))
        #expect(!proxies.trusts("11.0.0.1") && !proxies.trusts("192.0.2.8") && !proxies.trusts("fe80::1"))
        #expect(proxies.trusts("::ffff:10.1.1.1"), "IPv4-mapped IPv6 is the same address")
        #expect(TrustedProxies("none")?.trusts("127.0.0.1") == false)
        for bad in ["10.0.0.0/33", "example.org", "10.0.0.1/x", "::1/129"] { #expect(TrustedProxies(bad) == nil, "\(bad)") }
    }
}

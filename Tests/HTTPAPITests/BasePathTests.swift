@testable import HTTPAPI
import Testing

@Suite struct BasePathTests {
    @Test func pathsUnderTheBaseLoseItOthersAreNotServed() {
        #expect(HTTPFrontEnd.path("/v1/me", under: "/") == "/v1/me")
        #expect(HTTPFrontEnd.path("/rss/v1/me", under: "/rss") == "/v1/me")
        #expect(HTTPFrontEnd.path("/rss", under: "/rss") == "/")
        #expect(HTTPFrontEnd.path("/rssx/v1/me", under: "/rss") == nil)
        #expect(HTTPFrontEnd.path("/v1/me", under: "/rss") == nil)
    }
}

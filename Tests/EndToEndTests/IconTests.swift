import Foundation
import TestSupport
import Testing

/// Feed icons (docs/ARCHITECTURE.md), found after a round on the local server and served to every API:
/// the image a feed's document names, else the icon its site's page links to; none when the site
/// has neither (its /favicon.ico is a 404).
@Suite struct IconTests {
    @Test func iconsAreFoundKeptOnceAndServedToEveryAPI() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon(
            seed: [("Iconic", server.url("/iconic.xml")), ("Imaged", server.url("/imaged.xml")), ("Bare", server.url("/bare.xml"))],
            extraArguments: ["--feed-icons", "true"])
        defer { daemon.stop() }
        let token = try daemon.createAccount()
        let auth = ["-H", "X-Auth-Token: \(token)"]
        #expect(try daemon.ctl(["refresh", "--wait"]).status == 0)

        // The pass after the round finds two icons.
        var feeds: [[String: Any]] = []
        for _ in 0..<150 {
            let body = try daemon.curl("/v1/feeds", auth).body
            feeds = (try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [[String: Any]]) ?? []
            if feeds.filter({ $0["icon"] is [String: Any] }).count == 2 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        func feed(_ title: String) throws -> [String: Any] { try #require(feeds.first { $0["title"] as? String == title }) }
        let iconic = try feed("Iconic"), imaged = try feed("Imaged"), bare = try feed("Bare")
        let siteIcon = try #require(iconic["icon"] as? [String: Any], "\(feeds)")
        let logo = try #require(imaged["icon"] as? [String: Any])
        #expect(bare["icon"] is NSNull)
        #expect(siteIcon["feed_id"] as? Int == iconic["id"] as? Int)
        let digest = try #require(siteIcon["external_icon_id"] as? String)
        #expect(digest.count == 64)

        // Miniflux: by feed and by icon id, as `type;base64,data`; a feed without one is a 404.
        let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
        let byFeed = try daemon.curl("/v1/feeds/\(iconic["id"] as? Int ?? 0)/icon", auth)
        #expect(byFeed.status == 200 && byFeed.body.contains("\"data\":\"image/png;base64,\(png)\""), "\(byFeed.body)")
        #expect(byFeed.body.contains("\"mime_type\":\"image/png\""))
        let byID = try daemon.curl("/v1/icons/\(logo["icon_id"] as? Int ?? 0)", auth)
        #expect(byID.status == 200 && byID.body.contains("\"mime_type\":\"image/gif\""))
        #expect(try daemon.curl("/v1/feeds/\(bare["id"] as? Int ?? 0)/icon", auth).status == 404)
        #expect(try daemon.curl("/v1/icons/999999", auth).status == 404)

        // Google Reader: an absolute URL the app loads without credentials.
        let readerToken = ["-H", "Authorization: GoogleLogin auth=\(token)"]
        let list = try daemon.curl("/reader/api/0/subscription/list?output=json", readerToken).body
        let iconURL = "\(daemon.baseURL)/feed-icon/\(digest)"
        #expect(list.contains("\"iconUrl\":\"\(iconURL.replacingOccurrences(of: "/", with: "\\/"))\"")
                || list.contains("\"iconUrl\":\"\(iconURL)\""), "\(list)")
        let image = try daemon.curl("/feed-icon/\(digest)")
        #expect(image.status == 200 && image.headers["content-type"] == "image/png")
        #expect(image.headers["content-security-policy"]?.contains("sandbox") == true)
        #expect(image.headers["cache-control"]?.contains("immutable") == true)
        #expect(try daemon.curl("/feed-icon/\(String(repeating: "0", count: 64))").status == 404)
        #expect(try daemon.curl("/feed-icon/not-a-digest").status == 404)

        // The web page: beside the feed on the feeds page and beside each of its articles.
        let jar = daemon.directory.appendingPathComponent("cookies").path
        let login = try daemon.curl("/login", ["-c", jar])
        let loginToken = try #require(login.body.firstMatch(of: /name="login_token" value="([0-9a-f]{64})"/)?.1)
        #expect(try daemon.curl("/login", ["-b", jar, "-c", jar,
                                           "-d", "login_token=\(loginToken)&name=owner&password=correct+horse+battery"]).status == 303)
        let img = "<img class=\"feed-icon\" src=\"/feed-icon/\(digest)\""
        #expect(try daemon.curl("/feeds", ["-b", jar]).body.contains(img))
        #expect(try daemon.curl("/feed/\(iconic["id"] as? Int ?? 0)", ["-b", jar]).body.contains(img))

        // Fever: every icon, and each feed's favicon_id.
        _ = try daemon.ctl(["user", "fever", "on"], input: "correct horse battery\n")
        let key = try runPython("import hashlib,sys; print(hashlib.md5(sys.argv[1].encode()).hexdigest())",
                                ["owner:correct horse battery"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        let fever = try daemon.curl("/fever/?api&favicons&feeds", ["-d", "api_key=\(key)"]).body
        #expect(fever.contains("\"data\":\"image/png;base64,\(png)\"") && fever.contains("\"data\":\"image/gif;base64,"), "\(fever)")
        #expect(fever.contains("\"favicon_id\":\(siteIcon["icon_id"] as? Int ?? -1)"))
    }

    /// A feed added through Miniflux's API has its icon when the answer comes, as in Miniflux (apps ask
    /// for it right away).
    @Test func aFeedAddedThroughTheAPIHasItsIconAtOnce() async throws {
        let server = try FeedTestServer()
        defer { server.stop() }
        let daemon = try await ServedDaemon(extraArguments: ["--feed-icons", "true", "--private-networks", "all"])
        defer { daemon.stop() }
        let auth = ["-H", "X-Auth-Token: \(try daemon.createAccount())"]
        let created = try daemon.curl("/v1/feeds", auth + ["-X", "POST", "-d", #"{"feed_url": "\#(server.url("/iconic.xml"))"}"#])
        let id = try #require((try JSONSerialization.jsonObject(with: Data(created.body.utf8)) as? [String: Any])?["feed_id"] as? Int,
                              "\(created.status) \(created.body)")
        let icon = try daemon.curl("/v1/feeds/\(id)/icon", auth)
        #expect(icon.status == 200 && icon.body.contains("image/"), "\(icon.status) \(icon.body.prefix(200))")
    }
}

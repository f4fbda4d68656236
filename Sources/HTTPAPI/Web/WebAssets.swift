import Credentials
import Foundation
import HTTPServer

/// The web page's stylesheet, script and icon, built into the binary. Each is served under a name
/// that carries a digest of its content, so browsers may keep it for a year: a new build that
/// changes it changes the name.
struct WebAsset: Sendable {
    let path: String
    let contentType: String
    let body: Data

    init(name: String, fileExtension: String, contentType: String, text: String) {
        let digest = SecretToken.digest(text).prefix(12)
        path = "/static/\(name).\(digest).\(fileExtension)"
        self.contentType = contentType
        body = Data(text.utf8)
    }

    var response: HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", contentType),
                                            ("Cache-Control", "public, max-age=31536000, immutable")], body: body)
    }
}

enum WebAssets {
    static let stylesheet = WebAsset(name: "app", fileExtension: "css", contentType: "text/css; charset=utf-8",
                                     text: WebStylesheet.text)
    static let script = WebAsset(name: "app", fileExtension: "js", contentType: "text/javascript; charset=utf-8",
                                 text: WebScript.text)
    static let icon = WebAsset(name: "icon", fileExtension: "svg", contentType: "image/svg+xml", text: """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#c2410c"/>\
        <circle cx="4.5" cy="11.5" r="1.6" fill="#fff"/><path d="M3 6.5a6.5 6.5 0 0 1 6.5 6.5M3 3a10 10 0 0 1 10 10" \
        stroke="#fff" stroke-width="1.8" fill="none"/></svg>
        """)

    static let all = [stylesheet, script, icon]

    static func asset(at path: String) -> WebAsset? {
        all.first { $0.path == path }
    }
}

import AggregatorCore
import FeedStore
import Foundation
import HTTPServer

/// Feed icons by their digest at `/feed-icon/{digest}`, without a login: what Google Reader apps
/// load as `iconUrl` and the web page shows. The digest names the image (it cannot change), so the
/// answer is cached for a year; an SVG opened on its own can run nothing (sandboxed, no script).
enum FeedIcons {
    static let prefix = "/feed-icon/"

    static func serves(_ path: String) -> Bool { path.hasPrefix(prefix) }

    /// The path of an icon, under the server's base path.
    static func path(_ digest: String, basePath: String) -> String {
        (basePath == "/" ? "" : basePath) + prefix + digest
    }

    /// Miniflux's and Fever's form: `image/png;base64,…`.
    static func dataText(_ icon: FeedIcon) -> String {
        icon.mimeType + ";base64," + icon.data.base64EncodedString()
    }

    static func answer(_ request: HTTPRequest, service: AggregatorService) async -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return HTTPResponse(status: 405, headers: [("Allow", "GET, HEAD")], body: Data())
        }
        let digest = String(request.path.dropFirst(prefix.count))
        let icon: FeedIcon?
        do {
            icon = try await service.icon(digest: digest)
        } catch {
            return HTTPFrontEnd.error(error.description, status: 503)
        }
        guard let icon else { return .text("no such icon\n", status: 404) }
        return HTTPResponse(status: 200, headers: [
            ("Content-Type", icon.mimeType), ("Cache-Control", "public, max-age=31536000, immutable"),
            ("X-Content-Type-Options", "nosniff"),
            ("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox"),
        ], body: icon.data)
    }
}

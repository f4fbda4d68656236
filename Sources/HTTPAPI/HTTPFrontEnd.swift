import AggregatorCore
import Foundation
import HTTPServer

/// The daemon's HTTP front end: routes each request to its answer, over the same service as the
/// control socket. Today it answers `/healthcheck` (as Miniflux does: `OK`, for reverse proxies
/// and monitors); the reader APIs (Miniflux, Google Reader, Fever) and the web page come next.
public struct HTTPFrontEnd: Sendable {
    let service: AggregatorService

    public init(service: AggregatorService) {
        self.service = service
    }

    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        switch (request.method, request.path) {
        case ("GET", "/healthcheck"), ("HEAD", "/healthcheck"):
            return .text("OK")
        case (_, "/healthcheck"):
            var response = Self.error("method \(request.method) not allowed here", status: 405)
            response.headers.append(("Allow", "GET, HEAD"))
            return response
        default:
            return Self.error("no such page: \(request.path)", status: 404)
        }
    }

    /// An error as the reader APIs write them: `{"error_message": "…"}`.
    static func error(_ message: String, status: Int) -> HTTPResponse {
        let body = try? JSONSerialization.data(withJSONObject: ["error_message": message], options: [.sortedKeys])
        return .json(body ?? Data(), status: status)
    }
}

import Foundation

/// One request as the server read it. The path is percent-decoded already (libmicrohttpd does
/// that); header names are lower case.
public struct HTTPRequest: Sendable {
    public var method: String
    public var path: String
    /// The query's arguments, in order, decoded.
    public var query: [(name: String, value: String)]
    public var headers: [String: String]
    public var body: Data
    /// The peer's numeric address (`127.0.0.1`, `::1`), or "" when unknown.
    public var clientAddress: String

    public init(method: String, path: String, query: [(name: String, value: String)] = [],
                headers: [String: String] = [:], body: Data = Data(), clientAddress: String = "") {
        (self.method, self.path, self.query, self.headers) = (method, path, query, headers)
        (self.body, self.clientAddress) = (body, clientAddress)
    }

    /// The value of the first query argument called `name`.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }
}

/// What the server sends back.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: Data

    public init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data()) {
        (self.status, self.headers, self.body) = (status, headers, body)
    }

    /// Plain text, UTF-8.
    public static func text(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Data(text.utf8))
    }

    /// A JSON document, already encoded.
    public static func json(_ body: Data, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: body)
    }
}

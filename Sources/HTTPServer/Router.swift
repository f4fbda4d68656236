/// Finds the handler of a request by method and path pattern. Patterns are literal segments and
/// `{name}` placeholders, each matching one non-empty segment: `/v1/feeds/{feedID}/entries/{entryID}`.
/// Literal routes win over placeholders (`/v1/feeds/counters` before `/v1/feeds/{feedID}`).
public struct Router<Handler: Sendable>: Sendable {
    private struct Route: Sendable {
        let method: String
        let pattern: String
        let segments: [Substring]
        let handler: Handler

        var literalCount: Int { segments.filter { !$0.hasPrefix("{") }.count }
    }

    /// What a path matched.
    public enum Match {
        /// The handler, the placeholders' values by name, and the pattern (a bounded name to count by).
        case found(Handler, parameters: [String: String], pattern: String)
        /// The path exists, but not with this method: these are the methods it takes.
        case methodNotAllowed([String])
        case notFound
    }

    private var routes: [Route] = []

    public init() {}

    public mutating func add(_ method: String, _ pattern: String, _ handler: Handler) {
        routes.append(Route(method: method, pattern: pattern, segments: pattern.split(separator: "/"), handler: handler))
        // Most literal segments first: of two patterns that both match, the more specific answers.
        routes.sort { $0.literalCount > $1.literalCount }
    }

    public func match(method: String, path: String) -> Match {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let parts = segments.last == "" ? Array(segments.dropLast()) : Array(segments)  // a trailing slash is the same path
        var allowed: [String] = []
        for route in routes where route.segments.count == parts.count {
            guard let parameters = Self.parameters(of: route.segments, in: parts) else { continue }
            if route.method == method || (method == "HEAD" && route.method == "GET") {
                return .found(route.handler, parameters: parameters, pattern: route.pattern)
            }
            if !allowed.contains(route.method) { allowed.append(route.method) }
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed)
    }

    private static func parameters(of pattern: [Substring], in parts: [Substring]) -> [String: String]? {
        var parameters: [String: String] = [:]
        for (expected, part) in zip(pattern, parts) {
            if expected.hasPrefix("{") {
                guard !part.isEmpty else { return nil }
                parameters[String(expected.dropFirst().dropLast())] = String(part)
            } else if expected != part {
                return nil
            }
        }
        return parameters
    }
}

import Foundation

/// The dedupe key of an article URL (DESIGN.md §3): absolute http(s), scheme and host lower-cased,
/// default port and `#fragment` dropped, tracking parameters (`utm_*`, `fbclid`, `gclid`) removed.
enum CanonicalURL {
    /// The canonical form of `url`, or nil when it is not an absolute http(s) URL.
    static func key(for url: String) -> String? {
        var rest = Substring(url.trimmingCharacters(in: [" ", "\t", "\n", "\r"]))
        guard let colon = rest.firstIndex(of: ":") else { return nil }
        let scheme = rest[..<colon].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        rest = rest[rest.index(after: colon)...]
        guard rest.hasPrefix("//") else { return nil }
        rest = rest.dropFirst(2)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        var pathAndQuery = rest[authorityEnd...]
        // Userinfo stays as written; the host and port are normalised.
        var userinfo = ""
        if let at = authority.lastIndex(of: "@") {
            userinfo = String(authority[...at])
            authority = authority[authority.index(after: at)...]
        }
        var host = authority.lowercased()
        let defaultPort = scheme == "http" ? ":80" : ":443"
        if host.hasSuffix(defaultPort) { host.removeLast(defaultPort.count) }
        if host.hasSuffix(":") { host.removeLast() }
        guard !host.isEmpty else { return nil }
        var path = pathAndQuery
        var query: Substring?
        if let question = pathAndQuery.firstIndex(of: "?") {
            path = pathAndQuery[..<question]
            query = pathAndQuery[pathAndQuery.index(after: question)...]
        }
        pathAndQuery = path.isEmpty ? "/" : path
        var result = scheme + "://" + userinfo + host + pathAndQuery
        if let query {
            let kept = query.split(separator: "&", omittingEmptySubsequences: true).filter { parameter in
                let name = parameter.prefix { $0 != "=" }.lowercased()
                return !(name.hasPrefix("utm_") || name == "fbclid" || name == "gclid")
            }
            if !kept.isEmpty { result += "?" + kept.joined(separator: "&") }
        }
        return result
    }
}

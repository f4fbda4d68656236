/// Resolves references against a base the way RFC 3986 §5 (and Python's `urljoin`) does.
enum URLResolver {
    /// `reference` made absolute against `base`; unchanged when it already has a scheme or there is no base.
    static func resolve(_ reference: String, against base: String?) -> String {
        let reference = reference.trimmingWhitespace
        guard let base, !base.isEmpty else { return reference }
        guard !reference.isEmpty else { return base }
        if let scheme = scheme(of: reference) {
            // "http:path" against an http base is relative in urljoin; anything else is absolute.
            guard scheme.lowercased() == Self.scheme(of: base)?.lowercased(), ["http", "https"].contains(scheme.lowercased()),
                  !reference.dropFirst(scheme.count + 1).hasPrefix("//") else {
                return reference
            }
            return resolve(String(reference.dropFirst(scheme.count + 1)), against: base)
        }
        let baseParts = split(base)
        if reference.hasPrefix("//") { return (baseParts.scheme.map { $0 + ":" } ?? "") + reference }
        let referenceParts = split(reference)
        var path: String
        var query = referenceParts.query
        if referenceParts.path.isEmpty {
            path = baseParts.path
            if query == nil { query = baseParts.query }
        } else if referenceParts.path.hasPrefix("/") {
            path = removeDotSegments(referenceParts.path)
        } else {
            let directory: Substring
            if let slash = baseParts.path.lastIndex(of: "/") {
                directory = baseParts.path[...slash]
            } else {
                directory = baseParts.authority != nil ? "/" : ""
            }
            path = removeDotSegments(directory + referenceParts.path)
        }
        if path.isEmpty, baseParts.authority != nil { path = "/" }
        var result = ""
        if let scheme = baseParts.scheme { result += scheme + ":" }
        if let authority = baseParts.authority { result += "//" + authority }
        result += path
        if let query { result += "?" + query }
        if let fragment = referenceParts.fragment { result += "#" + fragment }
        return result
    }

    /// Schemes a base URL may have; others (javascript:, data:) are ignored as bases.
    static func isAcceptableBase(_ url: String) -> Bool {
        guard let scheme = scheme(of: url)?.lowercased() else { return true }
        return ["http", "https", "ftp", "file", "feed", "urn", "tag", "gopher", "news", "nntp", "mailto",
                "sftp", "telnet", "webcal", "itms", "ws", "wss", "rtsp", "mms"].contains(scheme)
    }

    /// The scheme of `url`, or nil when it has none.
    static func scheme(of url: String) -> String? {
        var scheme = ""
        for character in url.unicodeScalars {
            if character == ":" { return scheme.isEmpty ? nil : scheme }
            let isLetter = ("a"..."z").contains(character) || ("A"..."Z").contains(character)
            let isOther = ("0"..."9").contains(character) || character == "+" || character == "-" || character == "."
            guard isLetter || (!scheme.isEmpty && isOther) else { return nil }
            scheme.unicodeScalars.append(character)
        }
        return nil
    }

    private struct Parts {
        var scheme: String?
        var authority: String?
        var path: String
        var query: String?
        var fragment: String?
    }

    private static func split(_ url: String) -> Parts {
        var rest = Substring(url)
        var parts = Parts(path: "")
        if let hash = rest.firstIndex(of: "#") {
            parts.fragment = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        if let question = rest.firstIndex(of: "?") {
            parts.query = String(rest[rest.index(after: question)...])
            rest = rest[..<question]
        }
        if let scheme = scheme(of: String(rest)) {
            parts.scheme = scheme
            rest = rest.dropFirst(scheme.count + 1)
        }
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex(of: "/") ?? rest.endIndex
            parts.authority = String(rest[..<end])
            rest = rest[end...]
        }
        parts.path = String(rest)
        return parts
    }

    /// RFC 3986 §5.2.4, forgiving like urljoin: ".." above the root is dropped.
    private static func removeDotSegments(_ path: String) -> String {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        var output: [Substring] = []
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            switch segment {
            case ".":
                if isLast { output.append("") }
            case "..":
                if output.count > 1 { output.removeLast() }
                if isLast { output.append("") }
            default:
                output.append(segment)
            }
        }
        return output.joined(separator: "/")
    }
}

extension StringProtocol {
    /// The string without leading and trailing whitespace (ASCII and no-break spaces).
    var trimmingWhitespace: String {
        FastText.trimmed(String(self))
    }
}

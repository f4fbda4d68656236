/// The dedupe key of an article URL (docs/ARCHITECTURE.md, "Storage"): absolute http(s), scheme and host lower-cased,
/// default port and `#fragment` dropped, tracking parameters (`utm_*`, `fbclid`, `gclid`) removed.
///
/// Works on the UTF-8 bytes: through Foundation's string methods this cost ~14 µs an entry, a sixth
/// of a cold ingest without full-text indexing.
enum CanonicalURL {
    /// The canonical form of `url`, or nil when it is not an absolute http(s) URL. The key of a key
    /// is itself: odd inputs (spaces before a dropped fragment, empty ports) can need a second pass
    /// to settle (found by fuzzing), so the key is taken again until it does not change.
    static func key(for url: String) -> String? {
        guard var key = keyOnce(url) else { return nil }
        for _ in 0..<3 {
            guard let again = keyOnce(key), again != key else { break }
            key = again
        }
        return key
    }

    private static func keyOnce(_ url: String) -> String? {
        // Tabs and line breaks are not part of a URL anywhere (browsers drop them, as WHATWG's URL
        // parser does); left in, each pass could trim another one off the end.
        let bytes = url.utf8.filter { $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
        var start = 0
        var end = bytes.count
        while start < end, isTrimmed(bytes[start]) { start += 1 }
        while end > start, isTrimmed(bytes[end - 1]) { end -= 1 }
        guard let colon = bytes[start..<end].firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let scheme = lowercased(bytes[start..<colon])
        guard scheme == Array("http".utf8) || scheme == Array("https".utf8) else { return nil }
        let slash = UInt8(ascii: "/")
        guard colon + 3 <= end, bytes[colon + 1] == slash, bytes[colon + 2] == slash else { return nil }
        var rest = (colon + 3)..<end
        if let hash = bytes[rest].firstIndex(of: UInt8(ascii: "#")) { rest = rest.lowerBound..<hash }
        let authorityEnd = bytes[rest].firstIndex { $0 == slash || $0 == UInt8(ascii: "?") } ?? rest.upperBound
        var authority = rest.lowerBound..<authorityEnd
        // Userinfo stays as written; the host and port are normalised.
        var userinfo = ArraySlice<UInt8>()
        if let at = bytes[authority].lastIndex(of: UInt8(ascii: "@")) {
            userinfo = bytes[authority.lowerBound...at]
            authority = (at + 1)..<authority.upperBound
        }
        var host = lowercased(bytes[authority])
        let defaultPort = Array((scheme.count == 4 ? ":80" : ":443").utf8)
        // Until nothing changes, so that a key's key is itself however odd the port (found by
        // fuzzing: `h::80` became `h:`, whose key is `h`).
        while true {
            while host.last == UInt8(ascii: ":") { host.removeLast() }
            guard host.count >= defaultPort.count, host.suffix(defaultPort.count).elementsEqual(defaultPort) else { break }
            host.removeLast(defaultPort.count)
        }
        guard !host.isEmpty else { return nil }
        let pathAndQuery = authorityEnd..<rest.upperBound
        var path = pathAndQuery
        var query: Range<Int>?
        if let question = bytes[pathAndQuery].firstIndex(of: UInt8(ascii: "?")) {
            path = pathAndQuery.lowerBound..<question
            query = (question + 1)..<pathAndQuery.upperBound
        }
        var key = scheme + Array("://".utf8) + userinfo + host
        key += path.isEmpty ? [slash] : Array(bytes[path])
        if let query {
            let kept = bytes[query].split(separator: UInt8(ascii: "&")).filter { parameter in
                let name = lowercased(parameter.prefix { $0 != UInt8(ascii: "=") })
                return !(name.starts(with: "utm_".utf8) || name == Array("fbclid".utf8) || name == Array("gclid".utf8))
                    && parameter.contains { $0 != 0x20 }
            }
            if !kept.isEmpty {
                key.append(UInt8(ascii: "?"))
                key += kept.joined(separator: [UInt8(ascii: "&")])
            }
        }
        while key.last == 0x20 { key.removeLast() }
        return String(decoding: key, as: UTF8.self)
    }

    private static func isTrimmed(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// ASCII letters lower-cased; a name with other characters (an internationalised host) goes
    /// through Unicode lower-casing, as keys stored before always did.
    private static func lowercased(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        guard bytes.allSatisfy({ $0 < 0x80 }) else {
            return Array(String(decoding: bytes, as: UTF8.self).lowercased().utf8)
        }
        return bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
    }
}

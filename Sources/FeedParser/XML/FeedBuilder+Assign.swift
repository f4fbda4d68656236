import FoundationEssentials

extension FeedBuilder {
    /// Stores the text of a finished element (trimmed) according to its role.
    func assign(_ raw: String, to role: Role, frame: Frame) {
        switch role {
        case .title:
            guard let title = titleText(raw, frame: frame) else { return }
            if let entry { entry.entry.title = title } else { feed.title = title }
        case .rssLink:
            guard let link = plain(raw) else { return }
            let url = URLResolver.resolve(Self.repairLink(link, inEntry: entry != nil), against: frame.base)
            if let entry { entry.entry.link = url } else { feed.link = url }
        case .subtitle:
            let rank = Self.subtitleRank(frame.key)
            guard rank >= feedSubtitleRank, let value = markup(raw, frame: frame) else { return }
            feed.subtitle = value
            feedSubtitleRank = rank
        case .summary:
            entry?.addSummary(markup(raw, frame: frame))
        case .content:
            guard frame.attributes.src == nil else { return }
            let decoded = Self.decodingBase64(raw, frame: frame)
            // Atom 1.0 base64-encodes binary media only; Atom 0.3's `mode="base64"` may hold any text.
            entry?.addContent(plain(decoded), isBinary: decoded != raw && frame.isAtom10)
        case .language:
            if let language = plain(raw).flatMap(Self.language) { feed.language = language }
        case .dateUpdated, .datePublished:
            guard let seconds = FeedDateParser.secondsSinceEpoch(from: raw) else { return }
            if let entry {
                let date = Date(timeIntervalSince1970: TimeInterval(seconds))
                if role == .dateUpdated { entry.entry.updated = date } else { entry.entry.published = date }
            } else if role == .dateUpdated {
                feedUpdated = seconds
            } else {
                feedPublished = seconds
            }
        case .authorText:
            // Written as a person (a nested <name>), the name is the author, not all the text inside.
            if let author = personName ?? personEmail ?? plain(raw).flatMap(Self.authorName(fromRSS:)) {
                setAuthor(author)
            }
        case .personName:
            personName = plain(raw).map(HTMLText.collapse)
        case .personEmail:
            personEmail = plain(raw)
        case .guid:
            guard let entry, let guid = plain(raw) else { return }
            if frame.attributes.isPermaLink.map(FastText.lowercasedToken) == "false" {
                entry.entry.id = guid
            } else {
                let url = URLResolver.resolve(guid, against: frame.base)
                entry.entry.id = url
                entry.guidLink = url
            }
        case .atomID:
            if let entry, let id = plain(raw) { entry.entry.id = URLResolver.resolve(id, against: frame.base) }
        case .category:
            if let entry, let term = plain(raw).map(HTMLText.collapse) {
                entry.addCategory(term, scheme: frame.attributes.scheme)
            }
        case .keywords:
            guard let entry, let list = plain(raw) else { return }
            for keyword in list.split(separator: ",") {
                if let term = nonEmpty(String(keyword)) { entry.addCategory(term, scheme: "keywords") }
            }
        case .imageURL:
            if let url = plain(raw) { feedImage = URLResolver.resolve(url, against: frame.base) }
        case .logo:
            if let url = plain(raw) { feedLogo = URLResolver.resolve(url, against: frame.base) }
        case .timeToLive:
            if let minutes = plain(raw).flatMap({ Int($0) }), minutes >= 0 { feed.timeToLiveMinutes = minutes }
        case .updatePeriod:
            if let period = plain(raw)?.lowercased() { feed.updatePeriod = period }
        case .updateFrequency:
            if let frequency = plain(raw).flatMap({ Int($0) }), frequency > 0 { feed.updateFrequency = frequency }
        }
    }

    /// A channel's description (or Atom subtitle) outranks a podcast's `itunes:subtitle`, which
    /// outranks its `itunes:summary`: the lesser ones fill in only when the better is missing.
    static func subtitleRank(_ key: String) -> Int {
        switch key {
        case "itunes:summary": 1
        case "itunes:subtitle": 2
        default: 3
        }
    }

    // MARK: - Value cleaning

    /// Encoding-repaired text; nil when empty. An element's text arrives trimmed (`endElement`),
    /// and so does decoded base64.
    func plain(_ raw: String) -> String? {
        raw.isEmpty ? nil : TextRepair.repair(raw)
    }

    /// A title as plain text.
    private func titleText(_ raw: String, frame: Frame) -> String? {
        let decoded = Self.decodingBase64(raw, frame: frame)
        guard let value = plain(decoded) else { return nil }
        let isAtom = frame.key.hasPrefix("atom:")
        let isHTML: Bool
        switch frame.capture {
        // Base64 titles are kept as they decode, unless their type says HTML (`type="text/html"`).
        case _ where decoded != raw: isHTML = frame.attributes.type.map { $0.lowercased().contains("html") } ?? false
        case .xhtml: isHTML = true
        case .html where isAtom && frame.attributes.type == nil: isHTML = HTMLTitle.looksLikeHTML(value)  // Atom 0.3
        case .html where isAtom: isHTML = true
        default: isHTML = !isAtom && HTMLTitle.looksLikeHTML(value)
        }
        let text = HTMLText.collapse(isHTML ? HTMLTitle.strip(value) : value)
        return text.isEmpty ? nil : text
    }

    /// Summary, content or subtitle markup, base64-decoded when Atom 0.3 says so.
    private func markup(_ raw: String, frame: Frame) -> String? {
        plain(Self.decodingBase64(raw, frame: frame))
    }

    /// Atom 0.3 says `mode="base64"`; in Atom 1.0 a media type that is neither XML nor text means base64.
    static func decodingBase64(_ raw: String, frame: Frame) -> String {
        guard frame.attributes.mode != nil || (frame.isAtom10 && frame.attributes.type != nil) else { return raw }
        // "text", "html" and "xhtml", the usual values, are no media type: checked on the bytes, as
        // Foundation's `contains` goes through NSString for every such element.
        let isMediaType = frame.attributes.type.map { FastText.contains(UInt8(ascii: "/"), in: $0) } ?? false
        guard frame.attributes.mode != nil || isMediaType else { return raw }
        let type = frame.attributes.type.map(FastText.lowercasedToken) ?? ""
        let isBinary = frame.isAtom10 && isMediaType && !type.hasPrefix("text/") && !type.hasSuffix("xml")
        guard frame.attributes.mode?.lowercased() == "base64" || isBinary,
              let data = Data(base64Encoded: raw.trimmingWhitespace, options: .ignoreUnknownCharacters) else {
            return raw
        }
        return FastText.trimmed(String(decoding: data, as: UTF8.self))
    }

    /// feedparser's repairs of `<link>` text: `&amp;` in entries, and `&name;` losing its `;`.
    static func repairLink(_ link: String, inEntry: Bool) -> String {
        guard FastText.contains(UInt8(ascii: "&"), in: link) else { return link }
        var value = inEntry ? link.replacing("&amp;", with: "&") : link
        var result = ""
        while let ampersand = value.firstIndex(of: "&") {
            result += value[..<ampersand]
            let after = value.index(after: ampersand)
            let name = value[after...].prefix { $0.isLetter || $0.isNumber }
            if !name.isEmpty, name.endIndex < value.endIndex, value[name.endIndex] == ";" {
                result += "&" + name
                value = String(value[value.index(after: name.endIndex)...])
            } else {
                result += "&"
                value = String(value[after...])
            }
        }
        return result + value
    }

    /// The name in an RSS author value: "e@x.org (Jo Doe)" and "Jo Doe <e@x.org>" give "Jo Doe";
    /// a bare address gives the address.
    static func authorName(fromRSS value: String) -> String? {
        let text = HTMLText.collapse(value)
        let bytes = Array(text.utf8)
        guard let at = bytes.firstIndex(of: UInt8(ascii: "@")) else { return text }
        // The address is the token around "@", bounded by spaces and brackets.
        func isBoundary(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
                || byte == UInt8(ascii: "(") || byte == UInt8(ascii: ")")
        }
        var start = at
        while start > 0, !isBoundary(bytes[start - 1]) { start -= 1 }
        var end = at
        while end < bytes.count, !isBoundary(bytes[end]) { end += 1 }
        let email = String(decoding: bytes[start..<end], as: UTF8.self)
        // What is left, without the brackets that held the address.
        var rest = Array(bytes[..<start]) + Array(bytes[end...])
        rest.removeAll { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: "(") || $0 == UInt8(ascii: ")") }
        let name = HTMLText.collapse(String(decoding: rest, as: UTF8.self))
        return name.isEmpty ? email : name
    }

}

/// The entry being read, with what is needed to settle its fields when it ends. Like `FeedBuilder`,
/// one parse's own: no runtime exclusivity checks.
final class EntryBuilder {
    @exclusivity(unchecked) var entry = ParsedEntry()
    @exclusivity(unchecked) var guidLink: String?
    @exclusivity(unchecked) var thumbnail: String?
    @exclusivity(unchecked) var mediaImage: String?
    @exclusivity(unchecked) var itunesImage: String?
    @exclusivity(unchecked) private var categorySchemes: [String?] = []  // parallel to entry.categories
    /// Content that was base64 (a binary media type) is not copied into the summary.
    @exclusivity(unchecked) private var contentIsBinary = false

    /// The first summary-like element is the summary; a second one, while there is no content, is content.
    func addSummary(_ value: String?) {
        guard let value else { return }
        if entry.summary == nil {
            entry.summary = value
        } else if entry.content == nil {
            entry.content = value
        } else {
            entry.summary = value
        }
    }

    /// The first non-empty content wins.
    func addContent(_ value: String?, isBinary: Bool) {
        guard let value, entry.content == nil else { return }
        entry.content = value
        contentIsBinary = isBinary
    }

    /// Adds a category unless the same (term, scheme) is already there.
    func addCategory(_ term: String, scheme: String?) {
        // Entries carry a handful of categories: a linear look beats hashing.
        for (index, existing) in entry.categories.enumerated() where existing == term && categorySchemes[index] == scheme {
            return
        }
        entry.categories.append(term)
        categorySchemes.append(scheme)
    }

    func finish() -> ParsedEntry {
        var result = ParsedEntry()
        swap(&result, &entry)  // moved out, not copied: a copy retains every string of the entry
        if result.link == nil { result.link = guidLink }
        if result.summary == nil, !contentIsBinary { result.summary = result.content }
        result.image = thumbnail ?? mediaImage
            ?? result.enclosures.first { $0.type?.lowercased().hasPrefix("image/") ?? false }?.url ?? itunesImage
        return result
    }
}

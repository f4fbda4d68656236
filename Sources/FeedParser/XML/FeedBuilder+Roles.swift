import FoundationEssentials

extension FeedBuilder {
    /// What the text of an element becomes.
    enum Role {
        case title, rssLink, subtitle, summary, content, language
        case dateUpdated, datePublished
        case authorText, personName, personEmail
        case guid, atomID, category, keywords, imageURL, logo
        case timeToLive, updatePeriod, updateFrequency
    }

    /// What the children of an element belong to.
    enum Container: Equatable {
        case entry, image, person, ignored
    }

    /// Decides the role and container of a start tag, and takes the values of attribute-only elements.
    func classify(_ kind: ElementKind, key: String, attributes: SAXAttributes, base: String?) -> (Role?, Container?) {
        switch nearestContainer() {
        case .image:
            return kind == .url && entry == nil ? (.imageURL, nil) : (nil, nil)
        case .ignored:
            return (nil, nil)
        case .person:
            return (kind == .personName ? .personName : kind == .personEmail ? .personEmail : nil, nil)
        case .entry, nil:
            break
        }
        if let container = Self.container(of: kind) { return (nil, container) }
        if takeAttributes(of: kind, attributes, base: base) { return (nil, nil) }
        return (textRole(of: kind, key: key), nil)
    }

    /// What the text of an element of `kind` becomes where it is (in an entry or the feed's own).
    private func textRole(of kind: ElementKind, key: String) -> Role? {
        let inEntry = entry != nil
        switch kind {
        case .title: return .title
        case .mediaTitle: return inEntry && entry?.entry.title == nil ? .title : nil
        case .rssLink: return .rssLink
        case .description: return inEntry ? .summary : .subtitle
        // A podcast's `itunes:summary` describes the channel when it has nothing better (`assign`).
        case .summary: return inEntry ? .summary : key == "itunes:summary" ? .subtitle : nil
        case .mediaDescription: return inEntry && entry?.entry.summary == nil ? .summary : nil
        case .subtitle: return inEntry ? nil : .subtitle
        case .content: return inEntry ? .content : nil
        case .language: return inEntry ? nil : .language
        case .dateUpdated: return .dateUpdated
        case .datePublished: return .datePublished
        case .author: return .authorText
        case .guid: return inEntry ? .guid : nil
        case .atomID: return inEntry ? .atomID : nil
        case .category: return inEntry ? .category : nil
        case .keywords: return inEntry ? .keywords : nil
        case .logo: return inEntry ? nil : .logo
        case .timeToLive: return .timeToLive
        case .updatePeriod: return .updatePeriod
        case .updateFrequency: return .updateFrequency
        default: return nil
        }
    }

    /// Takes what an element that carries its value in attributes says (links, categories,
    /// enclosures, images, CDF's channel); false for an element of another kind.
    private func takeAttributes(of kind: ElementKind, _ attributes: SAXAttributes, base: String?) -> Bool {
        switch kind {
        case .atomLink:
            takeAtomLink(attributes, base: base)
        case .atomCategory:
            if let entry, let term = nonEmpty(attributes.value("term")) ?? nonEmpty(attributes.value("label")) {
                entry.addCategory(term, scheme: attributes.value("scheme"))
            }
        case .itunesCategory:
            if let entry, let name = nonEmpty(attributes.value("text")) { entry.addCategory(name, scheme: "itunes") }
        case .enclosure:
            if let entry, let url = nonEmpty(attributes.value("url")) {
                entry.entry.enclosures.append(Enclosure(url: url, type: nonEmpty(attributes.value("type")),
                                                        length: Self.length(attributes.value("length"))))
            }
        case .mediaThumbnail:
            if let entry, entry.thumbnail == nil { entry.thumbnail = nonEmpty(attributes.value("url")) }
        case .mediaContent:
            let isImage = attributes.value("medium") == "image"
                || (attributes.value("type")?.lowercased().hasPrefix("image/") ?? false)
            if let entry, isImage, entry.mediaImage == nil { entry.mediaImage = nonEmpty(attributes.value("url")) }
        case .itunesImage:
            takeITunesImage(nonEmpty(attributes.value("href") ?? attributes.value("url")))
        case .itunesLink:
            if attributes.value("rel")?.lowercased() == "image" { takeITunesImage(nonEmpty(attributes.value("href"))) }
        case .channel:
            // CDF keeps the channel's link and date in attributes.
            if let href = nonEmpty(attributes.value("href")) { feed.link = URLResolver.resolve(href, against: base) }
            if let date = attributes.value("lastmod").flatMap(FeedDateParser.secondsSinceEpoch) { feedUpdated = date }
        default:
            return false
        }
        return true
    }

    /// The container an element of `kind` opens; nil for anything else.
    static func container(of kind: ElementKind) -> Container? {
        switch kind {
        case .item: .entry
        case .image: .image
        case .ignoredContainer: .ignored
        case .person: .person
        default: nil
        }
    }

    /// How an element's text is captured: Atom text constructs say so with `type` (or 0.3's `mode`).
    func captureMode(for role: Role, key: String, attributes: KeptAttributes) -> Capture {
        switch role {
        case .title, .subtitle, .summary, .content:
            let type = attributes.type.map(FastText.lowercasedToken)
            let mode = attributes.mode.map(FastText.lowercasedToken)
            if mode == "xml" && (type?.contains("html") ?? false) { return .xhtml }
            switch type {
            case "xhtml", "application/xhtml+xml": return .xhtml
            case "html", "text/html": return .html
            case "text", "text/plain": return .text
            // Atom's text constructs are plain text unless they say otherwise; RSS carries HTML.
            case nil: return key.hasPrefix("atom:") && atomNamespace == nil ? .text : .html
            default: return .html
            }
        default:
            return .text
        }
    }

    /// The attributes `captureMode` and `assign` need, copied out of libxml2's buffers.
    static func keep(_ attributes: SAXAttributes, for role: Role?) -> KeptAttributes {
        guard attributes.count > 0, let role else { return KeptAttributes() }
        switch role {
        case .title, .subtitle, .summary, .content:
            return KeptAttributes(type: attributes.value("type"), mode: attributes.value("mode"), src: attributes.value("src"))
        case .guid:
            return KeptAttributes(isPermaLink: attributes.value("isPermaLink"))
        case .category:
            return KeptAttributes(scheme: attributes.value("domain") ?? attributes.value("scheme"))
        default:
            return KeptAttributes()
        }
    }

    // MARK: - Attribute-only elements

    /// `itunes:image` (or an `itunes:link rel="image"`): the entry's image of last resort, or the feed's image.
    private func takeITunesImage(_ href: String?) {
        guard let href else { return }
        if let entry { entry.itunesImage = href } else { feedImage = href }
    }

    private func takeAtomLink(_ attributes: SAXAttributes, base: String?) {
        guard let href = attributes.value("href") else { return }
        let rel = attributes.value("rel").map(FastText.lowercasedToken) ?? "alternate"
        let type = attributes.value("type").map(FastText.lowercasedToken)
        let url = URLResolver.resolve(href, against: base)
        switch rel {
        case "alternate":
            guard type == nil || type == "" || type == "text/html" || type == "application/xhtml+xml" else { return }
            if let entry { entry.entry.link = url } else { feed.link = url }
        case "enclosure":
            entry?.entry.enclosures.append(Enclosure(url: url, type: nonEmpty(type),
                                                     length: Self.length(attributes.value("length"))))
        default:
            break
        }
    }

    static func length(_ text: String?) -> Int? {
        guard let text = text?.trimmingWhitespace, !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }) else {
            return nil
        }
        return Int(text)
    }

    func nonEmpty(_ value: String?) -> String? {
        guard let value = value?.trimmingWhitespace, !value.isEmpty else { return nil }
        return value
    }
}

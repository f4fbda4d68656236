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
            switch kind {
            case .personName: return (.personName, nil)
            case .personEmail: return (.personEmail, nil)
            default: return (nil, nil)
            }
        case .entry, nil:
            break
        }
        let inEntry = entry != nil
        switch kind {
        case .item, .image, .ignoredContainer, .person:
            return (nil, Self.container(of: kind))
        case .title:
            return (.title, nil)
        case .mediaTitle:
            return (inEntry && entry?.entry.title == nil ? .title : nil, nil)
        case .rssLink:
            return (.rssLink, nil)
        case .atomLink:
            takeAtomLink(attributes, base: base)
            return (nil, nil)
        case .description:
            return (inEntry ? .summary : .subtitle, nil)
        case .summary:
            // A podcast's `itunes:summary` describes the channel when it has nothing better (`assign`).
            return (inEntry ? .summary : key == "itunes:summary" ? .subtitle : nil, nil)
        case .mediaDescription:
            return (inEntry && entry?.entry.summary == nil ? .summary : nil, nil)
        case .subtitle:
            return (inEntry ? nil : .subtitle, nil)
        case .content:
            return (inEntry ? .content : nil, nil)
        case .language:
            return (inEntry ? nil : .language, nil)
        case .dateUpdated:
            return (.dateUpdated, nil)
        case .datePublished:
            return (.datePublished, nil)
        case .author:
            return (.authorText, nil)
        case .guid:
            return (inEntry ? .guid : nil, nil)
        case .atomID:
            return (inEntry ? .atomID : nil, nil)
        case .category:
            return (inEntry ? .category : nil, nil)
        case .keywords:
            return (inEntry ? .keywords : nil, nil)
        case .atomCategory:
            if let entry, let term = nonEmpty(attributes.value("term")) ?? nonEmpty(attributes.value("label")) {
                entry.addCategory(term, scheme: attributes.value("scheme"))
            }
            return (nil, nil)
        case .itunesCategory:
            if let entry, let name = nonEmpty(attributes.value("text")) { entry.addCategory(name, scheme: "itunes") }
            return (nil, nil)
        case .enclosure:
            if let entry, let url = nonEmpty(attributes.value("url")) {
                entry.entry.enclosures.append(Enclosure(url: url, type: nonEmpty(attributes.value("type")),
                                                        length: Self.length(attributes.value("length"))))
            }
            return (nil, nil)
        case .mediaThumbnail:
            if let entry, entry.thumbnail == nil { entry.thumbnail = nonEmpty(attributes.value("url")) }
            return (nil, nil)
        case .mediaContent:
            let isImage = attributes.value("medium") == "image"
                || (attributes.value("type")?.lowercased().hasPrefix("image/") ?? false)
            if let entry, isImage, entry.mediaImage == nil { entry.mediaImage = nonEmpty(attributes.value("url")) }
            return (nil, nil)
        case .itunesImage:
            takeITunesImage(nonEmpty(attributes.value("href") ?? attributes.value("url")))
            return (nil, nil)
        case .itunesLink:
            if attributes.value("rel")?.lowercased() == "image" { takeITunesImage(nonEmpty(attributes.value("href"))) }
            return (nil, nil)
        case .logo:
            return (inEntry ? nil : .logo, nil)
        case .timeToLive:
            return (.timeToLive, nil)
        case .updatePeriod:
            return (.updatePeriod, nil)
        case .updateFrequency:
            return (.updateFrequency, nil)
        case .channel:
            // CDF keeps the channel's link and date in attributes.
            if let href = nonEmpty(attributes.value("href")) { feed.link = URLResolver.resolve(href, against: base) }
            if let date = attributes.value("lastmod").flatMap(FeedDateParser.secondsSinceEpoch) { feedUpdated = date }
            return (nil, nil)
        case .url, .personName, .personEmail, .mediaGroup, .other:
            return (nil, nil)
        }
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

/// The elements the feed builder knows, by their "prefix:name" key (canonical namespace prefixes).
enum ElementKind {
    case item, image, ignoredContainer, person, mediaGroup
    case title, mediaTitle, rssLink, atomLink
    case description, summary, mediaDescription, subtitle, content, language
    case dateUpdated, datePublished, author, guid, atomID
    case category, keywords, atomCategory, itunesCategory
    case enclosure, mediaThumbnail, mediaContent, itunesImage, itunesLink, logo
    case timeToLive, updatePeriod, updateFrequency, channel
    case url, personName, personEmail
    case other

    static let byKey: [String: ElementKind] = {
        let groups: [(ElementKind, [String])] = [
            (.item, ["item", "atom:entry", "atom:item"]),
            (.image, ["image", "atom:image"]),
            (.ignoredContainer, ["textinput", "atom:source", "atom:contributor", "media:credit"]),
            (.person, ["atom:author", "itunes:owner"]),
            (.mediaGroup, ["media:group"]),
            (.title, ["title", "dc:title", "atom:title"]),
            (.mediaTitle, ["media:title"]),
            (.rssLink, ["link"]),
            (.atomLink, ["atom:link"]),
            (.description, ["description", "dc:description", "abstract"]),
            (.summary, ["atom:summary", "itunes:summary", "summary"]),
            (.mediaDescription, ["media:description"]),
            (.subtitle, ["atom:subtitle", "atom:tagline", "itunes:subtitle"]),
            (.content, ["content:encoded", "atom:content", "xhtml:body", "body", "fullitem"]),
            (.language, ["language", "dc:language"]),
            (.dateUpdated, ["lastbuilddate", "atom:updated", "atom:modified", "dc:date", "dcterms:modified"]),
            (.datePublished, ["pubdate", "atom:published", "atom:issued", "dcterms:issued"]),
            (.author, ["author", "managingeditor", "dc:creator", "dc:author", "itunes:author"]),
            (.guid, ["guid"]),
            (.atomID, ["atom:id"]),
            (.category, ["category", "dc:subject", "media:category"]),
            (.keywords, ["itunes:keywords", "media:keywords", "tags"]),
            (.atomCategory, ["atom:category"]),
            (.itunesCategory, ["itunes:category"]),
            (.enclosure, ["enclosure"]),
            (.mediaThumbnail, ["media:thumbnail"]),
            (.mediaContent, ["media:content"]),
            (.itunesImage, ["itunes:image"]),
            (.itunesLink, ["itunes:link"]),
            (.logo, ["atom:logo"]),
            (.timeToLive, ["ttl"]),
            (.updatePeriod, ["sy:updateperiod"]),
            (.updateFrequency, ["sy:updatefrequency"]),
            (.channel, ["channel"]),
            (.url, ["url"]),
            (.personName, ["atom:name", "itunes:name"]),
            (.personEmail, ["atom:email", "itunes:email"]),
        ]
        var table: [String: ElementKind] = [:]
        for (kind, keys) in groups {
            for key in keys { table[key] = kind }
        }
        return table
    }()
}

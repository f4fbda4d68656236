import FoundationEssentials

extension ParsedFeed {
    /// What is known about a document besides its bytes.
    public struct Source: Sendable, Equatable {
        /// The URL the document was fetched from: the base for relative references.
        public var documentURL: String?
        /// The HTTP `Content-Type` header, whose charset may decide the encoding.
        public var contentType: String?
        /// The HTTP `Content-Language` header, the language of last resort.
        public var contentLanguage: String?
        /// Documents larger than this many bytes are refused.
        public var maximumSize: Int

        public init(documentURL: String? = nil, contentType: String? = nil, contentLanguage: String? = nil,
                    maximumSize: Int = 16 << 20) {
            self.documentURL = documentURL
            self.contentType = contentType
            self.contentLanguage = contentLanguage
            self.maximumSize = maximumSize
        }
    }

    /// Parses an RSS, RDF, Atom, CDF or JSON Feed document. Broken documents give what could be
    /// read, with `problems` saying what was wrong; a document that is no feed gives `format == .unknown`.
    /// - Throws: `FeedParserError.tooLarge` when the document exceeds `source.maximumSize`.
    public init(parsing data: Data, source: Source = Source()) throws(FeedParserError) {
        guard data.count <= source.maximumSize else { throw .tooLarge(limit: source.maximumSize) }
        if Self.looksLikeJSON(data) {
            if let feed = JSONFeedReader.read(data, documentURL: source.documentURL) {
                self = feed
            } else {
                self.init()
                problems.append("JSON document that is not a JSON Feed")
            }
            return
        }
        let decoded = DocumentDecoder.decode(data, contentType: source.contentType)
        var (feed, error) = decoded.utf8.withUnsafeBytes { Self.parseXML($0, source: source) }
        // Once a document is not well-formed libxml2 drops every later named reference (even &amp;),
        // and it never knew HTML's (&eacute;): parse such documents again with numeric references.
        if error != nil, let rewritten = decoded.utf8.withUnsafeBytes(ReferenceRewriter.rewrite) {
            feed = rewritten.withUnsafeBytes { Self.parseXML($0, source: source).feed }
        }
        self = feed
        encoding = decoded.encoding
        if let problem = decoded.problem { problems.append(problem) }
        if let error { problems.append("not well-formed XML: \(error)") }
    }

    /// One pass of the SAX parser over UTF-8 bytes. The whole document is here, so it goes in at once
    /// (pieces as they come from a network give the same feed, see `PushParserTests`, but cost
    /// libxml2 a copy and a shift of its buffer for each).
    private static func parseXML(_ bytes: UnsafeRawBufferPointer, source: Source) -> (feed: ParsedFeed, error: String?) {
        let builder = FeedBuilder(documentURL: source.documentURL, contentLanguage: source.contentLanguage)
        let parser = SAXPushParser(handler: builder, encoding: "UTF-8")
        parser.feed(bytes, isLast: true)
        return (builder.finish(), parser.firstError)
    }

    private static func looksLikeJSON(_ data: Data) -> Bool {
        let start = data.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        for byte in data.dropFirst(start).prefix(1024) {
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D: continue
            case UInt8(ascii: "{"): return true
            default: return false
            }
        }
        return false
    }
}

import FoundationEssentials

/// Builds a `ParsedFeed` from SAX events of an RSS, RDF, Atom or CDF document.
///
/// Each start tag is classified once into a `Role` (what its text will become) and a `Container`
/// (what its children belong to); text collects in one byte buffer while a role is open.
///
/// One builder serves one parse on one thread, and its state is never borrowed across a call that
/// could reach it again: the runtime's exclusivity checks on these properties cost a tenth of the
/// parse (measured), so they are off for them (`@exclusivity(unchecked)`); the compiler's static
/// checks still apply.
final class FeedBuilder: SAXHandler {
    @exclusivity(unchecked) var feed = ParsedFeed()
    private let documentURL: String?
    private let contentLanguage: String?

    @exclusivity(unchecked) var frames: [Frame] = []
    @exclusivity(unchecked) var containers: [Container] = []
    @exclusivity(unchecked) private var elementInfo: [ElementInfo?] = []
    @exclusivity(unchecked) var skippedDepth = 0
    @exclusivity(unchecked) var text: [UInt8] = []
    @exclusivity(unchecked) var entry: EntryBuilder?
    @exclusivity(unchecked) var feedUpdated: Int64?
    @exclusivity(unchecked) var feedPublished: Int64?
    @exclusivity(unchecked) var feedImage: String?
    @exclusivity(unchecked) var feedLogo: String?
    @exclusivity(unchecked) var rootLanguage: String?
    @exclusivity(unchecked) var formatIsFinal = false
    /// The namespace of a `<feed>` root, whatever it is: its elements are Atom's (0.1–0.3 used several).
    @exclusivity(unchecked) var atomNamespace: String?
    @exclusivity(unchecked) var personName: String?
    @exclusivity(unchecked) var personEmail: String?
    /// How good the feed's subtitle so far is (`subtitleRank`); 0 before there is one.
    @exclusivity(unchecked) var feedSubtitleRank = 0

    init(documentURL: String?, contentLanguage: String?) {
        self.documentURL = documentURL.flatMap { $0.isEmpty ? nil : $0 }
        self.contentLanguage = contentLanguage
    }

    /// The feed, once the document has ended.
    func finish() -> ParsedFeed {
        while let open = entry {
            entry = nil
            feed.entries.append(open.finish())
        }
        feed.updated = (feedUpdated ?? feedPublished).map { Date(timeIntervalSince1970: TimeInterval($0)) }
        feed.image = feedImage ?? feedLogo
        if feed.language == nil { feed.language = (rootLanguage ?? contentLanguage).flatMap(Self.language) }
        return feed
    }

    // MARK: - Frames

    struct Frame {
        let key: String
        let role: Role?
        let container: Container?
        let textStart: Int
        let base: String?
        /// How text and child tags inside are kept: nil outside any text-bearing element.
        let capture: Capture?
        /// True for a tag inside captured markup, echoed into the text as written.
        let isEchoed: Bool
        let attributes: KeptAttributes
        /// In the Atom 1.0 namespace (which strips XHTML's wrapping div and base64-decodes binary content).
        var isAtom10 = false
        /// Whether its children are fields of the feed or entry being read (see `childrenAreFields`).
        var ownsFields = false
    }

    enum Capture { case text, html, xhtml }

    /// The few attributes `assign` needs after the start tag is gone, copied out of libxml2's buffers.
    /// Most elements keep none: then this is one nil reference, and a frame stays small and cheap
    /// to push, pop and destroy.
    struct KeptAttributes {
        private final class Values {
            let type, mode, src, isPermaLink, scheme: String?

            init(type: String?, mode: String?, src: String?, isPermaLink: String?, scheme: String?) {
                (self.type, self.mode, self.src, self.isPermaLink, self.scheme) = (type, mode, src, isPermaLink, scheme)
            }
        }

        private let values: Values?

        var type: String? { values?.type }
        var mode: String? { values?.mode }
        var src: String? { values?.src }
        var isPermaLink: String? { values?.isPermaLink }
        var scheme: String? { values?.scheme }

        init(type: String? = nil, mode: String? = nil, src: String? = nil, isPermaLink: String? = nil,
             scheme: String? = nil) {
            let isEmpty = type == nil && mode == nil && src == nil && isPermaLink == nil && scheme == nil
            values = isEmpty ? nil : Values(type: type, mode: mode, src: src, isPermaLink: isPermaLink, scheme: scheme)
        }
    }

    var currentBase: String? { frames.isEmpty ? documentURL : frames[frames.count - 1].base ?? documentURL }

    /// What a new element needs to know of the innermost open one.
    struct Parent {
        let role: Role?
        let capture: Capture?
        let isEchoed: Bool
        let isAtom10: Bool
        let textStart: Int
        let ownsFields: Bool
    }

    /// The innermost frame's flags, read in place: copying the whole frame (`frames.last`) would
    /// retain and release every string it holds, on every event.
    var parent: Parent? {
        guard !frames.isEmpty else { return nil }
        let index = frames.count - 1
        return Parent(role: frames[index].role, capture: frames[index].capture, isEchoed: frames[index].isEchoed,
                      isAtom10: frames[index].isAtom10, textStart: frames[index].textStart,
                      ownsFields: frames[index].ownsFields)
    }
    var isInEntry: Bool { entry != nil }

    /// The innermost open container; kept as its own stack so lookups stay O(1) however deep the document.
    func nearestContainer() -> Container? {
        containers.last
    }

    /// Elements nested deeper than this are skipped (with a problem noted): no feed needs them,
    /// and a hostile document could otherwise nest a million levels.
    static let maximumDepth = 512

    // MARK: - SAX events

    func startElement(_ element: ElementName, attributes: SAXAttributes) {
        let name = element.name
        let namespace = element.namespace
        guard frames.count < Self.maximumDepth, skippedDepth == 0 else {
            if skippedDepth == 0 { feed.problems.append("elements nested deeper than \(Self.maximumDepth) levels were skipped") }
            skippedDepth += 1
            return
        }
        if frames.isEmpty {
            decideFormat(root: name, namespace: namespace, attributes: attributes)
            elementInfo.removeAll()  // the root may have changed what the Atom namespace is
        }
        else if !formatIsFinal { noticeNamespaces(attributes.declaredNamespaces) }

        let parent = self.parent
        var base = currentBase
        if let declared = attributes.base,
           URLResolver.isAcceptableBase(declared) {
            base = URLResolver.resolve(declared, against: base)
        }
        if frames.isEmpty, let language = attributes.value("lang", namespace: Namespaces.xml) {
            rootLanguage = language
        }

        // Atom 1.0 wraps inline XHTML in one <div> that is not part of the content.
        if let parent, parent.capture == .xhtml || parent.capture == .html, parent.role != nil,
           parent.isAtom10,
           name == "div", namespace == "http://www.w3.org/1999/xhtml", text.count == parent.textStart
            || text[parent.textStart...].allSatisfy({ $0 == 32 || $0 == 10 || $0 == 9 || $0 == 13 }) {
            frames.append(Frame(key: name, role: nil, container: nil, textStart: text.count, base: base,
                                capture: parent.capture, isEchoed: false, attributes: KeptAttributes()))
            return
        }
        // Inside inline XHTML every tag is content, echoed as written.
        if let parent, parent.capture == .xhtml || (parent.isEchoed && parent.capture != nil) {
            echoStartTag(name: name, attributes: attributes)
            frames.append(Frame(key: name, role: nil, container: nil, textStart: text.count, base: base,
                                capture: parent.capture, isEchoed: true, attributes: KeptAttributes()))
            return
        }

        let info = self.info(for: element)
        let key = info.key
        let (role, container) = parent?.ownsFields ?? true
            ? classify(info.kind, key: key, attributes: attributes, base: base)
            // A container nested where it does not belong is skipped whole, its text and fields with it.
            : (nestedRole(info, in: parent?.role),
               Self.container(of: info.kind) != nil || info.kind == .mediaGroup ? .ignored : nil)
        if container == .entry { startEntry(attributes: attributes, base: base) }
        // A person starts: an Atom <author> container, or an RSS <author> that may be written as one.
        if container == .person || role == .authorText { personName = nil; personEmail = nil }

        if role == nil, let parent, parent.capture == .html {
            // Unescaped markup inside an HTML field (an RSS description holding raw <p> tags).
            echoStartTag(name: name, attributes: attributes)
            frames.append(Frame(key: name, role: nil, container: nil, textStart: text.count, base: base,
                                capture: .html, isEchoed: true, attributes: KeptAttributes()))
            return
        }
        // Text inside a value is kept (as plain text), except under a nested container such as <image>.
        let inherited: Capture? = container == nil ? parent?.capture.map { _ in .text } : nil
        let kept = Self.keep(attributes, for: role)
        let capture = role.map { captureMode(for: $0, key: key, attributes: kept) } ?? inherited
        if let container { containers.append(container) }
        frames.append(Frame(key: key, role: role, container: container, textStart: text.count, base: base,
                            capture: capture, isEchoed: false, attributes: kept,
                            isAtom10: info.isAtom10,
                            ownsFields: frames.isEmpty || Self.childrenAreFields(of: info.kind, container: container)))
    }

    /// Whether an element's children are fields of what is being read: the root's, a channel's and a
    /// container's are, and those of a group that stands in for its entry (`media:group`,
    /// `media:content` holding `media:title`). Anything else nested is someone else's field:
    /// a `<title>` inside `<author>` is a job title, an `<og>` block's `<title>` is not the item's.
    static func childrenAreFields(of kind: ElementKind, container: Container?) -> Bool {
        switch kind {
        case .channel, .mediaGroup, .mediaContent, .itunesCategory: true  // itunes:category nests subcategories
        default: container != nil
        }
    }

    /// The roles a nested element may have: a name or address inside an RSS `<author>` that is
    /// written as a person (`<author><name>Jo</name><title>Engineer</title></author>`), and an item's
    /// category inside a `<categories>` list (a large publisher's feeds wrap every item's that way).
    private func nestedRole(_ info: ElementInfo, in parentRole: Role?) -> Role? {
        if info.kind == .category, entry != nil, parentRole == nil, frames.last?.key == "categories" {
            return .category
        }
        guard parentRole == .authorText else { return nil }
        switch info.kind {
        case .personName: return .personName
        case .personEmail: return .personEmail
        default: return info.key == "name" ? .personName : info.key == "email" ? .personEmail : nil
        }
    }

    private func startEntry(attributes: SAXAttributes, base: String?) {
        let started = EntryBuilder()
        started.entry.id = nonEmpty(attributes.value("about", namespace: Namespaces.rdf))
        // CDF items carry their link and date as attributes.
        if let href = nonEmpty(attributes.value("href")) { started.entry.link = URLResolver.resolve(href, against: base) }
        if let date = attributes.value("lastmod").flatMap(FeedDateParser.date(from:)) { started.entry.updated = date }
        entry = started
    }

    func endElement() {
        if skippedDepth > 0 {
            skippedDepth -= 1
            return
        }
        guard let frame = frames.popLast() else { return }
        if frame.container != nil { containers.removeLast() }
        if frame.isEchoed {
            if !Self.voidElements.contains(frame.key) { append("</\(frame.key)>") }  // names are lower case
            return
        }
        if let role = frame.role {
            let value = text.withUnsafeBufferPointer {
                FastText.trimmedString(UnsafeBufferPointer(rebasing: $0[frame.textStart...]))
            }
            text.removeSubrange(frame.textStart...)
            assign(value, to: role, frame: frame)
        }
        switch frame.container {
        case .entry:
            if let finished = entry {
                entry = nil
                feed.entries.append(finished.finish())
            }
        case .person:
            if let author = personName ?? personEmail { setAuthor(author) }  // a person's name, else their address
        default:
            break
        }
    }

    func characters(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let capture = frames.isEmpty ? nil : frames[frames.count - 1].capture else { return }
        if capture == .xhtml {
            appendEscaped(bytes)
        } else if bytes.count == 1 {
            text.append(bytes[0])  // libxml2 reports each character reference alone: skip the bulk copy's setup
        } else {
            text.append(contentsOf: bytes)
        }
    }

    func undeclaredEntity(named name: String) {
        guard let capture = frames.isEmpty ? nil : frames[frames.count - 1].capture else { return }
        let decoded = HTMLEntities.character(named: name)
        if capture == .xhtml || decoded == nil {
            append(decoded.map(XMLText.escaped) ?? "&\(name);")
        } else if let decoded {
            append(decoded)
        }
    }

    /// What an element is: "prefix:name" with the namespace's canonical prefix, and its kind.
    struct ElementInfo {
        let key: String
        let kind: ElementKind
        let isAtom10: Bool
    }

    /// The element's info, worked out once per distinct element name of the document.
    private func info(for element: ElementName) -> ElementInfo {
        if element.id < elementInfo.count, let known = elementInfo[element.id] { return known }
        let prefix = element.namespace == atomNamespace ? "atom" : Namespaces.prefix(for: element.namespace)
        let key = prefix.map { $0.isEmpty ? element.name : $0 + ":" + element.name } ?? "?:" + element.name
        let info = ElementInfo(key: key, kind: ElementKind.byKey[key] ?? .other,
                               isAtom10: element.namespace == Namespaces.atom10)
        if element.id >= elementInfo.count {
            elementInfo.append(contentsOf: repeatElement(nil, count: element.id - elementInfo.count + 1))
        }
        elementInfo[element.id] = info
        return info
    }

    // MARK: - Text buffer

    private func append(_ string: String) {
        text.append(contentsOf: string.utf8)
    }

    private func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        for index in 0..<bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") else { continue }
            text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            append(byte == UInt8(ascii: "&") ? "&amp;" : byte == UInt8(ascii: "<") ? "&lt;" : "&gt;")
            runStart = index + 1
        }
        text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
    }

    /// Writes a start tag inside captured markup as written, attribute values escaped.
    private func echoStartTag(name: String, attributes: SAXAttributes) {
        append("<" + name)
        attributes.forEach { attributeName, isXML, value in
            text.append(UInt8(ascii: " "))
            if isXML { append("xml:") }
            text.append(contentsOf: attributeName)
            append("=\"")
            appendAttributeValue(value)
            text.append(UInt8(ascii: "\""))
        }
        append(Self.voidElements.contains(name) ? " />" : ">")
    }

    /// An attribute value with `&`, `<`, `>` and `"` as references. libxml2 leaves `&amp;` as `&#38;`
    /// in values (no entity substitution): that one is an ampersand too.
    private func appendAttributeValue(_ value: UnsafeBufferPointer<UInt8>) {
        var index = 0
        while index < value.count {
            let byte = value[index]
            index += 1
            switch byte {
            case UInt8(ascii: "&"):
                append("&amp;")
                let isEncodedAmpersand = index + 4 <= value.count && value[index] == UInt8(ascii: "#")
                    && value[index + 1] == UInt8(ascii: "3") && value[index + 2] == UInt8(ascii: "8")
                    && value[index + 3] == UInt8(ascii: ";")
                if isEncodedAmpersand { index += 4 }
            case UInt8(ascii: "<"): append("&lt;")
            case UInt8(ascii: ">"): append("&gt;")
            case UInt8(ascii: "\""): append("&quot;")
            default: text.append(byte)
            }
        }
    }

    static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
    ]

    // MARK: - Format

    private func decideFormat(root: String, namespace: String, attributes: SAXAttributes) {
        switch (root, namespace) {
        case ("rss", _):
            switch attributes.value("version")?.trimmingWhitespace {
            case "0.91": feed.format = .rss091
            case "0.92": feed.format = .rss092
            default: feed.format = .rss20
            }
        case ("feed", Namespaces.atom10): feed.format = .atom10
        case ("feed", _):
            feed.format = .atom03
            atomNamespace = namespace
        case ("rdf", _) where namespace == Namespaces.rss10: feed.format = .rss10
        default: feed.format = .unknown
        }
        let declared = attributes.declaredNamespaces + [namespace]
        if declared.contains(Namespaces.rss10) { feed.format = .rss10; formatIsFinal = true }
        else if declared.contains(Namespaces.rss090) { feed.format = .rss090; formatIsFinal = true }
        else if declared.contains(Namespaces.atom10), root != "rss" { feed.format = .atom10; formatIsFinal = true }
        if root == "rss" { formatIsFinal = true }
    }

    private func noticeNamespaces(_ uris: [String]) {
        guard !uris.isEmpty else { return }
        if uris.contains(Namespaces.rss10) { feed.format = .rss10; formatIsFinal = true }
        else if uris.contains(Namespaces.rss090) { feed.format = .rss090; formatIsFinal = true }
        else if uris.contains(Namespaces.atom10) { feed.format = .atom10; formatIsFinal = true }
    }

    // MARK: - Assigning values

    func setAuthor(_ author: String) {
        if let entry {
            if entry.entry.author == nil { entry.entry.author = author }
        } else if feed.author == nil {
            feed.author = author
        }
    }

    static func language(_ value: String) -> String? {
        let trimmed = value.trimmingWhitespace.replacing("_", with: "-")
        return trimmed.isEmpty ? nil : trimmed
    }
}

import CLibXML2
import FoundationEssentials

/// A libxml2 SAX2 push parser with a minimal handler: bytes go in chunk by chunk, events come out.
///
/// The handler registers no entity callbacks, so internal entities never expand (billion laughs,
/// quadratic blow-up) and external ones are never read or fetched (XXE); see docs/ARCHITECTURE.md, "Parsing".
final class SAXPushParser {
    private let context: xmlParserCtxtPtr
    private let box: Box

    /// What the parser noticed that made the document not well-formed.
    var firstError: String? { box.firstError }
    var isWellFormed: Bool { context.pointee.wellFormed != 0 && box.firstError == nil }

    /// Creates a parser sending its events to `handler`.
    /// - Parameter encoding: an encoding name that overrides what the document declares, or nil.
    init(handler: SAXHandler, encoding: String? = nil) {
        Self.initializeOnce
        box = Box(handler: handler)
        var sax = xmlSAXHandler()
        sax.initialized = aggregator_sax2_magic()
        sax.startElementNs = { context, localName, prefix, uri, namespaceCount, namespaces, attributeCount, _, attributes in
            Box.with(context) { box in
                box.handler.startElement(
                    box.element(localName, prefix: prefix, uri),
                    attributes: SAXAttributes(
                        raw: attributes.map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: UnsafePointer<UInt8>?.self) },
                        count: Int(attributeCount),
                        declarations: namespaces.map {
                            UnsafeMutableRawPointer($0).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
                        },
                        declarationCount: Int(namespaceCount)))
            }
        }
        sax.endElementNs = { context, _, _, _ in
            Box.with(context) { $0.handler.endElement() }
        }
        sax.characters = { context, bytes, length in
            guard let bytes, length > 0 else { return }
            Box.with(context) { $0.handler.characters(UnsafeBufferPointer(start: bytes, count: Int(length))) }
        }
        sax.cdataBlock = sax.characters
        sax.reference = { context, name in
            guard let name else { return }
            Box.with(context) { $0.handler.undeclaredEntity(named: String(cString: name)) }
        }
        sax.serror = { context, error in
            guard let context, let error else { return }
            let box = Box.from(context)
            if box.firstError == nil, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue {
                let message = error.pointee.message.map { String(cString: $0) } ?? "malformed XML"
                box.firstError = "line \(error.pointee.line): "
                    + message.trimmingWhitespaceAndNewlines
            }
        }
        let userData = Unmanaged.passUnretained(box).toOpaque()
        context = xmlCreatePushParserCtxt(&sax, userData, nil, 0, nil)
        xmlCtxtUseOptions(context, aggregator_xml_feed_options())
        if let encoding {
            xmlCtxtResetPush(context, nil, 0, nil, encoding)
            xmlCtxtUseOptions(context, aggregator_xml_feed_options() | Int32(XML_PARSE_IGNORE_ENC.rawValue))
        }
    }

    deinit {
        // The document libxml2 may have started is ours to free with the context.
        if let document = context.pointee.myDoc { xmlFreeDoc(document) }
        xmlFreeParserCtxt(context)
    }

    /// Feeds the next piece of the document; `isLast` ends it too (as `finish` does).
    func feed(_ bytes: UnsafeRawBufferPointer, isLast: Bool = false) {
        var offset = 0
        // xmlParseChunk takes an Int32 length: hand over large buffers in pieces.
        repeat {
            let length = min(bytes.count - offset, 1 << 20)
            let start = bytes.baseAddress.map { $0.advanced(by: offset).assumingMemoryBound(to: CChar.self) }
            offset += length
            // Told that nothing follows, libxml2 skips looking ahead for the end of each token.
            let terminate: Int32 = isLast && offset == bytes.count ? 1 : 0
            xmlParseChunk(context, start, Int32(length), terminate)
            if context.pointee.disableSAX != 0 { break }  // a fatal error: nothing more will come
        } while offset < bytes.count
    }

    /// Ends the document: flushes buffered text and closes what is still open.
    func finish() {
        xmlParseChunk(context, nil, 0, 1)
    }

    /// libxml2's global initialisation, run once before the first parser on any thread.
    private static let initializeOnce: Void = { xmlInitParser() }()

    /// What travels through libxml2's `user_data`: the handler and the parse's name cache.
    /// One parse's own, on one thread: no runtime exclusivity checks (see `FeedBuilder`).
    private final class Box {
        let handler: SAXHandler
        @exclusivity(unchecked) var firstError: String?
        // libxml2 interns names in a per-parse dictionary, so its pointers identify an element
        // name: this saves building the same Swift strings for every element.
        @exclusivity(unchecked) private var elements: [PointerPair: ElementName] = [:]

        /// An element's local name and namespace URI; for a prefix that no `xmlns` declared, the
        /// prefix instead of the (missing) URI.
        private struct PointerPair: Hashable {
            let name: UnsafePointer<UInt8>?
            let uri: UnsafePointer<UInt8>?
            var undeclaredPrefix: UnsafePointer<UInt8>? = nil
        }

        init(handler: SAXHandler) { self.handler = handler }

        static func from(_ context: UnsafeMutableRawPointer?) -> Box {
            Unmanaged<Box>.fromOpaque(context!).takeUnretainedValue()
        }

        /// Runs `body` with the box behind `context`, which the parser keeps alive: borrowed so, the
        /// handler is called without the retain and release (atomic, so slow) around every event.
        @inline(__always)
        static func with<Result>(_ context: UnsafeMutableRawPointer?, _ body: (Box) -> Result) -> Result {
            Unmanaged<Box>.fromOpaque(context!)._withUnsafeGuaranteedRef(body)
        }

        // A direct-mapped cache in front of the dictionary: a feed repeats a few dozen names. The
        // keys are plain pointers in an array of their own, so a probe copies no reference.
        @exclusivity(unchecked) private var recentKeys = [PointerPair](repeating: PointerPair(name: nil, uri: nil), count: 64)
        @exclusivity(unchecked) private var recentNames = [ElementName?](repeating: nil, count: 64)

        func element(_ name: UnsafePointer<UInt8>?, prefix: UnsafePointer<UInt8>?,
                     _ uri: UnsafePointer<UInt8>?) -> ElementName {
            let key = PointerPair(name: name, uri: uri, undeclaredPrefix: uri == nil ? prefix : nil)
            let slot = Int(truncatingIfNeeded: (UInt(bitPattern: name) >> 3) ^ (UInt(bitPattern: uri) >> 5)) & 63
            if recentKeys[slot] == key, let cached = recentNames[slot] { return cached }
            if let known = elements[key] {
                (recentKeys[slot], recentNames[slot]) = (key, known)
                return known
            }
            let namespace = uri.map { String(cString: $0) }
                ?? key.undeclaredPrefix.map { Namespaces.uri(forUndeclaredPrefix: String(cString: $0)) } ?? ""
            let element = ElementName(id: elements.count, name: name.map { String(cString: $0).lowercased() } ?? "",
                                      namespace: namespace)
            elements[key] = element
            (recentKeys[slot], recentNames[slot]) = (key, element)
            return element
        }
    }
}

@available(*, unavailable)
extension SAXPushParser: Sendable {}

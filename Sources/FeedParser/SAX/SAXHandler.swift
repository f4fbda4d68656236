import Glibc

/// An element's name: its local name in lower case (feeds disagree on case), its namespace URI
/// ("" when none), and a small number unique to the pair within one parse, for cheap lookups.
/// A class: made once per distinct name, then handed to every event as one reference.
final class ElementName {
    let id: Int
    let name: String
    let namespace: String

    init(id: Int, name: String, namespace: String) {
        (self.id, self.name, self.namespace) = (id, name, namespace)
    }
}

/// Receives the events of a `SAXPushParser`. Called on the parsing thread, in document order.
protocol SAXHandler: AnyObject {
    /// An element opened.
    func startElement(_ element: ElementName, attributes: SAXAttributes)
    /// The innermost open element closed (the handler knows which: events come in document order).
    func endElement()
    /// Text content (character data, CDATA, and predefined or numeric references, already decoded).
    func characters(_ text: UnsafeBufferPointer<UInt8>)
    /// A reference to an entity the document never declared, such as HTML's `&eacute;`.
    func undeclaredEntity(named name: String)
}

/// The attributes of one start tag, read lazily from libxml2's buffers (valid only during the call).
struct SAXAttributes {
    // libxml2 gives 5 pointers per attribute: localname, prefix, URI, value start, value end.
    let raw: UnsafeMutablePointer<UnsafePointer<UInt8>?>?
    let count: Int
    // Namespace declarations on this element: prefix, URI pairs.
    var declarations: UnsafeMutablePointer<UnsafePointer<UInt8>?>? = nil
    var declarationCount = 0

    /// The URIs of the namespaces this start tag declares.
    var declaredNamespaces: [String] {
        guard let declarations else { return [] }
        return (0..<declarationCount).compactMap { declarations[$0 * 2 + 1].map { String(cString: $0) } }
    }

    /// The value of the attribute `name` in `namespace` ("" for an unprefixed attribute).
    func value(_ name: StaticString, namespace: String = "") -> String? {
        guard let raw else { return nil }
        for index in 0..<count {
            let base = index * 5
            guard let localName = raw[base], matches(localName, name) else { continue }
            let uri = raw[base + 2]
            if namespace.isEmpty ? uri != nil : !(uri.map { String(cString: $0) == namespace } ?? false) { continue }
            return Self.decode(start: raw[base + 3], end: raw[base + 4])
        }
        return nil
    }

    /// `xml:base`, or a bare `base` attribute, found in one pass.
    var base: String? {
        guard let raw, count > 0 else { return nil }
        for index in 0..<count {
            let offset = index * 5
            guard let localName = raw[offset], matches(localName, "base") else { continue }
            if let uri = raw[offset + 2], strcmp(uri, Self.xmlNamespace) != 0 { continue }
            return Self.decode(start: raw[offset + 3], end: raw[offset + 4])
        }
        return nil
    }

    /// Calls `body` with each attribute's local name, whether it is in the `xml:` namespace, and its
    /// value as libxml2 left it (see `decode`), all straight from libxml2's buffers.
    func forEach(_ body: (_ name: UnsafeBufferPointer<UInt8>, _ isXML: Bool, _ value: UnsafeBufferPointer<UInt8>) -> Void) {
        guard let raw else { return }
        for index in 0..<count {
            let base = index * 5
            guard let name = raw[base] else { continue }
            let isXML = raw[base + 2].map { strcmp($0, Self.xmlNamespace) == 0 } ?? false
            body(UnsafeBufferPointer(start: name, count: strlen(name)), isXML, Self.bytes(from: raw[base + 3], to: raw[base + 4]))
        }
    }

    private static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"

    /// A value's bytes: libxml2 gives where it starts and where it ends.
    private static func bytes(from start: UnsafePointer<UInt8>?, to end: UnsafePointer<UInt8>?) -> UnsafeBufferPointer<UInt8> {
        guard let start, let end, end > start else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: start, count: end - start)
    }

    /// Compares a NUL-terminated name with `name`, ignoring ASCII case (feeds disagree on `HREF` vs `href`).
    private func matches(_ pointer: UnsafePointer<UInt8>, _ name: StaticString) -> Bool {
        let expected = name.utf8Start
        let count = name.utf8CodeUnitCount
        for offset in 0..<count where Self.lowercased(pointer[offset]) != Self.lowercased(expected[offset]) {
            return false  // also where `pointer` ends first: its NUL matches no letter of a name
        }
        return pointer[count] == 0
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (65...90).contains(byte) ? byte | 0x20 : byte
    }

    /// Attribute values are not NUL-terminated, and without entity substitution libxml2 leaves
    /// `&amp;` as `&#38;` in them: undo that one escape.
    private static func decode(start: UnsafePointer<UInt8>?, end: UnsafePointer<UInt8>?) -> String {
        let bytes = Self.bytes(from: start, to: end)
        guard !bytes.isEmpty else { return "" }
        guard bytes.contains(UInt8(ascii: "&")) else { return UTF8Text.string(bytes) }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "&"), index + 4 < bytes.count, bytes[index + 1] == UInt8(ascii: "#"),
               bytes[index + 2] == UInt8(ascii: "3"), bytes[index + 3] == UInt8(ascii: "8"),
               bytes[index + 4] == UInt8(ascii: ";") {
                decoded.append(UInt8(ascii: "&"))
                index += 5
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return UTF8Text.string(decoded)
    }
}

import FoundationEssentials

/// Turns a document's bytes into UTF-8: its BOM, XML declaration and HTTP charset give the
/// candidate encodings; the first that decodes the whole document wins, with
/// windows-1252 and ISO-8859-2 as the last resorts.
enum DocumentDecoder {
    struct Decoded {
        /// The document as UTF-8, without a byte order mark.
        var utf8: Data
        /// The encoding it was read in, lower-cased.
        var encoding: String
        /// Set when the document was not valid in the encoding it declared.
        var problem: String?
    }

    static func decode(_ data: Data, contentType: String?) -> Decoded {
        let (bomEncoding, bomLength) = byteOrderMark(data)
        let body = data.dropFirst(bomLength)
        var declared = declaredEncoding(in: body, bomEncoding: bomEncoding)
        // "utf_16" is as generic as "utf-16" (found in feedparser's corpus: read little-endian, it was empty).
        if let name = declared.map(normalize), bomEncoding != nil, isGenericUnicodeName(name) { declared = bomEncoding }
        let primary = primaryEncoding(contentType: contentType, declared: declared)

        var candidates: [String] = []
        for candidate in [primary, declared, bomEncoding, "utf-8", "windows-1252", "iso-8859-2"] {
            guard let name = candidate.map(normalize), !candidates.contains(name) else { continue }
            candidates.append(name)
        }
        let expected = candidates.first
        for name in candidates {
            guard let utf8 = convert(body, from: name) else { continue }
            let problem = name == expected ? nil
                : "document is not valid \(expected ?? "utf-8"); read as \(name)"
            return Decoded(utf8: utf8, encoding: name, problem: problem)
        }
        // iso-8859-2 decodes every byte, so this is not reached. Should it be, ill-formed sequences
        // become U+FFFD: the parser is only ever handed well-formed UTF-8.
        return Decoded(utf8: Data(String(decoding: body, as: UTF8.self).utf8), encoding: "iso-8859-2",
                       problem: "no encoding could read the document")
    }

    // MARK: - Sources of the encoding

    /// The encoding a byte order mark or the shape of `<?` reveals, and the mark's length.
    static func byteOrderMark(_ data: Data) -> (String?, Int) {
        let bytes = [UInt8](data.prefix(4))
        func starts(_ prefix: [UInt8]) -> Bool { bytes.starts(with: prefix) }
        if starts([0xEF, 0xBB, 0xBF]) { return ("utf-8", 3) }
        if starts([0x00, 0x00, 0xFE, 0xFF]) { return ("utf-32be", 4) }
        if starts([0xFF, 0xFE, 0x00, 0x00]) { return ("utf-32le", 4) }
        if starts([0xFE, 0xFF]) { return ("utf-16be", 2) }
        if starts([0xFF, 0xFE]) { return ("utf-16le", 2) }
        if starts([0x00, 0x00, 0x00, 0x3C]) { return ("utf-32be", 0) }
        if starts([0x3C, 0x00, 0x00, 0x00]) { return ("utf-32le", 0) }
        if starts([0x00, 0x3C, 0x00, 0x3F]) { return ("utf-16be", 0) }
        if starts([0x3C, 0x00, 0x3F, 0x00]) { return ("utf-16le", 0) }
        if starts([0x4C, 0x6F, 0xA7, 0x94]) { return ("cp037", 0) }
        return (nil, 0)
    }

    /// The `encoding` of the XML declaration, if there is one.
    static func declaredEncoding(in body: Data, bomEncoding: String?) -> String? {
        var head = [UInt8](body.prefix(512))
        if let bomEncoding, bomEncoding != "utf-8" {
            head = convert(Data(head), from: bomEncoding, lenient: true).map { [UInt8]($0) } ?? head
        }
        guard head.starts(with: Array("<?xml".utf8)) else { return nil }
        let declaration = head.prefix { $0 != UInt8(ascii: ">") }
        let key = Array("encoding".utf8)
        guard let keyStart = declaration.indices.first(where: { declaration[$0...].starts(with: key) }) else { return nil }
        var index = keyStart + key.count
        func skipSpaces() { while index < declaration.endIndex, FastText.isASCIIWhitespace(declaration[index]) { index += 1 } }
        skipSpaces()
        guard index < declaration.endIndex, declaration[index] == UInt8(ascii: "=") else { return nil }
        index += 1
        skipSpaces()
        guard index < declaration.endIndex, declaration[index] == UInt8(ascii: "\"") || declaration[index] == UInt8(ascii: "'") else {
            return nil
        }
        let quote = declaration[index]
        let name = declaration[(index + 1)...].prefix { $0 != quote }
        return name.isEmpty ? nil : String(decoding: name, as: UTF8.self)
    }

    /// RFC 3023 as feedparser applies it: XML media types default to the declared encoding,
    /// `text/*` types to us-ascii, when the header names no charset.
    static func primaryEncoding(contentType: String?, declared: String?) -> String? {
        guard let contentType, !contentType.isEmpty else { return declared }
        let parts = contentType.split(separator: ";")
        let mediaType = parts.first.map { $0.trimmingWhitespace.lowercased() } ?? ""
        var charset: String?
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingWhitespace.lowercased() == "charset" else { continue }
            let value = pair[1].trimmingWhitespace.trimming { $0 == "\"" || $0 == "'" }
            if !value.isEmpty { charset = value }
        }
        let isXMLApplication = mediaType == "application/xml" || mediaType == "application/xml-dtd"
            || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+xml"))
        if isXMLApplication { return charset ?? declared ?? "utf-8" }
        if mediaType.hasPrefix("text/") { return charset ?? "us-ascii" }
        return declared
    }

    private static func isGenericUnicodeName(_ name: String) -> Bool {
        ["utf-16", "utf16", "utf-32", "utf32", "ucs-2", "ucs2", "ucs-4", "ucs4", "iso-10646-ucs-2",
         "iso-10646-ucs-4", "csunicode", "csucs4", "unicode"].contains(name)
    }

    /// Lower-cased, with the aliases Python (and so feeds' authors) use mapped to iconv's names.
    static func normalize(_ name: String) -> String {
        var lowered = name.trimmingWhitespace.lowercased()
        if lowered.utf8.contains(UInt8(ascii: "_")) { lowered = lowered.replacing("_", with: "-") }
        switch lowered {
        case "gb2312", "gb-2312", "csgb2312": return "gb18030"
        case "utf8": return "utf-8"
        case "latin1", "latin-1", "l1": return "iso-8859-1"
        case "cp1252", "win-1252": return "windows-1252"
        case "ascii", "us": return "us-ascii"
        case "cp-is", "csibm861": return "cp861"
        case "macroman", "macintosh", "csmacintosh": return "macintosh"
        case "maccentraleurope", "maclatin2": return "mac-centraleurope"
        case "maciceland": return "mac-is"
        case "maccyrillic": return "mac-cyrillic"
        default: return lowered
        }
    }

    // MARK: - Conversion

    /// The bytes as UTF-8, or nil when they are not valid in `encoding` (or it is unknown).
    static func convert(_ bytes: Data, from encoding: String, lenient: Bool = false) -> Data? {
        if encoding == "utf-8" {
            return isValidUTF8(bytes) ? bytes : nil  // a slice of the input: no copy
        }
        if encoding == "us-ascii" {
            return bytes.allSatisfy({ $0 < 0x80 }) ? bytes : nil
        }
        if let table = MacSingleByte.table(for: encoding) { return MacSingleByte.convert(bytes, table: table) }
        return Iconv.convert(bytes, from: encoding, lenient: lenient)
    }

    /// Whether `data` is well-formed UTF-8.
    static func isValidUTF8(_ data: Data) -> Bool {
        data.withUnsafeBytes { UTF8Text.validate($0.bindMemory(to: UInt8.self)).isValid }
    }
}

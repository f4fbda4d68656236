import CLibXML2

/// HTML named character references, from libxml2's HTML 4 table.
enum HTMLEntities {
    /// The character `&name;` stands for in HTML 4, or nil.
    static func character(named name: String) -> String? {
        if name == "apos" { return "'" }  // XML's, not HTML 4's, but feeds use it everywhere
        guard let entry = htmlEntityLookup(name) else { return nil }
        return Unicode.Scalar(entry.pointee.value).map { String(Character($0)) }
    }

    /// `text` with every named (HTML 4) and numeric character reference decoded; others left as written.
    static func decode(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count)
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            result += rest[..<ampersand]
            let after = rest.index(after: ampersand)
            if let semicolon = rest[after...].prefix(40).firstIndex(of: ";"),
               let decoded = decodeReference(rest[after..<semicolon]) {
                result += decoded
                rest = rest[rest.index(after: semicolon)...]
            } else {
                result += "&"
                rest = rest[after...]
            }
        }
        result += rest
        return result
    }

    /// The text of one reference body (`amp`, `#38`, `#x26`), or nil when it is not one.
    static func decodeReference(_ body: Substring) -> String? {
        if body.hasPrefix("#") {
            let digits = body.dropFirst()
            let value: UInt32?
            if digits.hasPrefix("x") || digits.hasPrefix("X") {
                value = UInt32(digits.dropFirst(), radix: 16)
            } else {
                value = UInt32(digits)
            }
            guard let value, value != 0, let scalar = Unicode.Scalar(value) else { return nil }
            // &#150; in feeds means cp1252's en dash, not a C1 control.
            return TextRepair.repair(String(Character(scalar)))
        }
        return character(named: String(body))
    }
}

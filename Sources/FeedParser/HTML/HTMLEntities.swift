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
        var source = text
        return source.withUTF8 { bytes -> String in
            guard bytes.contains(UInt8(ascii: "&")) else { return text }
            var result: [UInt8] = []
            result.reserveCapacity(bytes.count)
            var runStart = 0
            var index = 0
            while index < bytes.count {
                guard bytes[index] == UInt8(ascii: "&") else {
                    index += 1
                    continue
                }
                // A reference body is a few ASCII letters or digits: look no further than 40 bytes for its end.
                let bodyStart = index + 1
                let limit = min(bytes.count, bodyStart + 40)
                guard let semicolon = (bodyStart..<limit).first(where: { bytes[$0] == UInt8(ascii: ";") }),
                      let decoded = decodeReference(Substring(UTF8Text.string(UnsafeBufferPointer(
                          rebasing: bytes[bodyStart..<semicolon])))) else {
                    index = bodyStart  // kept as written
                    continue
                }
                result.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                result.append(contentsOf: decoded.utf8)
                index = semicolon + 1
                runStart = index
            }
            result.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
            return UTF8Text.string(result)
        }
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

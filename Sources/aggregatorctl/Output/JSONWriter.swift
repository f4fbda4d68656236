/// Writes compact JSON by hand: the schema fixes the key order, and this is the hot path when
/// `parse` checks thousands of files.
struct JSONWriter {
    private(set) var output = ""

    init(capacity: Int = 4096) {
        output.reserveCapacity(capacity)
    }

    mutating func raw(_ text: String) { output += text }

    mutating func string(_ value: String?) {
        guard let value else {
            output += "null"
            return
        }
        output += "\""
        var start = value.unicodeScalars.startIndex
        let scalars = value.unicodeScalars
        var index = start
        while index < scalars.endIndex {
            let scalar = scalars[index]
            let escape: String?
            switch scalar {
            case "\"": escape = "\\\""
            case "\\": escape = "\\\\"
            case "\n": escape = "\\n"
            case "\r": escape = "\\r"
            case "\t": escape = "\\t"
            case "\u{2028}": escape = "\\u2028"
            case "\u{2029}": escape = "\\u2029"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    escape = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    escape = nil
                }
            }
            if let escape {
                output.unicodeScalars.append(contentsOf: scalars[start..<index])
                output += escape
                start = scalars.index(after: index)
            }
            index = scalars.index(after: index)
        }
        output.unicodeScalars.append(contentsOf: scalars[start..<scalars.endIndex])
        output += "\""
    }

    mutating func integer(_ value: Int?) {
        output += value.map(String.init) ?? "null"
    }

    /// `"key":` followed by the value the closure writes; a comma before every key but the first.
    mutating func key(_ name: String, first: Bool = false) {
        if !first { output += "," }
        output += "\""
        output += name
        output += "\":"
    }
}

/// The few spellings in which the store's SQL (written for SQLite) and PostgreSQL's differ
/// mechanically; what differs in meaning (full-text search, JSON, locking) is written per dialect
/// where it is used.
enum PostgresSQL {
    /// `sql` as PostgreSQL reads it:
    /// - parameters `?N` become `$N`;
    /// - `expression COLLATE NOCASE` (SQLite: compare with A–Z folded to a–z, then byte by byte)
    ///   becomes `coalesce(aggregator_nocase(expression), '') COLLATE "C"`, the same order (NULL
    ///   first, as SQLite sorts it; no name or title the store sorts is ''); in
    ///   `name = ?2 COLLATE NOCASE` both sides are folded (the unique indexes on names are);
    /// - `COLLATE BINARY` becomes `COLLATE "C"`;
    /// - SQLite's planner hints go: `CROSS JOIN … ON` (every one the store writes has its ON) is a
    ///   `JOIN`, `INDEXED BY name` is dropped.
    /// String literals and quoted names are copied as they are.
    static func translate(_ sql: String) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(sql.utf8.count + 16)
        let bytes = Array(sql.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                // Copied to the closing quote (a doubled quote stays inside).
                output.append(byte)
                index += 1
                while index < bytes.count {
                    output.append(bytes[index])
                    if bytes[index] == byte {
                        if index + 1 < bytes.count, bytes[index + 1] == byte {
                            output.append(byte)
                            index += 2
                            continue
                        }
                        index += 1
                        break
                    }
                    index += 1
                }
                continue
            }
            if byte == UInt8(ascii: "?"), index + 1 < bytes.count, isDigit(bytes[index + 1]) {
                output.append(UInt8(ascii: "$"))
                index += 1
                continue
            }
            if isSpace(byte), matches(bytes, at: index + 1, "COLLATE NOCASE"), let start = expressionStart(output) {
                let expression = Array(output[start...])
                output.removeSubrange(start...)
                if output.count >= 3, Array(output.suffix(3)) == Array(" = ".utf8),
                   let left = expressionStart(Array(output.dropLast(3))) {
                    // `name = ?2 COLLATE NOCASE`: both sides folded, as the expression indexes are.
                    let name = Array(output[left..<(output.count - 3)])
                    output.removeSubrange(left...)
                    output += fold(name) + Array(" = ".utf8) + fold(expression)
                } else {
                    // NULL sorts first, as in SQLite (PostgreSQL sorts it last): it sorts as ''.
                    output += Array("coalesce(".utf8) + fold(expression) + Array(", '') COLLATE \"C\"".utf8)
                }
                index += " COLLATE NOCASE".utf8.count  // with the space before it
                continue
            }
            // Planner hints of SQLite's (join order, an index to use), meaningless to PostgreSQL.
            if isSpace(byte), matches(bytes, at: index + 1, "CROSS JOIN ") {
                output += [byte] + Array("JOIN ".utf8)
                index += " CROSS JOIN ".utf8.count
                continue
            }
            if isSpace(byte), matches(bytes, at: index + 1, "INDEXED BY ") {
                index += " INDEXED BY ".utf8.count
                while index < bytes.count, isNameByte(bytes[index]) { index += 1 }
                continue
            }
            if isSpace(byte), matches(bytes, at: index + 1, "COLLATE BINARY") {
                output += Array(" COLLATE \"C\"".utf8)
                index += " COLLATE BINARY".utf8.count
                continue
            }
            output.append(byte)
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func fold(_ expression: [UInt8]) -> [UInt8] {
        Array("aggregator_nocase(".utf8) + expression + [UInt8(ascii: ")")]
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\t")
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
    }

    private static func matches(_ bytes: [UInt8], at index: Int, _ word: String) -> Bool {
        let pattern = Array(word.utf8)
        guard index + pattern.count <= bytes.count else { return false }
        return Array(bytes[index..<index + pattern.count]) == pattern
    }

    /// Where the expression before a COLLATE starts in what was written: a name (`c.name`), a
    /// parameter (`$3`) or a call with its balanced parentheses (`coalesce(e.title, '')`).
    private static func expressionStart(_ output: [UInt8]) -> Int? {
        var index = output.count - 1
        guard index >= 0 else { return nil }
        if output[index] == UInt8(ascii: ")") {
            var depth = 0
            var quoted = false
            while index >= 0 {
                let byte = output[index]
                if byte == UInt8(ascii: "'") { quoted.toggle() }
                if !quoted {
                    if byte == UInt8(ascii: ")") { depth += 1 }
                    if byte == UInt8(ascii: "(") {
                        depth -= 1
                        if depth == 0 { break }
                    }
                }
                index -= 1
            }
            guard index >= 0 else { return nil }
            index -= 1  // the function's name, if any
        }
        while index >= 0, isNameByte(output[index]) || output[index] == UInt8(ascii: "$") { index -= 1 }
        return index + 1
    }
}

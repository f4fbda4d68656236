import Foundation

extension FeedStore {
    /// Indexes an entry's title, plain text and author.
    func indexText(_ id: Int64, _ title: String?, _ body: String?, _ author: String?) throws(StoreError) {
        try database.dialect.search.index(id, title: title, body: body, author: author, in: database)
    }

    /// Indexes entry `id`'s version for `feed`, just written with `entry`'s text, and notes that the
    /// entry has versions.
    func indexVersion(of id: Int64, feed: Int64, _ entry: IncomingEntry) throws(StoreError) {
        try database.dialect.search.indexVersion(of: id, feed: feed, entry, in: database)
        try database.statement("UPDATE entry_state SET versioned = 1 WHERE entry_id = ?1 AND versioned = 0").run([.integer(id)])
    }

    /// Indexes the versions entry `id`'s other sources just kept of its row's text.
    func indexCopiedVersions(of id: Int64) throws(StoreError) {
        try database.dialect.search.indexVersions(entry: id, in: database)
        try database.statement("UPDATE entry_state SET versioned = 1 WHERE entry_id = ?1 AND versioned = 0").run([.integer(id)])
    }

    /// Takes an entry out of the index: a contentless FTS5 index needs the indexed values again.
    func unindexText(_ id: Int64) throws(StoreError) {
        try unindexText(where: "?1", [.integer(id)])
    }

    /// Takes out of the index the live entries among `ids` (a fixed subquery or list with its
    /// parameters: the statement is kept for reuse).
    func unindexText(where ids: String, _ values: [SQLValue]) throws(StoreError) {
        try database.dialect.search.unindex(where: ids, values, in: database)
    }
}

/// Text cut into words as FTS5's unicode61 tokenizer cuts it (letters, digits and private-use
/// characters are word characters; anything else separates), lowercased and without diacritics,
/// words separated by one space: what PostgreSQL's `simple` configuration then indexes as they are.
enum SearchText {
    /// The document of an entry: its title, author and plain text.
    static func document(of entry: IncomingEntry) -> String {
        document(title: entry.title, author: entry.author, body: entry.searchText)
    }

    /// An entry's index document as a `tsvector` literal: its words with their positions, weighted A
    /// in the title, B in the author, C in the text, positions running on from one to the next as
    /// `to_tsvector` joined with `||` numbers them. Built here, not by `to_tsvector` on the server:
    /// reading the literal costs the server a sixth (measured), and the words are exactly those
    /// `words` cuts, as a query's are. Each occurrence is written as it comes (`'a':1A 'b':2A
    /// 'a':3A`): the server sorts and merges them, keeps 256 positions a word and clamps positions
    /// at 16,383. Words of 2 KB or more and text past 512 KB of document are left out (PostgreSQL's
    /// limits are 2 KB and 1 MB).
    static func document(title: String?, author: String?, body: String?) -> String {
        var output: [UInt8] = []
        var position = 0
        for (text, weight) in [(title, UInt8(ascii: "A")), (author, UInt8(ascii: "B")), (body, UInt8(ascii: "C"))] {
            let cut = wordBytes(text)
            var start = 0
            // Each word of `cut` (one space between words), as it comes: no array of them is made.
            while start < cut.count {
                var end = start
                while end < cut.count, cut[end] != UInt8(ascii: " ") { end += 1 }
                position += 1
                if end - start < 2046, output.count < 512 * 1024 {
                    if !output.isEmpty { output.append(UInt8(ascii: " ")) }
                    output.append(UInt8(ascii: "'"))
                    output += cut[start..<end]
                    output += [UInt8(ascii: "'"), UInt8(ascii: ":")]
                    output += String(min(position, 16383)).utf8
                    output.append(weight)
                }
                start = end + 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    static func words(_ text: String?) -> String {
        String(decoding: wordBytes(text), as: UTF8.self)
    }

    /// `words(_:)` as UTF-8 bytes.
    private static func wordBytes(_ text: String?) -> [UInt8] {
        guard let text, !text.isEmpty else { return [] }
        // Most text is ASCII: cut and lowercased byte by byte, without Foundation's folding (most of
        // the client's time in a PostgreSQL ingest before).
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return asciiWords(text) }
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        var output: [UInt8] = []
        output.reserveCapacity(folded.utf8.count)
        var pendingSpace = false
        for scalar in folded.unicodeScalars {
            // ASCII by value: asking Unicode's tables of every scalar was a fifth of a PostgreSQL
            // ingest of the farm's (partly non-ASCII) feeds, appending to a scalar view another tenth.
            let isWord = scalar.isASCII ? isASCIIWordByte(UInt8(scalar.value)) : isWordScalar(scalar)
            guard isWord else {
                pendingSpace = true
                continue
            }
            if pendingSpace, !output.isEmpty { output.append(UInt8(ascii: " ")) }
            pendingSpace = false
            UTF8.encode(scalar) { output.append($0) }
        }
        return output
    }

    private static func isASCIIWordByte(_ byte: UInt8) -> Bool {
        let lower = byte | 0x20
        return (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z"))
    }

    private static func asciiWords(_ text: String) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        for byte in text.utf8 {
            if isASCIIWordByte(byte) {
                if pendingSpace, !output.isEmpty { output.append(UInt8(ascii: " ")) }
                pendingSpace = false
                output.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte)
            } else {
                pendingSpace = true
            }
        }
        return output
    }

    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber, .privateUse:
            return true
        default:
            return false
        }
    }
}

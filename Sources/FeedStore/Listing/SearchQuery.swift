import Foundation

/// A user's search turned into an FTS5 query (words AND, "phrases", prefix*, -exclude, OR),
/// with every word quoted so no user input is ever read as FTS5 syntax.
struct SearchQuery: Equatable {
    /// The MATCH expression (FTS5).
    let expression: String
    /// The same query for PostgreSQL's `to_tsquery`-free `::tsquery` (words as `SearchText` cuts them).
    let tsquery: String
    /// The words and phrases looked for (not the excluded ones), for snippets.
    let terms: [String]
    /// The terms given as prefixes (`word*`).
    let prefixes: Set<String>

    /// - Throws: `StoreError.Kind.invalidQuery` when nothing is left to look for.
    init(_ text: String) throws(StoreError) {
        var groups: [[String]] = [[]]  // OR-separated alternatives, each a list of ANDed items
        var excluded: [String] = []
        var tsGroups: [[String]] = [[]]
        var tsExcluded: [String] = []
        var terms: [String] = []
        var prefixes: Set<String> = []
        var pendingOr = false
        for token in Self.tokens(of: text) {
            if token.text == "OR" && !token.quoted {
                pendingOr = !groups[groups.count - 1].isEmpty
                continue
            }
            var word = token.text
            var negated = false
            if !token.quoted, word.hasPrefix("-"), word.count > 1 {
                negated = true
                word.removeFirst()
            }
            var prefix = false
            if !token.quoted, word.hasSuffix("*") {
                prefix = true
                word = String(word.drop { $0 == "*" }.reversed().drop { $0 == "*" }.reversed())
            }
            guard word.unicodeScalars.contains(where: { CharacterSet.alphanumerics.contains($0) }) else { continue }
            // Doubled scalar by scalar: a `"` followed by a combining mark is one Character, which
            // String's replacing would pass over (found by fuzzing: FTS5 read it as the term's end).
            var escaped = String.UnicodeScalarView()
            for scalar in word.unicodeScalars {
                escaped.append(scalar)
                if scalar == "\"" { escaped.append(scalar) }
            }
            let quoted = "\"" + String(escaped) + "\"" + (prefix ? "*" : "")
            let lexemes = Self.lexemes(word, prefix: prefix)
            if negated {
                excluded.append(quoted)
                if let lexemes { tsExcluded.append(lexemes) }
                continue
            }
            terms.append(word)
            if prefix { prefixes.insert(word) }
            if pendingOr {
                groups[groups.count - 1].append("OR")
            } else if !groups[groups.count - 1].isEmpty {
                groups.append([])
                tsGroups.append([])
            }
            groups[groups.count - 1].append(quoted)
            // A term with no word in it (a lone combining mark) matches nothing, as in FTS5: `-` is never indexed.
            tsGroups[tsGroups.count - 1].append(lexemes ?? "'-'")
            pendingOr = false
        }
        let positive = groups.filter { !$0.isEmpty }.map { "(" + $0.joined(separator: " ") + ")" }
        guard !positive.isEmpty else {
            throw StoreError(.invalidQuery, message: excluded.isEmpty
                ? "nothing to search for in '\(text)': give at least one word"
                : "a search needs at least one word to look for, not only excluded ones")
        }
        expression = positive.joined(separator: " AND ") + excluded.map { " NOT " + $0 }.joined()
        tsquery = tsGroups.filter { !$0.isEmpty }.map { "(" + $0.joined(separator: " | ") + ")" }.joined(separator: " & ")
            + tsExcluded.map { " & !" + $0 }.joined()
        self.terms = terms
        self.prefixes = prefixes
    }

    /// The query as bound on `dialect`.
    func bound(for dialect: SQLDialect) -> SQLValue {
        dialect.search.bound(self)
    }

    /// A word or phrase as tsquery lexemes: one word `'w'`, a phrase `('a' <-> 'b')`, a prefix `:*` on
    /// its last word; nil when nothing in it is a word.
    private static func lexemes(_ text: String, prefix: Bool) -> String? {
        let words = SearchText.words(text).split(separator: " ")
        guard !words.isEmpty else { return nil }
        var quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" }
        if prefix { quoted[quoted.count - 1] += ":*" }
        return quoted.count == 1 ? quoted[0] : "(" + quoted.joined(separator: " <-> ") + ")"
    }

    private struct Token {
        let text: String
        let quoted: Bool
    }

    /// Splits on whitespace, keeping "quoted phrases" together; an unclosed quote runs to the end.
    /// Control characters separate words too: FTS5 reads a NUL as the end of the query (found by
    /// fuzzing: `a\0b` was refused as "unterminated string").
    private static func tokens(of text: String) -> [Token] {
        var tokens: [Token] = []
        var current = ""
        var inQuotes = false
        func flush(quoted: Bool) {
            if !current.isEmpty { tokens.append(Token(text: current, quoted: quoted)) }
            current = ""
        }
        for character in text {
            if character == "\"" {
                flush(quoted: inQuotes)
                inQuotes.toggle()
            } else if character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                flush(quoted: inQuotes)
            } else if character.isWhitespace && !inQuotes {
                flush(quoted: false)
            } else {
                current.append(character)
            }
        }
        flush(quoted: inQuotes)
        return tokens
    }

    /// An excerpt of `text` around the first match, every match wrapped in `Snippet` markers.
    func snippet(of text: String?, radius: Int = 80) -> String? {
        guard let text, !text.isEmpty else { return nil }
        let options: String.CompareOptions = [.caseInsensitive, .diacriticInsensitive]
        let firstMatch = terms.compactMap { text.range(of: $0, options: options) }.min { $0.lowerBound < $1.lowerBound }
        let center = firstMatch?.lowerBound ?? text.startIndex
        var start = text.index(center, offsetBy: -radius, limitedBy: text.startIndex) ?? text.startIndex
        var end = text.index(center, offsetBy: radius, limitedBy: text.endIndex) ?? text.endIndex
        while start > text.startIndex, !text[text.index(before: start)].isWhitespace { start = text.index(before: start) }
        while end < text.endIndex, !text[end].isWhitespace { end = text.index(after: end) }
        var excerpt = String(text[start..<end])
        for term in terms.sorted(by: { $0.count > $1.count }) {
            var searchStart = excerpt.startIndex
            while let found = excerpt.range(of: term, options: options, range: searchStart..<excerpt.endIndex) {
                // Whole words only ("the" does not light up inside "then"), prefixes may run on.
                let startsWord = found.lowerBound == excerpt.startIndex
                    || !excerpt[excerpt.index(before: found.lowerBound)].isLetter
                let endsWord = found.upperBound == excerpt.endIndex || !excerpt[found.upperBound].isLetter
                guard startsWord && (endsWord || prefixes.contains(term)) else {
                    searchStart = found.upperBound
                    continue
                }
                let marked = Snippet.matchStart + excerpt[found] + Snippet.matchEnd
                excerpt.replaceSubrange(found, with: marked)
                searchStart = excerpt.index(found.lowerBound, offsetBy: marked.count)
            }
        }
        return (start > text.startIndex ? "…" : "") + excerpt + (end < text.endIndex ? "…" : "")
    }
}

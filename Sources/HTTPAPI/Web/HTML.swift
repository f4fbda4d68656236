import FeedStore

/// Markup that is safe by construction (docs/SECURITY.md, "The web page"): in an `HTML` literal, an
/// interpolated `String` is escaped, an interpolated `HTML` goes in as it is. The only markup there
/// is comes from literals written in this module and from `HTML(sanitized:)`, content that went
/// through `HTMLSanitizer`; text from a feed, a user or a request cannot become markup by mistake
/// (an optional or a type without an interpolation here does not compile).
struct HTML: ExpressibleByStringInterpolation, Equatable, Sendable {
    private(set) var markup: String

    init(stringLiteral literal: String) {
        markup = literal
    }

    init(stringInterpolation: Interpolation) {
        markup = stringInterpolation.markup
    }

    /// Content that `HTMLSanitizer` made safe to show.
    init(sanitized: String) {
        markup = sanitized
    }

    static let empty: HTML = ""

    var isEmpty: Bool { markup.isEmpty }

    static func + (left: HTML, right: HTML) -> HTML {
        HTML(sanitized: left.markup + right.markup)
    }

    static func += (left: inout HTML, right: HTML) {
        left.markup += right.markup
    }

    struct Interpolation: StringInterpolationProtocol {
        fileprivate var markup = ""

        init(literalCapacity: Int, interpolationCount: Int) {
            markup.reserveCapacity(literalCapacity + 16 * interpolationCount)
        }

        mutating func appendLiteral(_ literal: String) {
            markup += literal
        }

        /// Text, escaped.
        mutating func appendInterpolation(_ text: String) {
            markup += HTML.escaped(text)
        }

        mutating func appendInterpolation(_ html: HTML) {
            markup += html.markup
        }

        mutating func appendInterpolation(_ parts: [HTML]) {
            for part in parts { markup += part.markup }
        }

        mutating func appendInterpolation(_ number: some BinaryInteger) {
            markup += String(number)
        }

        mutating func appendInterpolation<Kind>(_ id: TypedID<Kind>) {
            markup += id.description
        }
    }

    /// The one escaper of text for HTML: safe between tags and in quoted attribute values alike.
    /// Characters HTML does not allow (C0 controls but tab, line feed and carriage return) are left out.
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\u{0}"..."\u{8}", "\u{B}", "\u{C}", "\u{E}"..."\u{1F}": continue
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}

extension Sequence<HTML> {
    func joined(separator: HTML = .empty) -> HTML {
        var whole = HTML.empty
        for (index, part) in enumerated() {
            if index > 0 { whole += separator }
            whole += part
        }
        return whole
    }
}

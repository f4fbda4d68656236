/// The one escaper of text written out as XML (OPML export, echoed inline XHTML, Google Reader's Atom
/// streams); the web page has its own for HTML (HTTPAPI/Web/HTML.swift).
public enum XMLText {
    /// `text` with `&`, `<`, `>` and `"` as character references: safe in element text and in
    /// double-quoted attribute values.
    public static func escaped(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 }) else { return text }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count + 16)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}

import FeedParser
import Foundation
import FuzzSupport

// The HTML sanitizer (and HTML → text, for no crash or hang) on any text: the output keeps no script, event handler,
// javascript: URL, style or frame, and sanitizing it again changes nothing.
let forbidden = ["<script", "<style", "<iframe", "<frame", "<object", "<embed", "<form", "<svg", "<math", "<base", "<meta",
                 "<link", "javascript:", "vbscript:", "data:", " style=", "srcdoc"]

runFuzzer { data, size in
    let html = text(data, size)
    let clean = HTMLSanitizer.sanitize(html, baseURL: "https://example.org/post/")
    let lower = clean.lowercased()
    for word in forbidden {
        require(!lower.contains(word), "\(word) survived: \(clean.debugDescription)")
    }
    // An attribute named on… inside a tag (text may say `onclick="…"`: its `<` and `>` are escaped,
    // so every `<…>` in the output is a tag the sanitizer wrote).
    var rest = lower[...]
    while let open = rest.firstIndex(of: "<") {
        let close = rest[open...].firstIndex(of: ">") ?? rest.endIndex
        // Attribute values are quoted, their quotes escaped: what is inside them is text too.
        let tag = rest[open..<close].replacingOccurrences(of: #""[^"]*""#, with: "\"\"", options: .regularExpression)
        require(tag.range(of: #"\son[a-z]*\s*="#, options: .regularExpression) == nil,
                "an event handler survived in \(tag.debugDescription): \(clean.debugDescription)")
        rest = rest[close...].dropFirst()
    }
    let twice = HTMLSanitizer.sanitize(clean, baseURL: "https://example.org/post/")
    require(twice == clean, "sanitizing twice changed \(clean.debugDescription) into \(twice.debugDescription)")
    _ = HTMLText.plainText(fromHTML: html)  // no crash, no hang
    return 0
}

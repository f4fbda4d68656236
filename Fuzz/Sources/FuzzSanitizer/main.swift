import FeedParser
import Foundation
import FuzzSupport

// The HTML sanitizer (and HTML → text, for no crash or hang) on any text: the output has no
// script, style, frame, form, SVG or MathML element, no event handler or style attribute, no URL
// but http(s) and mailto, and sanitizing it again changes nothing. Text may say anything ("<" and
// ">" in it are escaped), so the checks look at the tags the sanitizer wrote: every `<…>` is one.
let forbiddenElements = ["script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "form", "input",
                         "button", "textarea", "svg", "math", "base", "meta", "link", "template", "noscript"]

runFuzzer { data, size in
    let html = text(data, size)
    let clean = HTMLSanitizer.sanitize(html, baseURL: "https://example.org/post/")
    // Scalar by scalar, as an HTML tokenizer reads: a ">" followed by a combining mark is one
    // Character, which a Character-wise search would pass over (a checker bug fuzzing showed).
    var rest = clean.lowercased().unicodeScalars[...]
    while let open = rest.firstIndex(of: "<") {
        let close = rest[open...].firstIndex(of: ">") ?? rest.endIndex
        let tag = String(String.UnicodeScalarView(rest[rest.index(after: open)..<close]))
        let name = tag.prefix { $0 != " " && $0 != ">" }.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        require(!forbiddenElements.contains(name), "<\(name)> survived: \(clean.debugDescription)")
        // Each attribute: name="value" (the sanitizer quotes every value and escapes its quotes).
        for match in tag.matches(of: /([a-z-]+)="([^"]*)"/.matchingSemantics(.unicodeScalar)) {
            let (attribute, value) = (String(match.1), String(match.2))
            require(!attribute.hasPrefix("on") && attribute != "style" && attribute != "srcdoc",
                    "attribute \(attribute) survived: \(clean.debugDescription)")
            // The URLs of the attribute: itself, or each candidate's first word in a srcset.
            var urls: [String] = []
            if ["href", "src", "poster", "cite"].contains(attribute) { urls = [value] }
            if attribute == "srcset" {
                urls = value.split(separator: ",").compactMap { $0.split(separator: " ").first.map(String.init) }
            }
            for url in urls where !url.isEmpty {
                // As browsers read a scheme: ASCII whitespace and control characters in it ignored.
                let scheme = String(String.UnicodeScalarView(url.unicodeScalars.prefix { $0 != ":" && $0 != "/" }
                    .filter { $0.value > 0x20 }))
                require(url.hasPrefix("/") || ["http", "https", "mailto"].contains(scheme) || !url.contains(":"),
                        "\(attribute)=\"\(url)\" survived: \(clean.debugDescription)")
            }
        }
        rest = rest[close...].dropFirst()
    }
    let twice = HTMLSanitizer.sanitize(clean, baseURL: "https://example.org/post/")
    require(twice == clean, "sanitizing twice changed \(clean.debugDescription) into \(twice.debugDescription)")
    _ = HTMLText.plainText(fromHTML: html)  // no crash, no hang
    return 0
}

import CLibXML2
import Foundation

/// Turns HTML into plain text with libxml2's lenient HTML parser.
public enum HTMLText {
    /// The readable text of `html`: tags dropped, entities decoded, scripts and styles skipped,
    /// block elements separated by a space and whitespace runs collapsed to one space.
    public static func plainText(fromHTML html: String) -> String {
        guard html.utf8.contains(where: { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: "&") }) else {
            return collapse(html)
        }
        var text = ""
        let bytes = Array(html.utf8)
        let document = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                htmlReadMemory($0.baseAddress, Int32($0.count), nil, "UTF-8", aggregator_html_options())
            }
        }
        guard let document else { return collapse(html) }
        defer { xmlFreeDoc(document) }
        var node = document.pointee.children
        appendText(of: &node, to: &text)
        return collapse(text)
    }

    private static let skipped: Set<String> = ["script", "style", "noscript", "template"]
    private static let blocks: Set<String> = [
        "p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre",
        "table", "tr", "td", "th", "section", "article", "header", "footer", "figure", "figcaption",
        "dd", "dt", "dl", "hr", "aside", "nav",
    ]

    /// Appends the text below `node` and its siblings, iteratively so deep nesting cannot overflow the stack.
    private static func appendText(of first: inout xmlNodePtr?, to text: inout String) {
        var stack: [xmlNodePtr] = []
        var current = first
        while true {
            while let node = current {
                switch node.pointee.type {
                case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                    if let content = node.pointee.content { text += String(cString: content) }
                    current = node.pointee.next
                case XML_ELEMENT_NODE:
                    let name = node.pointee.name.map { String(cString: $0).lowercased() } ?? ""
                    if blocks.contains(name) { text += " " }
                    if skipped.contains(name) || node.pointee.children == nil {
                        current = node.pointee.next
                    } else {
                        stack.append(node)
                        current = node.pointee.children
                    }
                default:
                    current = node.pointee.next
                }
            }
            guard let parent = stack.popLast() else { return }
            if let name = parent.pointee.name, blocks.contains(String(cString: name).lowercased()) { text += " " }
            current = parent.pointee.next
        }
    }

    /// Trims and collapses every whitespace run (including no-break spaces) to one space.
    static func collapse(_ text: String) -> String {
        FastText.collapsed(text)
    }
}

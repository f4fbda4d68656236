import Foundation

/// What kind of image an icon's bytes are, read from the bytes themselves (a server's Content-Type
/// is often wrong for icons): only these types are kept and served.
enum IconImage {
    /// The largest icon kept: real ones are a few KiB; a touch icon or logo some tens.
    static let maximumBytes = 256 << 10

    /// The MIME type of `data` when it is an image of an allowed type, else nil.
    static func mimeType(of data: Data) -> String? {
        guard data.count >= 4, data.count <= maximumBytes else { return nil }
        let bytes = [UInt8](data.prefix(16))
        func starts(_ prefix: [UInt8]) -> Bool { bytes.starts(with: prefix) }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return "image/gif" }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts([0x00, 0x00, 0x01, 0x00]) { return "image/x-icon" }
        if bytes.count >= 12, starts(Array("RIFF".utf8)), bytes[8..<12].elementsEqual("WEBP".utf8) { return "image/webp" }
        if isSVG(data) { return "image/svg+xml" }
        return nil
    }

    /// An SVG document: text whose first element, past an XML declaration, comments and a doctype, is `<svg`.
    private static func isSVG(_ data: Data) -> Bool {
        guard let text = String(data: data.prefix(4096), encoding: .utf8) ?? String(data: data.prefix(4095), encoding: .utf8)
        else { return false }
        var rest = Substring(text).drop { $0 == "\u{FEFF}" || $0.isWhitespace }
        while rest.hasPrefix("<?") || rest.hasPrefix("<!") {
            let end = rest.hasPrefix("<!--") ? rest.range(of: "-->")?.upperBound : rest.firstIndex(of: ">").map(rest.index(after:))
            guard let end else { return false }
            rest = rest[end...].drop(while: \.isWhitespace)
        }
        return rest.lowercased().hasPrefix("<svg")
    }
}

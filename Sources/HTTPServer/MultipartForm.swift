import Foundation

/// `multipart/form-data` (a form with a file input): its parts, each with the field's name, the
/// file's name when it is a file, and the bytes. Anything that does not parse gives nil.
public enum MultipartForm {
    public struct Part: Sendable {
        public var name: String
        public var filename: String?
        public var body: Data
    }

    public static func parts(of body: Data, contentType: String) -> [Part]? {
        guard let boundary = boundary(in: contentType) else { return nil }
        let delimiter = Data("--\(boundary)".utf8)
        let headerEnd = Data("\r\n\r\n".utf8)
        var parts: [Part] = []
        guard var cursor = body.range(of: delimiter)?.upperBound else { return nil }
        while true {
            // After a delimiter: "--" ends the form, "\r\n" starts a part.
            let rest = body[cursor...]
            if rest.starts(with: Data("--".utf8)) { return parts }
            guard rest.starts(with: Data("\r\n".utf8)) else { return nil }
            let start = cursor + 2
            guard let headersEnd = body.range(of: headerEnd, in: start..<body.endIndex),
                  let next = body.range(of: Data("\r\n".utf8) + delimiter, in: headersEnd.upperBound..<body.endIndex) else {
                return nil
            }
            let headers = String(decoding: body[start..<headersEnd.lowerBound], as: UTF8.self)
            guard let disposition = headers.split(separator: "\r\n").first(where: {
                $0.lowercased().hasPrefix("content-disposition:")
            }), let name = parameter("name", in: disposition) else { return nil }
            parts.append(Part(name: name, filename: parameter("filename", in: disposition),
                              body: Data(body[headersEnd.upperBound..<next.lowerBound])))
            guard parts.count <= 100 else { return nil }
            cursor = next.upperBound
        }
    }

    /// The `boundary` parameter of a `multipart/form-data` content type.
    static func boundary(in contentType: String) -> String? {
        guard let value = parameter("boundary", in: Substring(contentType)), !value.isEmpty, value.count <= 70 else { return nil }
        return value
    }

    /// A `name=value` or `name="value"` parameter of a header value.
    private static func parameter(_ name: String, in header: Substring) -> String? {
        for item in header.split(separator: ";").dropFirst() {
            let pair = item.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == name else { continue }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            return value
        }
        return nil
    }
}

import CZlib
import Foundation

/// gzip for responses worth it: text (JSON, HTML, XML, plain text) of at least `minimumBytes`, to a
/// client whose `Accept-Encoding` takes gzip. A response that says how it is encoded is left alone.
enum ResponseCompression {
    /// Below this, gzip's header and a round of CPU cost more than the bytes saved.
    static let minimumBytes = 1024
    /// zlib's level 5: within a few per cent of level 9's size on JSON, at about half its time.
    static let level: Int32 = 5

    static func compressed(_ response: HTTPResponse, acceptEncoding: String?) -> HTTPResponse {
        guard response.body.count >= minimumBytes, let acceptEncoding, accepts(acceptEncoding),
              !response.headers.contains(where: { $0.name.lowercased() == "content-encoding" }),
              let type = response.headers.first(where: { $0.name.lowercased() == "content-type" })?.value,
              isCompressible(type), let body = gzip(response.body) else {
            return response
        }
        var compressed = response
        compressed.body = body
        compressed.headers += [("Content-Encoding", "gzip"), ("Vary", "Accept-Encoding")]
        return compressed
    }

    /// Whether the header lists gzip (or `*`) without `q=0`.
    static func accepts(_ header: String) -> Bool {
        header.lowercased().split(separator: ",").contains { item in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.first == "gzip" || parts.first == "*" else { return false }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) }
            return quality.map { $0 > 0 } ?? true
        }
    }

    static func isCompressible(_ type: String) -> Bool {
        let type = type.lowercased()
        return type.hasPrefix("text/") || type.contains("json") || type.contains("xml") || type.contains("javascript")
    }

    /// `data` as a gzip stream, or nil when zlib fails (the response then goes out as it is).
    static func gzip(_ data: Data) -> Data? {
        var stream = z_stream()
        guard aggregator_deflate_init_gzip(&stream, level) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var output = Data(count: Int(deflateBound(&stream, uLong(data.count))))
        let status = data.withUnsafeBytes { (input: UnsafeRawBufferPointer) -> Int32 in
            output.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) -> Int32 in
                stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = buffer.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(buffer.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        output.count = Int(stream.total_out)
        return output
    }
}

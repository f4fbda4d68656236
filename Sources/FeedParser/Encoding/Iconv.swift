import FoundationEssentials
import Glibc

/// Character set conversion through glibc's iconv.
enum Iconv {
    /// `bytes` converted from `encoding` to UTF-8; nil when the encoding is unknown or a byte sequence
    /// is invalid in it (unless `lenient`, which skips what cannot be converted).
    static func convert(_ bytes: Data, from encoding: String, lenient: Bool = false) -> Data? {
        var name = encoding.uppercased()
        // Python's BOM-less "utf-16" reads little-endian; iconv's would read big-endian.
        if name == "UTF-16" { name = "UTF-16LE" }
        if name == "UTF-32" { name = "UTF-32LE" }
        let converter = iconv_open("UTF-8" + (lenient ? "//IGNORE" : ""), name)
        guard let converter, Int(bitPattern: converter) != -1 else { return nil }
        defer { iconv_close(converter) }
        var input = [UInt8](bytes)
        var output = [UInt8](repeating: 0, count: max(64, input.count * 4 + 16))
        let outputCapacity = output.count
        let result: Int = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                var inPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(inBuffer.baseAddress)?
                    .assumingMemoryBound(to: CChar.self)
                var inLeft = inBuffer.count
                var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(outBuffer.baseAddress)?
                    .assumingMemoryBound(to: CChar.self)
                var outLeft = outBuffer.count
                let status = iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft)
                if status == -1 && !lenient { return -1 }
                if inLeft > 0 && !lenient { return -1 }
                return outBuffer.count - outLeft
            }
        }
        guard result >= 0, result <= outputCapacity else { return nil }
        return Data(output.prefix(result))
    }
}

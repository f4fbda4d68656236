import FoundationEssentials
import Glibc

/// Writes all of `bytes` to a file descriptor, retrying short writes.
func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) {
    var offset = 0
    while offset < bytes.count {
        let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return }  // a closed pipe: nothing more can be written
        offset += written
    }
}

let cli = CLI(
    standardOutput: { text in var text = text; text.withUTF8 { writeAll(UnsafeRawBufferPointer($0), to: 1) } },
    standardError: { text in var text = text; text.withUTF8 { writeAll(UnsafeRawBufferPointer($0), to: 2) } },
    standardOutputBytes: { bytes in bytes.withUnsafeBytes { writeAll($0, to: 1) } }
)
exit(cli.run(Array(CommandLine.arguments.dropFirst())).rawValue)

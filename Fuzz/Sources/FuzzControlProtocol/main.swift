import ControlProtocol
import Foundation
import FuzzSupport

// The control socket's input: bytes in any chunks through the line framer (never a line over its
// limit, nothing lost), each line decoded as JSON-RPC (a request, or an error to answer with).
runFuzzer { data, size in
    guard size > 0, let data else { return 0 }
    var framer = LineFramer(maximumLineLength: 4096)
    let input = bytes(data + 1, size - 1)
    let chunk = Int(data[0]) + 1
    var lines: [Data] = []
    var offset = 0
    while offset < input.count {
        let piece = input[offset..<min(offset + chunk, input.count)]
        offset += piece.count
        guard let found = try? framer.append(Data(piece)) else { return 0 }  // too long: the connection is closed
        lines += found
    }
    for line in lines {
        require(line.count <= 4096, "a line of \(line.count) bytes passed a limit of 4096")
        // A request (its method, even an empty one, is answered "unknown method"), or an error to send.
        if case .failure(let error) = JSONRPCRequest.parse(line) {
            require(error.code < 0 && !error.message.isEmpty, "an error code \(error.code): \(error.message)")
        }
    }
    let newlines = input.filter { $0 == UInt8(ascii: "\n") }.count
    require(lines.count == newlines, "\(newlines) lines sent, \(lines.count) framed")
    return 0
}

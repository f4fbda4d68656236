@testable import ControlProtocol
import Foundation
import Testing

@Suite struct LineFramerTests {
    @Test func linesSplitAcrossChunksAreJoined() throws {
        var framer = LineFramer()
        #expect(try framer.append(Data(#"{"a":"#.utf8)).isEmpty)
        let lines = try framer.append(Data("1}\n{\"b\":2}\n{\"c\"".utf8))
        #expect(lines.map { String(decoding: $0, as: UTF8.self) } == [#"{"a":1}"#, #"{"b":2}"#])
        #expect(framer.bufferedByteCount == 4)
    }

    @Test func carriageReturnBeforeNewlineIsDropped() throws {
        var framer = LineFramer()
        let lines = try framer.append(Data("status\r\n\n".utf8))
        #expect(lines.map { String(decoding: $0, as: UTF8.self) } == ["status", ""])
    }

    @Test func overlongLineIsRejectedEvenBeforeItsNewline() throws {
        var framer = LineFramer(maximumLineLength: 8)
        #expect(throws: LineFramer.LineTooLong(limit: 8)) {
            _ = try framer.append(Data("123456789".utf8))
        }
        #expect(framer.bufferedByteCount == 0)
        #expect(throws: LineFramer.LineTooLong(limit: 8)) {
            _ = try framer.append(Data("ok\n123456789\n".utf8))
        }
    }

    @Test func lineAtTheLimitIsAccepted() throws {
        var framer = LineFramer(maximumLineLength: 4)
        #expect(try framer.append(Data("abcd\n".utf8)) == [Data("abcd".utf8)])
    }
}

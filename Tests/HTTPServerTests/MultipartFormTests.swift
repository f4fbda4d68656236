import Foundation
import HTTPServer
import Testing

/// Form posts with a file, as browsers send them, and bodies that are not.
@Suite struct MultipartFormTests {
    @Test func fieldsAndFilesAreRead() throws {
        let body = Data(("--XyZ\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\nabc\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"opml\"; filename=\"feeds.opml\"\r\n"
            + "Content-Type: text/xml\r\n\r\n<opml>\r\n--X</opml>\r\n--XyZ--\r\n").utf8)
        let parts = try #require(MultipartForm.parts(of: body, contentType: "multipart/form-data; boundary=XyZ"))
        #expect(parts.map(\.name) == ["csrf", "opml"])
        #expect(String(decoding: parts[0].body, as: UTF8.self) == "abc" && parts[0].filename == nil)
        #expect(String(decoding: parts[1].body, as: UTF8.self) == "<opml>\r\n--X</opml>" && parts[1].filename == "feeds.opml")
    }

    @Test(arguments: ["", "--XyZ", "--XyZ\r\nno headers end", "--XyZ\r\nContent-Disposition: form-data\r\n\r\nx\r\n--XyZ--",
                      "garbage --XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nunterminated"])
    func bodiesThatDoNotParseGiveNil(text: String) {
        #expect(MultipartForm.parts(of: Data(text.utf8), contentType: "multipart/form-data; boundary=XyZ") == nil)
        #expect(MultipartForm.parts(of: Data(text.utf8), contentType: "multipart/form-data") == nil)
    }
}

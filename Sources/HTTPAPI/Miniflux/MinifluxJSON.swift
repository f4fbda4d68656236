import ControlProtocol
import Foundation
import HTTPServer

/// Miniflux's JSON: the encoded document and its response.
enum MinifluxJSON {
    static func response(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        .json(Data(value.encoded()), status: status)
    }
}

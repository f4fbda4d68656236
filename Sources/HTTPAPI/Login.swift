import AggregatorCore
import Foundation
import HTTPServer

/// Reading the credentials of a request and answering the ones that do not let it in.
enum Login {
    /// The name and password of an `Authorization: Basic …` header, if it has one that decodes.
    static func basicCredentials(_ request: HTTPRequest) -> (name: String, password: String)? {
        guard let header = request.headers["authorization"], header.count <= 4096 else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic",
              let decoded = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
              let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":") else {
            return nil
        }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// The response for a verdict that is not `granted`, written as the reader APIs write errors.
    static func refusal(_ verdict: LoginVerdict) -> HTTPResponse {
        switch verdict {
        case .granted:
            preconditionFailure("a granted login has no refusal")
        case .refused:
            return unauthorized("Access Unauthorized")
        case .noAccount:
            return unauthorized("Access Unauthorized: no account has a password yet; on the server, set one with "
                + "'aggregatorctl user set NAME' (and tokens with 'aggregatorctl token create')")
        case .throttled(let seconds):
            var response = HTTPFrontEnd.error("too many failed logins from this address: retry in \(seconds) s", status: 429)
            response.headers.append(("Retry-After", String(seconds)))
            return response
        case .unavailable:
            return HTTPFrontEnd.error("the database cannot be read now; retry later", status: 503)
        }
    }

    /// A 401 without `WWW-Authenticate: Basic`: a browser would ask for a name and password, then keep
    /// sending them with every request, also with those another site's page makes (docs/SECURITY.md).
    static func unauthorized(_ message: String) -> HTTPResponse {
        HTTPFrontEnd.error(message, status: 401)
    }
}

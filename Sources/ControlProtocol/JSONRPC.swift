import FoundationEssentials

/// A JSON-RPC 2.0 request or notification (no id).
public struct JSONRPCRequest: Sendable, Equatable {
    public var id: JSONValue?
    public var method: String
    public var params: JSONValue

    public init(id: JSONValue?, method: String, params: JSONValue = [:]) {
        self.id = id
        self.method = method
        self.params = params
    }

    /// Reads a request from one line, or says which JSON-RPC error it is.
    public static func parse(_ line: Data) -> Result<JSONRPCRequest, JSONRPCError> {
        guard let value = try? JSONValue(parsing: line) else { return .failure(.parseError) }
        guard case .object(let object) = value else { return .failure(.invalidRequest("a request must be a JSON object")) }
        guard object["jsonrpc"]?.string == "2.0" else { return .failure(.invalidRequest("\"jsonrpc\" must be \"2.0\"")) }
        guard let method = object["method"]?.string else { return .failure(.invalidRequest("\"method\" must be a string")) }
        let params = object["params"] ?? [:]
        guard params.object != nil else { return .failure(.invalidParams("\"params\" must be an object")) }
        return .success(JSONRPCRequest(id: object["id"], method: method, params: params))
    }

    /// The request as one line of JSON (without the newline).
    public var encoded: Data {
        var object: [String: JSONValue] = ["jsonrpc": "2.0", "method": .string(method), "params": params]
        if let id { object["id"] = id }
        return JSONValue.object(object).encoded()
    }
}

/// A JSON-RPC 2.0 error object.
public struct JSONRPCError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: Int
    public var message: String

    public init(code: Int, message: String) {
        self.code = code
        self.message = message
    }

    public static let parseError = JSONRPCError(code: -32700, message: "parse error: not valid JSON")
    public static func invalidRequest(_ detail: String) -> JSONRPCError { .init(code: -32600, message: "invalid request: \(detail)") }
    public static func methodNotFound(_ method: String) -> JSONRPCError { .init(code: -32601, message: "unknown method '\(method)'") }
    public static func invalidParams(_ detail: String) -> JSONRPCError { .init(code: -32602, message: "invalid params: \(detail)") }
    public static func internalError(_ detail: String) -> JSONRPCError { .init(code: -32603, message: "internal error: \(detail)") }
    /// The operation was understood but failed (no feed at a page, an unreadable OPML file): the
    /// message says why.
    public static func failed(_ detail: String) -> JSONRPCError { .init(code: -32000, message: detail) }
    /// The daemon was serving as many connections as it takes: this one was closed unread (try again).
    public static func busy(_ detail: String) -> JSONRPCError { .init(code: busyCode, message: detail) }
    public static let busyCode = -32001
    /// The feed, article or category named does not exist.
    public static func notFound(_ detail: String) -> JSONRPCError { .init(code: -32002, message: detail) }
    /// The feed is subscribed already.
    public static func alreadySubscribed(_ detail: String) -> JSONRPCError { .init(code: -32003, message: detail) }
    /// The store cannot be used now (locked, full, read-only, damaged): try again, or see the daemon's log.
    public static func unavailable(_ detail: String) -> JSONRPCError { .init(code: -32004, message: detail) }

    public var description: String { message }
}

/// A response line: a result or an error, for the request with `id`. Notifications have a method instead.
public enum JSONRPCMessage: Sendable, Equatable {
    case result(id: JSONValue, JSONValue)
    case error(id: JSONValue, JSONRPCError)
    case notification(method: String, params: JSONValue)

    public var encoded: Data {
        switch self {
        case .result(let id, let result):
            JSONValue.object(["jsonrpc": "2.0", "id": id, "result": result]).encoded()
        case .error(let id, let error):
            JSONValue.object(["jsonrpc": "2.0", "id": id, "error": ["code": .number(Double(error.code)),
                                                                    "message": .string(error.message)]]).encoded()
        case .notification(let method, let params):
            JSONValue.object(["jsonrpc": "2.0", "method": .string(method), "params": params]).encoded()
        }
    }

    /// Reads a response or notification line (the client side).
    public static func parse(_ line: Data) -> JSONRPCMessage? {
        guard let value = try? JSONValue(parsing: line), let object = value.object else { return nil }
        if let method = object["method"]?.string { return .notification(method: method, params: object["params"] ?? [:]) }
        let id = object["id"] ?? .null
        if let error = object["error"]?.object {
            return .error(id: id, JSONRPCError(code: error["code"]?.int ?? -32603, message: error["message"]?.string ?? "unknown error"))
        }
        return .result(id: id, object["result"] ?? .null)
    }
}

import FoundationEssentials

/// Any JSON value, as protocol messages carry them.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses one JSON text (UTF-8; any value at the top).
    public init(parsing data: some Collection<UInt8>) throws(JSONParseError) {
        var parser = JSONParser(Array(data))
        self = try parser.document()
    }

    // MARK: - Reading

    public subscript(key: String) -> JSONValue? {
        if case .object(let values) = self { return values[key] }
        return nil
    }

    public var string: String? { if case .string(let value) = self { value } else { nil } }
    public var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    public var number: Double? { if case .number(let value) = self { value } else { nil } }
    public var int: Int? { number.flatMap { $0.rounded() == $0 ? Int(exactly: $0) : nil } }
    public var array: [JSONValue]? { if case .array(let values) = self { values } else { nil } }
    public var object: [String: JSONValue]? { if case .object(let values) = self { values } else { nil } }
    public var isNull: Bool { self == .null }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { $1 }))
    }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue {
    /// `value` as JSON, or null.
    public static func from(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
    public static func from(_ value: Int?) -> JSONValue { value.map { .number(Double($0)) } ?? .null }
    public static func from(_ value: Int64?) -> JSONValue { value.map { .number(Double($0)) } ?? .null }
    public static func from(_ value: Double?) -> JSONValue { value.map(JSONValue.number) ?? .null }
}

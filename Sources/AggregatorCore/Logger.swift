import Foundation
import Synchronization

/// One line per event on stderr, `key=value` fields. Under journald
/// (`JOURNAL_STREAM` set) each line starts with its syslog priority so levels are kept.
public struct Logger: Sendable {
    /// Severity, lowest first.
    public enum Level: String, Sendable, Comparable, CaseIterable {
        case debug, info, warning, error

        /// The syslog priority journald reads from a `<N>` prefix.
        var syslogPriority: Int {
            switch self {
            case .debug: 7
            case .info: 6
            case .warning: 4
            case .error: 3
            }
        }

        public static func < (lhs: Level, rhs: Level) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// The least severe level written. Shared by every logger made from this one with `component(_:)`,
    /// so a configuration reload changes it for the whole daemon at once.
    public var minimumLevel: Level { threshold.level }
    public let component: String
    let journald: Bool
    private let threshold: Threshold
    private let sink: @Sendable (String) -> Void

    /// A logger writing to stderr; `journald` is usually `environment["JOURNAL_STREAM"] != nil`.
    public init(minimumLevel: Level = .info, component: String = "daemon", journald: Bool = false) {
        self.init(minimumLevel: minimumLevel, component: component, journald: journald) { line in
            var bytes = Array(line.utf8)
            bytes.append(UInt8(ascii: "\n"))
            // One write per line keeps lines from concurrent tasks whole.
            _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        }
    }

    /// A logger that hands each formatted line to `sink` (tests capture lines this way).
    public init(minimumLevel: Level, component: String, journald: Bool, sink: @escaping @Sendable (String) -> Void) {
        self.init(threshold: Threshold(minimumLevel), component: component, journald: journald, sink: sink)
    }

    private init(threshold: Threshold, component: String, journald: Bool, sink: @escaping @Sendable (String) -> Void) {
        self.threshold = threshold
        self.component = component
        self.journald = journald
        self.sink = sink
    }

    /// The same logger, naming another component; both share one minimum level.
    public func component(_ name: String) -> Logger {
        Logger(threshold: threshold, component: name, journald: journald, sink: sink)
    }

    /// Changes the minimum level of this logger and of every logger sharing it.
    public func setMinimumLevel(_ level: Level) {
        threshold.level = level
    }

    public func debug(_ message: String, _ fields: KeyValuePairs<String, Any> = [:]) {
        log(.debug, message, fields)
    }

    public func info(_ message: String, _ fields: KeyValuePairs<String, Any> = [:]) {
        log(.info, message, fields)
    }

    public func warning(_ message: String, _ fields: KeyValuePairs<String, Any> = [:]) {
        log(.warning, message, fields)
    }

    public func error(_ message: String, _ fields: KeyValuePairs<String, Any> = [:]) {
        log(.error, message, fields)
    }

    public func log(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, Any> = [:]) {
        guard level >= minimumLevel else { return }
        var line = journald ? "<\(level.syslogPriority)>" : ""
        line += "level=\(level.rawValue) component=\(Self.quoted(component)) msg=\(Self.quoted(message))"
        for (key, value) in fields {
            line += " \(key)=\(Self.quoted(String(describing: value)))"
        }
        sink(line)
    }

    /// The minimum level, shared by reference.
    private final class Threshold: Sendable {
        private let stored: Mutex<Level>
        init(_ level: Level) { stored = Mutex(level) }
        var level: Level {
            get { stored.withLock { $0 } }
            set { stored.withLock { $0 = newValue } }
        }
    }

    /// Quotes a value that would otherwise break `key=value` parsing.
    static func quoted(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.contains { $0 == " " || $0 == "\"" || $0 == "=" || $0.isNewline }
        guard needsQuotes else { return value }
        let escaped = value
            .replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
        return "\"\(escaped)\""
    }
}

@testable import AggregatorCore
import Synchronization
import Testing

@Suite struct LoggerTests {
    final class Lines: Sendable {
        let captured = Mutex<[String]>([])
    }

    @Test func linesAreKeyValueWithQuotedValues() {
        let lines = Lines()
        let logger = Logger(minimumLevel: .info, component: "scheduler", journald: false) { line in
            lines.captured.withLock { $0.append(line) }
        }
        logger.info("Refresh round done", ["feeds": 120, "error": "HTTP 503 \"busy\""])
        logger.debug("not shown")
        #expect(lines.captured.withLock { $0 } == [
            #"level=info component=scheduler msg="Refresh round done" feeds=120 error="HTTP 503 \"busy\"""#,
        ])
    }

    @Test func journaldLinesStartWithTheirPriority() {
        let lines = Lines()
        let logger = Logger(minimumLevel: .debug, component: "daemon", journald: true) { line in
            lines.captured.withLock { $0.append(line) }
        }
        logger.error("Cannot start")
        logger.warning("Slow")
        #expect(lines.captured.withLock { $0.map { String($0.prefix(3)) } } == ["<3>", "<4>"])
    }
}

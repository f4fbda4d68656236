import CLibPQ
import Foundation
import Synchronization

/// One connection to a PostgreSQL server through libpq. The store's SQL is written once, with
/// SQLite's `?N` parameters; `PostgresSQL.translate` turns it into PostgreSQL's before it is
/// prepared. Statements are prepared on the server at their first run and reused.
final class PostgresConnection: SQLConnection {
    private let handle: OpaquePointer
    let location: String
    var dialect: SQLDialect { .postgres }
    private var changes = 0
    /// Statements sent in pipeline mode whose answers are not read yet (their SQL, for messages).
    private var unanswered: [String] = []
    /// How many may wait: their answers are small, and the socket's buffers hold them all, so
    /// neither side blocks writing while the other does.
    private static let pipelineDepth = 256
    private var preparedCount = 0
    /// Counts reconnections: a statement prepared in an earlier one is prepared again.
    private(set) var generation = 0
    /// Connections of this process found dead (`outages`) when this one last connected: when another
    /// finds the database gone, this one connects again before its next statement rather than find
    /// out by waiting for its own deadline.
    private var outagesSeen = PostgresConnection.outages.load(ordering: .relaxed)
    private static let outages = Atomic<Int>(0)

    /// Whether `database` names a PostgreSQL database rather than an SQLite file.
    static func isURI(_ database: String) -> Bool {
        database.hasPrefix("postgres://") || database.hasPrefix("postgresql://")
    }

    /// How long the server and this side wait for a statement (the process's, when connected).
    private let limits: DatabaseLimits

    /// Connects to the database `uri` names (libpq's syntax; its environment variables fill the rest).
    /// - Throws: `StoreError` saying which of URI, server, login or database is wrong, and what to do;
    ///   never the password.
    init(uri: String, limits: DatabaseLimits = .current) throws(StoreError) {
        self.limits = limits
        let shown = Self.withoutPassword(uri)
        guard let handle = Self.connect(uri) else {
            throw StoreError(.cannotOpen, message: "cannot connect to PostgreSQL at \(shown): out of memory")
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            // libpq may quote the URI it could not read, password and all.
            let message = Self.redacting(uri, in: String(cString: PQerrorMessage(handle)))
                .trimmingCharacters(in: .whitespacesAndNewlines)
            PQfinish(handle)
            throw Self.connectError(shown: shown, message: message)
        }
        self.handle = handle
        location = shown
        aggregator_pq_silence_notices(handle)
        PQsetnonblocking(handle, 1)  // sending is bounded by a deadline too (`nextResult`)
        try configureSession()
    }

    /// Connects with the daemon's defaults for what the URI does not say (docs/RELIABILITY.md, "A
    /// silent network"): at most 10 s to connect, and TCP keepalives (idle 10 s, every 5 s, 3 lost)
    /// that find a dead peer. Given before the URI, which libpq expands after them: its values win.
    /// Every connection the daemon makes, the listener's too.
    static func connect(_ uri: String) -> OpaquePointer? {
        let keywords = ["connect_timeout", "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count", "dbname"]
        let values = ["10", "1", "10", "5", "3", uri]
        return keywords.withCStrings { keywords in values.withCStrings { values in PQconnectdbParams(keywords, values, 1) } }
    }

    /// The session's settings, again after each reconnection (a reset starts a new session).
    private func configureSession() throws(StoreError) {
        // UTC and UTF-8 whatever the server's defaults; the schema lives in the connecting user's search path.
        // The name lets `copy-database` see a daemon still connected.
        try execute("SET client_encoding = 'UTF8'; SET TimeZone = 'UTC'; SET application_name = 'aggregatord'")
        // Entries' texts are compressed with lz4 where the server has it: copying the farm's rows took
        // 0.27 s against pglz's 0.62 s (measured), for a few percent more space.
        try? execute("SET default_toast_compression = 'lz4'")
        // No JIT compilation: our queries read an index range and stop, but a large store's estimates
        // pass JIT's cost threshold, and compiling took longer than the query (a search by relevance at
        // 1,000,000 entries: 32 ms of JIT in 68 ms; 18.5 ms without).
        try execute("SET jit = off")
        // How long the database may keep this session waiting (DatabaseLimits: the daemon's keys).
        try execute(limits.settings)
    }

    /// Connects again (the server closed the connection, or went away); the session's settings
    /// are made again when it answers.
    private func reset() {
        // After a failed reconnection, not again before its wait is over, unless another connection of
        // the process got through since (the database is back: every connection comes back at once).
        if let retryAt, ContinuousClock.now < retryAt, recoveriesSeen == Self.recoveries.load(ordering: .relaxed) { return }
        outagesSeen = Self.outages.load(ordering: .relaxed)
        recoveriesSeen = Self.recoveries.load(ordering: .relaxed)
        PQreset(handle)
        generation += 1  // statements prepared on the old connection are gone
        guard PQstatus(handle) == CONNECTION_OK else {
            retryAt = ContinuousClock.now + retryWait
            retryWait = min(retryWait * 2, .seconds(10))
            return
        }
        if retryAt != nil { recoveriesSeen = Self.recoveries.add(1, ordering: .relaxed).newValue }
        (retryAt, retryWait) = (nil, .milliseconds(500))
        PQsetnonblocking(handle, 1)
        try? configureSession()
    }

    /// While the database is away, when this connection may try to connect again, and how long it
    /// waits after the next failure (from 0.5 s, doubling up to 10 s): statements meanwhile fail at
    /// once, rather than each wait for a connection that cannot be made.
    private var retryAt: ContinuousClock.Instant?
    private var retryWait = Duration.milliseconds(500)
    /// Reconnections of this process's connections after a failure (`recoveries`), as last seen.
    private var recoveriesSeen = 0
    private static let recoveries = Atomic<Int>(0)

    private var closed = false

    /// Closes the connection (once; statements still held then fail with a clear error).
    func close() {
        guard !closed else { return }
        closed = true
        PQfinish(handle)
    }

    deinit {
        close()
    }

    /// `uri` with any password replaced by `***`, for messages and logs.
    static func withoutPassword(_ uri: String) -> String {
        var shown = uri
        // userinfo: scheme://user:password@host…
        if let (colon, at) = userInfoPassword(in: shown) {
            shown.replaceSubrange(shown.index(after: colon)..<at, with: "***")
        }
        // query parameter: …?password=secret&…
        if let range = shown.range(of: #"([?&])password=[^&]*"#, options: [.regularExpression, .caseInsensitive]) {
            let separator = shown[range].first.map(String.init) ?? "?"
            shown.replaceSubrange(range, with: "\(separator)password=***")
        }
        return shown
    }

    /// `text` with `uri` shown without its password, and the password itself nowhere.
    static func redacting(_ uri: String, in text: String) -> String {
        var redacted = text.replacingOccurrences(of: uri, with: withoutPassword(uri))
        for password in passwords(in: uri) where !password.isEmpty {
            redacted = redacted.replacingOccurrences(of: password, with: "***")
        }
        return redacted
    }

    /// Where the password of `uri`'s user information lies: after the first `:` and before the last
    /// `@` of the authority (which ends at the first `/` or `?`).
    private static func userInfoPassword(in uri: String) -> (colon: String.Index, at: String.Index)? {
        guard let scheme = uri.range(of: "://") else { return nil }
        let authorityEnd = uri[scheme.upperBound...].firstIndex { $0 == "/" || $0 == "?" } ?? uri.endIndex
        guard let at = uri[scheme.upperBound..<authorityEnd].lastIndex(of: "@"),
              let colon = uri[scheme.upperBound..<at].firstIndex(of: ":") else { return nil }
        return (colon, at)
    }

    /// The password in `uri`'s user information and in a `password=` parameter, as written.
    private static func passwords(in uri: String) -> [String] {
        var found: [String] = []
        if let (colon, at) = userInfoPassword(in: uri) {
            found.append(String(uri[uri.index(after: colon)..<at]))
        }
        if let range = uri.range(of: #"[?&]password=[^&]*"#, options: [.regularExpression, .caseInsensitive]),
           let equals = uri[range].firstIndex(of: "=") {
            found.append(String(uri[uri.index(after: equals)..<range.upperBound]))
        }
        return found + found.compactMap { $0.removingPercentEncoding }
    }

    private static func connectError(shown: String, message: String) -> StoreError {
        let hint: String
        if message.contains("does not exist") && message.contains("database") {
            hint = "create it (createdb, or CREATE DATABASE as the server's admin) or fix the name in --database"
        } else if message.contains("password authentication failed") || message.contains("no password supplied") {
            hint = "check the user and password (in the URI, PGPASSWORD or ~/.pgpass)"
        } else if message.contains("role") && message.contains("does not exist") {
            hint = "create the role (createuser) or name another user in the URI"
        } else if message.contains("URI") || message.contains("invalid") || message.contains("missing")
                    || message.contains("unexpected") {
            hint = "fix the URI: postgresql://USER@HOST:PORT/DATABASE or postgresql:///DATABASE?host=/run/postgresql"
        } else {
            hint = "is the server running and reachable there? check the host, port or socket directory"
        }
        return StoreError(.cannotOpen, message: "cannot connect to PostgreSQL at \(shown): \(message) (\(hint))")
    }

    // MARK: - Statements

    func execute(_ sql: String) throws(StoreError) {
        try startSession()
        try drain()
        guard PQsendQuery(handle, PostgresSQL.translate(sql)) == 1 else { throw failure(nil, sql: sql) }
        // One result per statement of `sql`: the first error is the answer, once all are read.
        var firstError: StoreError?
        while let result = try nextResult(sql: sql) {
            do { try check(result, sql: sql) } catch { if firstError == nil { firstError = error } }
            PQclear(result)
        }
        if let firstError { throw firstError }
    }

    func prepare(_ sql: String) throws(StoreError) -> any SQLStatement {
        PostgresStatement(sql: PostgresSQL.translate(sql), original: sql, connection: self)
    }

    func beginWrite() throws(StoreError) {
        try execute("BEGIN")
    }

    /// A name for the next statement prepared on the server.
    func nextStatementName() -> String {
        preparedCount += 1
        return "s\(preparedCount)"
    }

    /// Prepares `sql` on the server under `name`, its parameters of the types given (0: inferred).
    func prepareOnServer(_ name: String, _ sql: String, types: [Oid], original: String) throws(StoreError) {
        try requireOpen()
        try drain()
        let sent = types.withUnsafeBufferPointer { PQsendPrepare(handle, name, sql, Int32(types.count), $0.baseAddress) }
        guard sent == 1 else { throw failure(nil, sql: original) }
        let result = try lastResult(sql: original)
        defer { PQclear(result) }
        try check(result, sql: original)
    }

    /// Runs the prepared statement `name` with `values` (text, but for bytea sent as bytes).
    func run(_ name: String, _ values: [SQLValue], original: String) throws(StoreError) -> OpaquePointer {
        try requireOpen()
        try drain()
        let (buffers, lengths, formats) = Self.parameters(values)
        let sent = withPointers(to: buffers) { pointers in
            PQsendQueryPrepared(handle, name, Int32(values.count), pointers, lengths, formats, 0)
        }
        guard sent == 1 else { throw failure(nil, sql: original) }
        let result = try lastResult(sql: original)
        do {
            try check(result, sql: original)
        } catch {
            PQclear(result)
            throw error
        }
        changes = Int(String(cString: PQcmdTuples(result))) ?? 0
        return result
    }

    func changedRows() throws(StoreError) -> Int {
        try drain()
        return changes
    }

    // MARK: - Pipeline

    /// Sends the prepared statement `name` with `values` without waiting for its answer (libpq's
    /// pipeline mode): a run of inserts in a transaction costs one round trip, not one each. The
    /// answers are read by `drain`, before anything that needs one.
    func send(_ name: String, _ values: [SQLValue], original: String) throws(StoreError) {
        try requireOpen()
        // Outside a transaction a statement is its own, committed when answered: it waits as before.
        let alone = unanswered.isEmpty && PQtransactionStatus(handle) == PQTRANS_IDLE
        if unanswered.isEmpty, PQpipelineStatus(handle) == PQ_PIPELINE_OFF {
            guard PQenterPipelineMode(handle) == 1 else { throw failure(nil, sql: original) }
        }
        let (buffers, lengths, formats) = Self.parameters(values)
        let sent = withPointers(to: buffers) { pointers in
            PQsendQueryPrepared(handle, name, Int32(values.count), pointers, lengths, formats, 0)
        }
        guard sent == 1 else {
            let error = failure(nil, sql: original)
            try? drain()
            throw error
        }
        unanswered.append(original)
        if alone || unanswered.count >= Self.pipelineDepth { try drain() }
    }

    /// Reads the answers of the statements sent ahead and leaves pipeline mode.
    /// - Throws: the first of their errors (the server skipped those sent after it).
    /// A server's database is copied by `DatabaseCopy`, from one snapshot.
    func backUpOnline(to path: String) throws(StoreError) -> Bool { false }

    func drain() throws(StoreError) {
        guard PQpipelineStatus(handle) != PQ_PIPELINE_OFF else { return }
        let sent = unanswered
        unanswered.removeAll(keepingCapacity: true)
        var firstError: StoreError?
        if PQpipelineSync(handle) != 1 { firstError = failure(nil, sql: sent.last ?? "") }
        for sql in sent {
            while let result = try nextResult(sql: sql) {
                switch PQresultStatus(result) {
                case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
                    changes = Int(String(cString: PQcmdTuples(result))) ?? 0
                case PGRES_PIPELINE_ABORTED:
                    break
                default:
                    if firstError == nil { firstError = failure(result, sql: sql) }
                }
                PQclear(result)
            }
        }
        // The sync point's own result, then nothing: the pipeline is empty.
        while let result = try nextResult(sql: sent.last ?? "") {
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
        PQexitPipelineMode(handle)
        if let firstError { throw firstError }
    }

    /// The parameters of a statement as libpq takes them: text, but bytea as bytes.
    private static func parameters(_ values: [SQLValue]) -> ([[CChar]?], [Int32], [Int32]) {
        var buffers: [[CChar]?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        for value in values {
            switch value {
            case .null: buffers.append(nil); lengths.append(0); formats.append(0)
            case .integer(let number): buffers.append(Array(String(number).utf8CString)); lengths.append(0); formats.append(0)
            case .real(let number): buffers.append(Array("\(number)".utf8CString)); lengths.append(0); formats.append(0)
            case .text(let text):
                // A NUL cannot travel in PostgreSQL's text (SQLite kept it; readers never need it). The
                // C string ends at the first one, so it is dropped here, not searched for.
                var bytes = Array(text.utf8)
                if bytes.contains(0) { bytes.removeAll { $0 == 0 } }
                bytes.append(0)
                buffers.append(bytes.map { CChar(bitPattern: $0) }); lengths.append(0); formats.append(0)
            case .blob(let data): buffers.append(data.map { CChar(bitPattern: $0) }); lengths.append(Int32(data.count)); formats.append(1)
            }
        }
        return (buffers, lengths, formats)
    }

    /// The next result of what was sent, nil once there is none: what was sent is flushed to the
    /// socket and the answer read as it comes (the connection is nonblocking), for at most
    /// `db-statement-timeout` + 5 s (docs/RELIABILITY.md, "A silent network"). A network gone silent
    /// leaves no server-side limit able to fire, a kernel that still acknowledges keepalives, and a
    /// large statement waiting for socket buffers that never empty; past the deadline the connection
    /// is dropped, to be made again by the next statement, and the call fails rather than wait for good.
    private func nextResult(sql: String) throws(StoreError) -> OpaquePointer? {
        if let limit = limits.statementTimeout {
            let deadline = ContinuousClock.now + limit + .seconds(5)
            while true {
                let unsent = PQflush(handle)  // 1: part of what was sent still waits for the socket
                guard unsent == 1 || (unsent == 0 && PQisBusy(handle) == 1) else { break }  // -1: PQgetResult says
                let left = deadline - ContinuousClock.now
                guard left > .zero else { throw cut(after: limit + .seconds(5), sql: sql) }
                let events = POLLIN | (unsent == 1 ? POLLOUT : 0)
                var descriptor = pollfd(fd: PQsocket(handle), events: Int16(events), revents: 0)
                _ = poll(&descriptor, 1, Int32(min(left.components.seconds * 1000 + 1, 1000)))
                guard PQconsumeInput(handle) == 1 else { break }  // the connection failed: PQgetResult says so
            }
        }
        return PQgetResult(handle)
    }

    /// Drops the connection that missed its deadline, not waited for: the next statement connects
    /// again (`startSession`), and every other connection of the process with it (`outages`). Not
    /// retried: it timed out.
    private func cut(after deadline: Duration, sql: String) -> StoreError {
        unanswered.removeAll()
        Self.outages.add(1, ordering: .relaxed)
        shutdown(PQsocket(handle), Int32(SHUT_RDWR))
        _ = PQconsumeInput(handle)  // libpq sees the connection closed
        return StoreError(.busy, message: "PostgreSQL at \(location) did not answer within "
            + "\(deadline) (db-statement-timeout + 5 s): connection dropped, in `\(sql.prefix(80))`")
    }

    /// The one result of a statement sent alone, with the end of its answer read.
    private func lastResult(sql: String) throws(StoreError) -> OpaquePointer {
        guard let result = try nextResult(sql: sql) else { throw failure(nil, sql: sql) }
        while let extra = try nextResult(sql: sql) { PQclear(extra) }
        return result
    }

    private func requireOpen() throws(StoreError) {
        guard !closed else { throw StoreError(.cannotOpen, message: "the connection to PostgreSQL at \(location) is closed") }
    }

    /// Whether no transaction is open: a statement run now is a transaction of its own.
    var isBetweenTransactions: Bool { PQtransactionStatus(handle) == PQTRANS_IDLE }

    /// Called before each statement, before it looks up its server-side name (`generation`): a
    /// reconnection made after the lookup would run the name in a session that never prepared it
    /// (after a server restart: `prepared statement "s2" does not exist`, every time).
    func startSession() throws(StoreError) {
        try requireOpen()
        if outagesSeen != Self.outages.load(ordering: .relaxed), isBetweenTransactions { reset() }
        reconnectIfClosedByServer()
        guard PQstatus(handle) == CONNECTION_OK else {
            let reason = String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
            throw StoreError(.cannotOpen, message: "cannot reach PostgreSQL at \(location) now: \(reason)")
        }
    }

    /// Between transactions, finds out whether the server closed this connection (it restarted, or
    /// an administrator ended the session) and connects again before the next statement, so that
    /// the first statement after a restart does not fail. Nothing is resent: a statement that failed
    /// with the connection is never retried (it might have been carried out).
    private func reconnectIfClosedByServer() {
        if PQstatus(handle) == CONNECTION_OK {
            guard PQtransactionStatus(handle) == PQTRANS_IDLE else { return }
            // An idle connection hears nothing from its server, except the notice and end of file of
            // one that closed it: anything to read means start afresh. (One poll, no waiting.)
            var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 0) != 0 else { return }
        }
        reset()
    }

    private func withPointers<T>(to buffers: [[CChar]?], _ body: ([UnsafePointer<CChar>?]) -> T) -> T {
        var pointers: [UnsafePointer<CChar>?] = []
        func nest(_ index: Int) -> T {
            guard index < buffers.count else { return body(pointers) }
            guard let buffer = buffers[index] else {
                pointers.append(nil)
                return nest(index + 1)
            }
            return buffer.withUnsafeBufferPointer { bytes in
                pointers.append(bytes.baseAddress)
                return nest(index + 1)
            }
        }
        return nest(0)
    }

    private func check(_ result: OpaquePointer, sql: String) throws(StoreError) {
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            if PQresultStatus(result) == PGRES_COMMAND_OK { changes = Int(String(cString: PQcmdTuples(result))) ?? 0 }
        default:
            throw failure(result, sql: sql)
        }
    }

    private func failure(_ result: OpaquePointer?, sql: String) -> StoreError {
        let text = result.flatMap { PQresultErrorMessage($0) }.map { String(cString: $0) } ?? ""
        let message = (text.isEmpty ? String(cString: PQerrorMessage(handle)) : text)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) } ?? ""
        // The session ended by the server (a shutdown or restart, an administrator's
        // pg_terminate_backend: 57P01-03) is said before libpq sees the socket close: lost alike.
        if PQstatus(handle) != CONNECTION_OK || state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state) {
            Self.outages.add(1, ordering: .relaxed)
            reset()  // the next statement finds the server again, if it is back
            return StoreError(.cannotOpen, message: "lost the connection to PostgreSQL at \(location): \(message)")
        }
        // Canceled by statement_timeout, or lock_timeout passed (DatabaseLimits).
        if state == "57014" || state == "55P03" {
            return StoreError(.busy, message: "\(message) (db-statement-timeout, db-lock-timeout) in `\(sql.prefix(80))`")
        }
        if state == "40P01" || state == "40001" {
            return StoreError(.conflict, message: "database \(location): \(message) [\(state)] in `\(sql.prefix(80))`")
        }
        return StoreError(.failed, message: "database \(location): \(message) [\(state)] in `\(sql.prefix(80))`")
    }
}

@available(*, unavailable)
extension PostgresConnection: Sendable {}

private extension Array where Element == String {
    /// Calls `body` with the strings as a NULL-terminated array of C strings (libpq's keyword lists).
    func withCStrings<T>(_ body: (UnsafePointer<UnsafePointer<CChar>?>) -> T) -> T {
        let copies = map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

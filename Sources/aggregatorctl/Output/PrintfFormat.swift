import Glibc

/// printf-style text (`%.1f`, `%02d`), by the C library's vsnprintf: Foundation's `String(format:)`
/// is not in the Foundation the client links (the one without ICU).
func printf(_ format: String, _ arguments: CVarArg...) -> String {
    withVaList(arguments) { list in
        var buffer = [CChar](repeating: 0, count: 256)
        let needed = Int(vsnprintf(&buffer, buffer.count, format, list))
        guard needed >= buffer.count else { return String(cString: buffer) }
        return withVaList(arguments) { again in
            buffer = [CChar](repeating: 0, count: needed + 1)
            _ = vsnprintf(&buffer, buffer.count, format, again)
            return String(cString: buffer)
        }
    }
}

import Foundation

/// The listening sockets systemd passed (socket activation: `LISTEN_PID`, `LISTEN_FDS` from fd 3 on,
/// and `LISTEN_FDNAMES`): the control socket, and the HTTP socket when a socket unit named it `http`
/// (`FileDescriptorName=http`).
struct PassedSockets {
    /// The first descriptor systemd passes (SD_LISTEN_FDS_START).
    static let firstDescriptor: Int32 = 3

    let count: Int
    let control: Int32?
    let http: Int32?

    /// Nil when the environment passes no sockets to this process.
    init?(environment: [String: String]) {
        guard let count = environment["LISTEN_FDS"].flatMap(Int.init), count >= 1,
              environment["LISTEN_PID"].flatMap(Int32.init) == getpid() else { return nil }
        let names = environment["LISTEN_FDNAMES"]?.split(separator: ":", omittingEmptySubsequences: false).map(String.init) ?? []
        let descriptors = (0..<count).map { (name: $0 < names.count ? names[$0] : "", fd: Self.firstDescriptor + Int32($0)) }
        self.count = count
        http = descriptors.first { $0.name == "http" }?.fd
        // Named "control", else the first one not named "http" (an unnamed socket is named after its unit).
        control = (descriptors.first { $0.name == "control" } ?? descriptors.first { $0.name != "http" })?.fd
    }
}

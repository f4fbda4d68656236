@testable import AggregatorCore
import Foundation
import Testing

/// A daemon's default node name (docs/deploying.md, "Several daemons on one PostgreSQL database"): the same for a restart on the same control
/// socket, so that it takes back its killed predecessor's claims; another for another socket.
@Suite struct ClusterNodeNameTests {
    @Test func theNameSurvivesARestartAndDiffersBySocket() {
        let name = ClusterNode.defaultName(socketPath: "/run/aggregatord/control.sock")
        #expect(name == ClusterNode.defaultName(socketPath: "/run/aggregatord/control.sock"))
        #expect(name.hasPrefix(ProcessInfo.processInfo.hostName + "-"))
        #expect(!name.hasSuffix("-\(ProcessInfo.processInfo.processIdentifier)"), "not the process id")
        #expect(name != ClusterNode.defaultName(socketPath: "/run/aggregatord/other.sock"))
        // FNV-1a of the path: fixed, whatever the process (Swift's Hasher is seeded per process).
        #expect(name == ProcessInfo.processInfo.hostName + "-2a7ad3f9")
    }
}

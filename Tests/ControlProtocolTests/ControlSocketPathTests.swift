import ControlProtocol
import Foundation
import Glibc
import Testing

/// The fallback socket directory in /tmp must be the user's own with mode 0700 (docs/SECURITY.md): a
/// directory another local user made first could hold their listening socket. A user id no account
/// has is used so that the real `/tmp/aggregator-$UID` is never touched.
@Suite(.serialized) struct ControlSocketPathTests {
    @Test func withoutOtherChoicesTheSocketIsInTheFallbackDirectory() {
        #expect(ControlSocketPath.resolve(environment: [:], userID: 4242) == "/tmp/aggregator-4242/aggregatord.sock")
        #expect(ControlSocketPath.resolve(environment: ["XDG_RUNTIME_DIR": "/run/user/7"], userID: 7)
            == "/run/user/7/aggregator/aggregatord.sock")
    }

    @Test func aDirectoryOfAnotherUserOrModeIsRefused() throws {
        let userID = UInt32(3_900_000 + getpid() % 50_000)
        let directory = ControlSocketPath.fallbackDirectory(userID: userID)
        let socket = directory + "/aggregatord.sock"
        defer { _ = try? FileManager.default.removeItem(atPath: directory) }
        _ = try? FileManager.default.removeItem(atPath: directory)

        #expect(ControlSocketPath.unsafeFallback(socket: socket, userID: userID) == nil, "absent: made 0700 when listening")
        #expect(mkdir(directory, 0o700) == 0)
        // Made by this process: another user's (unless this process runs as that id, which it does not).
        let notOurs = ControlSocketPath.unsafeFallback(socket: socket, userID: userID)
        #expect(notOurs?.contains("not to this user (\(userID)) with mode 700") == true, "\(notOurs ?? "accepted")")
        #expect(ControlSocketPath.unsafeFallback(socket: "/elsewhere/aggregatord.sock", userID: userID) == nil)

        if geteuid() == 0 {  // as root (CI), give it to the user id to check the mode alone
            #expect(chown(directory, userID, gid_t(userID)) == 0)
            #expect(ControlSocketPath.unsafeFallback(socket: socket, userID: userID) == nil, "the user's own, 0700")
            #expect(chmod(directory, 0o755) == 0)
            #expect(ControlSocketPath.unsafeFallback(socket: socket, userID: userID)?.contains("mode 755") == true)
        }

        // A link to a directory elsewhere is not a directory of the user's own.
        #expect(rmdir(directory) == 0)
        #expect(symlink("/tmp", directory) == 0)
        #expect(ControlSocketPath.unsafeFallback(socket: socket, userID: userID)?.contains("not a directory") == true)
        _ = unlink(directory)
    }
}

@testable import FeedFetcher
import Testing

@Suite struct AddressPolicyTests {
    @Test(arguments: ["169.254.169.254", "fe80::1", "::ffff:169.254.169.254", "0.0.0.0", "::"])
    func linkLocalAndUnspecifiedAreAlwaysRefused(address: String) {
        #expect(AddressPolicy().refusal(forAddress: address) != nil)
        #expect(AddressPolicy(denyPrivateNetworks: true).refusal(forAddress: address) != nil)
    }

    @Test(arguments: ["127.0.0.1", "::1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
                      "100.64.0.1", "fd00::1", "::ffff:10.0.0.1"])
    func privateAddressesAreRefusedOnlyWhenAsked(address: String) {
        #expect(AddressPolicy().refusal(forAddress: address) == nil)
        let refusal = AddressPolicy(denyPrivateNetworks: true).refusal(forAddress: address)
        #expect(refusal?.contains("private-networks = none") == true)
    }

    /// Every non-public range of IANA's special-purpose registries, multicast, 240.0.0.0/4, and IPv6
    /// spellings that carry a private IPv4 address (mapped, compatible, NAT64, 6to4).
    @Test(arguments: ["198.18.0.1", "198.19.255.255", "224.0.0.1", "239.255.255.250", "240.0.0.1",
                      "255.255.255.255", "192.0.0.8", "192.0.0.170", "192.0.2.1", "198.51.100.7", "203.0.113.9",
                      "192.88.99.1", "64:ff9b::7f00:1", "64:ff9b::a00:1", "::127.0.0.1", "::10.0.0.1",
                      "::ffff:192.168.0.1", "2002:7f00:1::1", "2002:c0a8:101::", "64:ff9b:1::1", "100::1",
                      "2001::1", "2001:2::1", "2001:db8::1", "3fff::1", "5f00::1", "fec0::1", "ff02::1",
                      "ff0e::1", "::1:0:0:1", "4000::1"])
    func everyNonPublicRangeIsRefusedWhenAsked(address: String) {
        #expect(AddressPolicy().refusal(forAddress: address) == nil)
        let refusal = AddressPolicy(denyPrivateNetworks: true, reason: "rule").refusal(forAddress: address)
        #expect(refusal?.hasSuffix("(refused: rule)") == true, "\(address): \(refusal ?? "allowed")")
        #expect(!AddressPolicy.isPublic(address))
    }

    @Test func embeddedAddressesNameWhatTheyCarry() {
        let policy = AddressPolicy(denyPrivateNetworks: true, reason: "rule")
        #expect(policy.refusal(forAddress: "64:ff9b::7f00:1") == "address 64:ff9b::7f00:1 is loopback (refused: rule)")
        #expect(policy.refusal(forAddress: "::a9fe:a9fe")?.contains("link-local") == true)  // ::169.254.169.254
        #expect(AddressPolicy().refusal(forAddress: "64:ff9b::a9fe:a9fe")?.contains("link-local") == true)
    }

    @Test(arguments: ["93.184.216.34", "172.32.0.1", "2606:2800:220:1::248", "100.128.0.1", "192.0.0.9",
                      "198.20.0.1", "223.255.255.255", "64:ff9b::808:808", "2002:808:808::1", "2001:4:112::1",
                      "2001:1::1", "2001:3::1", "2620:4f:8000::1"])
    func publicAddressesAreAllowed(address: String) {
        #expect(AddressPolicy(denyPrivateNetworks: true).refusal(forAddress: address) == nil)
        #expect(AddressPolicy.isPublic(address))
    }

    @Test func garbageIsNotAnAddress() {
        #expect(AddressPolicy().refusal(forAddress: "example.org") == "not an IP address: example.org")
    }

    @Test func userAgentNamesTheVersionAndLibcurlIsLinked() {
        #expect(UserAgent.header(version: "1.2.3") == "aggregatord/1.2.3")
        #expect(UserAgent.libcurlVersion.hasPrefix("libcurl/"))
    }
}

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

    @Test(arguments: ["93.184.216.34", "172.32.0.1", "2606:2800:220:1::248", "100.128.0.1"])
    func publicAddressesAreAllowed(address: String) {
        #expect(AddressPolicy(denyPrivateNetworks: true).refusal(forAddress: address) == nil)
    }

    @Test func garbageIsNotAnAddress() {
        #expect(AddressPolicy().refusal(forAddress: "example.org") == "not an IP address: example.org")
    }

    @Test func userAgentNamesTheVersionAndLibcurlIsLinked() {
        #expect(UserAgent.header(version: "1.2.3") == "aggregatord/1.2.3")
        #expect(UserAgent.libcurlVersion.hasPrefix("libcurl/"))
    }
}

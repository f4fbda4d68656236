import Credentials
import Testing

@Suite struct CredentialsTests {
    @Test func aPasswordHashVerifiesThatPasswordOnly() throws {
        let hash = try PasswordHash.make("correct horse battery")
        #expect(hash.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        #expect(PasswordHash.verify("correct horse battery", against: hash))
        #expect(!PasswordHash.verify("correct horse batter", against: hash))
        #expect(!PasswordHash.verify("", against: hash))
        #expect(try PasswordHash.make("correct horse battery") != hash, "each hash has its own salt")
    }

    @Test func unusualPasswordsAndBrokenHashesAreHandled() throws {
        let withNUL = try PasswordHash.make("abc\u{0}def")
        #expect(PasswordHash.verify("abc\u{0}def", against: withNUL))
        #expect(!PasswordHash.verify("abc", against: withNUL), "a NUL does not end the password")
        #expect(throws: CredentialError.tooLong) { try PasswordHash.make(String(repeating: "x", count: 1025)) }
        #expect(!PasswordHash.verify("x", against: "not a hash"))
        #expect(!PasswordHash.verify("x", against: String(repeating: "$", count: 500)))
    }

    @Test func tokensAreRandomHexAndTheirDigestIsSHA256() {
        let token = SecretToken.generate()
        #expect(token.count == 64 && token.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(SecretToken.generate() != token)
        #expect(SecretToken.digest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func keyedDigestsDependOnTheKeyAndTheSplitOfParts() {
        let digest = KeyedDigest()
        #expect(digest.digest("ab", "c") == digest.digest("ab", "c"))
        #expect(digest.digest("ab", "c") != digest.digest("a", "bc"))
        #expect(KeyedDigest().digest("ab", "c") != digest.digest("ab", "c"))
    }
}

@Suite struct MD5Tests {
    @Test(arguments: [("", "d41d8cd98f00b204e9800998ecf8427e"), ("abc", "900150983cd24fb0d6963f7d28e17f72"),
                      ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
                      (String(repeating: "1234567890", count: 8), "57edf4a22be3c955ac49da2e2107b67a"),
                      ("kevin@example.org:password", "3655d6b5547067b3478bbdc7f7a24ec5")])
    func theRFCVectorsAndAFeverKey(text: String, expected: String) {
        #expect(MD5.hex(text) == expected)
    }
}

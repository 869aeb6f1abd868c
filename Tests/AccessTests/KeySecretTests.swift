import Access
import Foundation
import Testing
import Timeline

/// Tokens are made once, stored only as a salted HMAC, and checked in constant time.
@Suite struct KeySecretTests {
    @Test func aTokenVerifiesAgainstItsKeyAndNothingElse() throws {
        let (token, key) = KeySecret.make(tenant: try #require(TenantID("acme")), role: .writer, name: "app", at: Date())
        #expect(token.hasPrefix("mrd_\(key.id)_"))
        let (id, secret) = try #require(KeySecret.parse(Substring(token)))
        #expect(id == key.id)
        #expect(KeySecret.verifies(secret, key))
        // The secret is not stored: neither the salt nor the hash contains it.
        #expect(!key.hash.isEmpty && Data(key.hash) != Data(secret.utf8) && Data(key.salt) != Data(secret.utf8))
        var flipped = Array(secret)
        flipped[0] = flipped[0] == "A" ? "B" : "A"
        #expect(!KeySecret.verifies(Substring(String(flipped)), key))
        let (_, other) = KeySecret.make(tenant: .default, role: .writer, name: nil, at: Date())
        #expect(!KeySecret.verifies(secret, other))
    }

    @Test func twoKeysNeverShareIdSaltOrSecret() {
        let keys = (0..<200).map { _ in KeySecret.make(tenant: .default, role: .reader, name: nil, at: Date()) }
        #expect(Set(keys.map(\.key.id)).count == 200 && Set(keys.map(\.key.salt)).count == 200 && Set(keys.map(\.token)).count == 200)
    }

    @Test(arguments: ["", "mrd_", "mrd_0123456789abcdef", "mrd_0123456789abcdef_", "mrd_0123456789ABCDEF_x", "mrd_0123_x", "xyz_0123456789abcdef_x",
                      "mrd_0123456789abcdef_" + String(repeating: "a", count: 65)])
    func malformedTokensAreRefusedBeforeAnyLookup(_ token: String) {
        #expect(KeySecret.parse(Substring(token)) == nil)
    }

    @Test func rolesGrantWhatTheContractSays() {
        #expect(Role.reader.grants(.read) && !Role.reader.grants(.writeAnnotations) && !Role.reader.grants(.ingestLocations))
        #expect(Role.writer.grants(.read) && Role.writer.grants(.writeAnnotations) && !Role.writer.grants(.ingestLocations) && !Role.writer.grants(.administer))
        #expect(Role.feed.grants(.ingestLocations) && !Role.feed.grants(.read))
        #expect(Permission.allCases.allSatisfy(Role.admin.grants))
    }

    @Test(arguments: [("default", true), ("acme-2.eu_west", true), ("a", true), ("", false), ("-x", false), ("a b", false), ("é", false),
                      (String(repeating: "a", count: 64), true), (String(repeating: "a", count: 65), false)])
    func tenantNames(_ name: String, _ valid: Bool) {
        #expect((TenantID(name) != nil) == valid)
    }
}

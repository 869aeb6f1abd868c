import Delivery
import DeliveryHTTP
import Testing

/// Outbound webhooks reach public addresses only: every address a host resolves to is checked, the
/// special ranges are refused unless the operator allows them, and only plain http(s) URLs pass.
@Suite struct OutboundGuardTests {
    /// What checking `text` ends in, with the ranges of `allowed` allowed and hosts resolved by
    /// `resolver`: the address to connect to, or the refusal.
    private func outcome(
        _ text: String, allowing allowed: String = "", resolver: HostResolver = .system
    ) async -> Result<IPAddress, WebhookURLError> {
        do throws(WebhookURLError) {
            let url = try WebhookURL(text)
            let policy = AddressPolicy(allowed: CIDR.list(allowed) ?? [])
            return .success(try await OutboundGuard(policy: policy, resolver: resolver).check(url))
        } catch {
            return .failure(error)
        }
    }

    /// The reason of a `.refused` outcome; nil for any other outcome.
    private func refusalReason(_ result: Result<IPAddress, WebhookURLError>) -> String? {
        guard case .failure(.refused(_, _, let reason)) = result else { return nil }
        return reason
    }

    /// The address `text`, failing the test when it is not one.
    private func ip(_ text: String) throws -> IPAddress {
        try #require(IPAddress(text))
    }

    /// A resolver that answers every name with `addresses`, never asking the system.
    private func resolving(to addresses: [String]) -> HostResolver {
        let parsed = addresses.compactMap(IPAddress.init)
        return HostResolver { _ in parsed }
    }

    @Test(arguments: [
        ("http://127.0.0.1/", "loopback"),
        ("http://10.0.0.1/", "private (RFC 1918)"),
        ("http://100.64.0.1/", "shared address space (RFC 6598)"),
        ("http://169.254.169.254/latest/meta-data", "link-local (cloud metadata)"),
        ("http://[::1]/", "loopback"),
        ("http://[::ffff:127.0.0.1]/", "IPv4-mapped loopback"),
        ("http://[64:ff9b::7f00:1]/", "NAT64 loopback"),
        ("http://0.0.0.0/", "unspecified"),
        ("http://localhost:8080/", "loopback"),
        ("http://172.16.5.4", "private (RFC 1918)"),
        ("http://192.168.1.1", "private (RFC 1918)"),
        ("http://[fe80::1]/", "link-local"),
        ("http://[fd00::1]/", "unique local (fc00::/7)"),
        ("http://224.0.0.1/", "multicast"),
        ("http://255.255.255.255/", "broadcast"),
        ("http://[2002:7f00:1::]/", "6to4 loopback"),
        ("http://[::ffff:0:7f00:1]/", "IPv4-translated loopback"),
        ("http://[::ffff:0:a9fe:a9fe]/", "IPv4-translated link-local (cloud metadata)"),
        ("http://[0:0:0:0:ffff:0:10.0.0.1]/", "IPv4-translated private (RFC 1918)"),
    ])
    func internalAddressesAreRefusedWithoutAnAllowlist(_ url: String, _ reason: String) async {
        #expect(refusalReason(await outcome(url)) == reason)
    }

    @Test(arguments: [
        ("file:///etc/passwd", WebhookURLError.unsupportedScheme("file")),
        ("gopher://127.0.0.1:70/", .unsupportedScheme("gopher")),
        ("FTP://example.com/", .unsupportedScheme("ftp")),
        ("http://user:pw@1.1.1.1/", .credentials),
        ("http:///hook", .missingHost),
        ("http://1.1.1.1:0/", .invalidPort),
        ("http://1.1.1.1:65536/", .invalidPort),
        ("http://1.1.1.1:99999999999999999999/", .invalidPort),
        ("http://[::1/", .malformed),
        ("http://[1.1.1.1]/", .malformed),
        ("http://a%00b/", .malformed),
        ("not a url", .malformed),
    ])
    func onlyPlainHTTPURLsToAHostAreAccepted(_ url: String, _ error: WebhookURLError) {
        #expect(throws: error) { try WebhookURL(url) }
    }

    @Test func urlsLongerThan2048CharactersAreRefused() throws {
        let path = String(repeating: "a", count: WebhookURL.maximumLength - "http://1.1.1.1/".count)
        #expect(try WebhookURL("http://1.1.1.1/" + path).port == 80)
        #expect(throws: WebhookURLError.tooLong) { try WebhookURL("http://1.1.1.1/" + path + "a") }
    }

    @Test func urlsKeepTheirHostLowerCasedAndTheirPortOrTheDefault() throws {
        let ipv6 = try WebhookURL("http://[::1]:8080/x")
        #expect(ipv6.scheme == "http" && ipv6.host == "::1" && ipv6.port == 8080 && ipv6.url == "http://[::1]:8080/x")
        let mapped = try WebhookURL("http://[::FFFF:127.0.0.1]/")
        #expect(mapped.host == "::ffff:127.0.0.1" && mapped.port == 80)
        let name = try WebhookURL("HTTPS://Hooks.Example.COM/in")
        #expect(name.scheme == "https" && name.host == "hooks.example.com" && name.port == 443)
    }

    @Test(arguments: [("http://93.184.215.14/hook", "93.184.215.14"), ("https://[2606:4700::1111]/", "2606:4700::1111")])
    func publicLiteralsPassWithTheSystemResolver(_ url: String, _ address: String) async throws {
        let expected = try ip(address)
        #expect(await outcome(url) == .success(expected))
    }

    @Test func allowingLoopbackPermitsItsIPv4AndIPv4MappedAndTranslatedForms() async throws {
        let (loopback, mapped, translated) = (try ip("127.0.0.1"), try ip("::ffff:127.0.0.1"), try ip("::ffff:0:7f00:1"))
        #expect(await outcome("http://127.0.0.1/", allowing: "127.0.0.0/8") == .success(loopback))
        #expect(await outcome("http://[::ffff:127.0.0.1]/", allowing: "127.0.0.0/8") == .success(mapped))
        #expect(await outcome("http://[::ffff:0:7f00:1]/", allowing: "127.0.0.0/8") == .success(translated))
        #expect(refusalReason(await outcome("http://[::1]/", allowing: "127.0.0.0/8")) == "loopback")
        #expect(refusalReason(await outcome("http://10.0.0.1/", allowing: "127.0.0.0/8")) == "private (RFC 1918)")
    }

    @Test func aNameIsAllowedOnlyIfAllItsAddressesAre() async throws {
        let (ipv4, ipv6) = (try ip("127.0.0.1"), try ip("::1"))
        let localhost = resolving(to: ["127.0.0.1", "::1"])
        let refused = await outcome("http://localhost:8080/", allowing: "127.0.0.0/8", resolver: localhost)
        #expect(refused == .failure(.refused(host: "localhost", address: ipv6, reason: "loopback")))
        let allowed = await outcome("http://localhost:8080/", allowing: "127.0.0.0/8, ::1/128", resolver: localhost)
        #expect(allowed == .success(ipv4))
    }

    @Test func aNameWithOnePublicAndOnePrivateAddressIsRefused() async throws {
        let privateAddress = try ip("10.1.2.3")
        let rebinding = resolving(to: ["93.184.215.14", "10.1.2.3", "93.184.215.14"])
        let result = await outcome("https://hooks.example.com/", resolver: rebinding)
        #expect(result == .failure(.refused(host: "hooks.example.com", address: privateAddress, reason: "private (RFC 1918)")))
    }

    @Test func aNameWithoutAddressesIsUnresolvable() async {
        #expect(await outcome("https://nowhere.example/", resolver: resolving(to: [])) == .failure(.unresolvable(host: "nowhere.example")))
    }

    @Test func refusalsExplainThemselves() throws {
        let named = WebhookURLError.refused(host: "localhost", address: try ip("127.0.0.1"), reason: "loopback")
        #expect(named.description == "the host localhost resolves to 127.0.0.1, which is loopback: "
            + "webhooks may not reach it unless the server allows that range (--webhook-allow-cidr)")
        let literal = WebhookURLError.refused(host: "10.0.0.1", address: try ip("10.0.0.1"), reason: "private (RFC 1918)")
        #expect(literal.description.hasPrefix("the address 10.0.0.1 is private (RFC 1918): "))
    }

    @Test(arguments: [
        ("127.0.0.0/8", "127.255.0.1", true), ("127.0.0.0/8", "128.0.0.1", false), ("127.0.0.0/8", "::ffff:127.0.0.1", false),
        ("10.1.2.3/8", "10.200.0.0", true), ("0.0.0.0/0", "8.8.8.8", true), ("0.0.0.0/0", "::", false),
        ("172.16.0.0/12", "172.31.255.255", true), ("172.16.0.0/12", "172.32.0.0", false),
        ("::1/128", "::1", true), ("::1/128", "::2", false), ("::1", "::1", true),
        ("192.0.2.7", "192.0.2.7", true), ("192.0.2.7", "192.0.2.8", false),
        ("fc00::/7", "fd12:3456::1", true), ("fc00::/7", "fe00::1", false), ("fc00::/7", "10.0.0.1", false), ("::/0", "2606:4700::1111", true),
    ])
    func blocksHoldTheAddressesOfTheirPrefix(_ block: String, _ address: String, _ inside: Bool) throws {
        let cidr = try #require(CIDR(block))
        #expect(cidr.contains(try #require(IPAddress(address))) == inside)
    }

    @Test(arguments: ["10.0.0.0/33", "::/129", "abc", "1.2.3/8", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/8/8", "/8", "10.0.0.0/ 8", "[10.0.0.0]/8", ""])
    func malformedBlocksAreRefused(_ text: String) {
        #expect(CIDR(text) == nil)
    }

    @Test func blocksAreNormalisedAndListsParsed() {
        #expect(CIDR("10.1.2.3/8")?.description == "10.0.0.0/8")
        #expect(CIDR("FC00:1::/7")?.description == "fc00::/7")
        #expect(CIDR("::1")?.description == "::1/128" && CIDR("1.2.3.4")?.prefixLength == 32)
        #expect(CIDR.list(" 127.0.0.0/8 , ::1/128 ")?.map(\.description) == ["127.0.0.0/8", "::1/128"])
        #expect(CIDR.list("")?.isEmpty == true && CIDR.list("  ")?.isEmpty == true)
        #expect(CIDR.list("127.0.0.0/8, abc") == nil && CIDR.list("127.0.0.0/8,") == nil)
    }

    @Test(arguments: [
        ("::ffff:127.0.0.1", "127.0.0.1"), ("::7f00:1", "127.0.0.1"), ("64:ff9b::a00:1", "10.0.0.1"), ("2002:c0a8:101::1", "192.168.1.1"),
        ("::ffff:0:7f00:1", "127.0.0.1"), ("::ffff:0:a9fe:a9fe", "169.254.169.254"), ("::ffff:0:8.8.8.8", "8.8.8.8"),
    ])
    func ipv6FormsCarryingAnIPv4AddressExposeIt(_ ipv6: String, _ ipv4: String) {
        #expect(IPAddress(ipv6)?.embeddedIPv4 == IPAddress(ipv4))
    }

    @Test func literalsParseInTheirStandardFormsOnly() {
        #expect(IPAddress("[::1]")?.description == "::1" && IPAddress("2001:DB8:0:0::1")?.description == "2001:db8::1")
        #expect(IPAddress("127.1") == nil && IPAddress("[1.2.3.4]") == nil && IPAddress("localhost") == nil && IPAddress("::") != nil)
        #expect(IPAddress("::")?.embeddedIPv4 == nil && IPAddress("::1")?.embeddedIPv4 == nil && IPAddress("8.8.8.8")?.embeddedIPv4 == nil)
    }
}

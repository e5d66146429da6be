import AuthCore
import AuthRuntime
import AuthVerification
import Foundation
import Testing

@testable import AuthflowKit

@Suite("Fixtures: every documented request and response")
struct FixtureTests {
    /// When every fixture answer is received (only Retry-After dates depend on it).
    static let receivedAt = ContractConformance.receivedAt

    @Test("the fixture library loads, and every backend has request and response fixtures")
    func libraryLoads() throws {
        let all = try FixtureLibrary.load()
        for backend in Backend.documented {
            #expect(all.contains { $0.backend == backend && $0.isRequest }, "\(backend) has no request fixture")
            #expect(all.contains { $0.backend == backend && !$0.isRequest }, "\(backend) has no response fixture")
        }
        #expect(FixtureLibrary.all.count == all.count)
    }

    @Test("every file in a backend's folder is listed in its sidecar, and every listed file exists", arguments: Backend.documented)
    func sidecarMatchesFolder(_ backend: Backend) throws {
        let listed = try FixtureLibrary.sidecar(backend).fixtures.map(\.file)
        #expect(Set(listed).count == listed.count, "a file is listed twice")
        #expect(Set(try FixtureLibrary.files(backend)) == Set(listed))
    }

    @Test(
        "fixture names read <endpoint>.<request|response>[.<status>][.<variant>].json, responses with their status",
        arguments: FixtureLibrary.all)
    func namesFollowThePattern(_ fixture: FixtureCase) throws {
        let parts = fixture.entry.file.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        #expect(parts.last == "json")
        #expect(parts.count >= 3 && parts.count <= 5)
        let endpoint = parts[0]
        #expect(!endpoint.isEmpty && endpoint.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" })
        if fixture.isRequest {
            #expect(parts[1] == "request")
            #expect(fixture.entry.http != nil && fixture.entry.request != nil && fixture.entry.expect == nil)
        } else {
            #expect(parts[1] == "response")
            let status = try fixture.status()
            #expect((100...599).contains(status))
            #expect(fixture.entry.expect != nil && fixture.entry.http == nil)
        }
    }

    @Test("every documented request encodes to its fixture: method, path, query, headers and JSON body", arguments: FixtureLibrary.requests)
    func requestEncodesToItsFixture(_ fixture: FixtureCase) throws {
        #expect(try ContractConformance.requestProblems(try fixture.contract(), fixture) == [])
    }

    @Test(
        "every documented response decodes to the reply its sidecar expects, and damaged copies of it read as malformed",
        arguments: FixtureLibrary.responses)
    func responseDecodesToTheExpectedReply(_ fixture: FixtureCase) throws {
        var random = SplitMix64(seed: 7)
        let (problems, _) = try ContractConformance.answerProblems(try fixture.contract(), fixture, random: &random)
        #expect(problems == [])
    }

    @Test("every response fixture's failure shows a user message without a secret from its request", arguments: FixtureLibrary.responses)
    func failureMessagesCarryNoSecret(_ fixture: FixtureCase) throws {
        let request = try fixture.apiRequest()
        let reply = try fixture.contract().decode(try fixture.response(), for: request, receivedAt: Self.receivedAt)
        guard case .failed(let failure) = reply else { return }
        for secret in Secrets.revealed(in: request) {
            #expect(!failure.userMessage.contains(secret))
            #expect(!failure.description.contains(secret))
        }
        #expect(!failure.userMessage.isEmpty)
    }
}

/// The secrets a request carries, as text.
enum Secrets {
    static func revealed(in request: APIRequest) -> [String] {
        switch request {
        case .sendEmailCode, .sendPhoneCode, .requestPasswordReset, .oauthURL: []
        case .registerWithEmailCode(_, let code), .signInWithEmailCode(_, let code), .signInWithPhoneCode(_, let code):
            [code.secret.reveal()]
        case .signIn(_, let password): [password.secret.reveal()]
        case .register(let details): [details.password.secret.reveal()]
        case .resetPassword(.emailCode(_, let code), let password): [code.secret.reveal(), password.secret.reveal()]
        case .resetPassword(.token(let proof), let password): [proof.secret.reveal(), password.secret.reveal()]
        case .setPassword(let password, let bearer): [password.secret.reveal(), bearer.token.reveal()]
        case .changePassword(let old, let new, let bearer): [old.secret.reveal(), new.secret.reveal(), bearer.token.reveal()]
        case .refresh(let token): [token.reveal()]
        case .currentUser(let bearer), .deleteAccount(let bearer), .protected(_, let bearer): [bearer.token.reveal()]
        case .revoke(let token, let bearer): [token.reveal(), bearer.token.reveal()]
        case .openRealtime(let token): [token.reveal()]
        case .signInNatively(let details): [details.identityToken.reveal()] + (details.authorizationCode.map { [$0.reveal()] } ?? [])
        case .exchangeCode(let exchange): [exchange.code.reveal(), exchange.verifier.reveal()]
        case .requestDeviceCode: []
        case .pollDeviceToken(let code): [code.reveal()]
        }
    }
}

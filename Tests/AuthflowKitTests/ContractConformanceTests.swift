import AuthCore
import AuthRuntime
import AuthTestSupport
import AuthVerification
import Foundation
import Testing

@testable import AuthflowKit

/// `authflow verify` checks every shipped contract against the fixture library, so a contract
/// that misreads an answer fails the same command as a broken reducer: each kind of broken
/// contract below is caught, by the check that is meant to catch it.
@Suite("Contracts checked by verify")
struct ContractConformanceTests {
    static let fixtures = (try? ContractFixtures.load(at: Checkout.fixtures)) ?? []

    /// A shipped contract with one mapping broken.
    struct Broken: BackendContract {
        var base: any BackendContract
        var encoding: @Sendable (HTTPRequest) -> HTTPRequest = { $0 }
        var reading: @Sendable (Reply) -> Reply = { $0 }

        var backend: Backend { base.backend }
        var baseURL: URL { base.baseURL }
        func encode(_ request: APIRequest) throws(ContractError) -> HTTPRequest { encoding(try base.encode(request)) }
        func decode(_ response: HTTPResponse, for request: APIRequest, receivedAt: Instant) -> Reply {
            reading(base.decode(response, for: request, receivedAt: receivedAt))
        }
    }

    static func shipped(_ backend: Backend) throws -> any BackendContract {
        try #require(BackendContracts.documented.first { $0.backend == backend })
    }

    @Test("every shipped contract keeps every fixture and reads every damaged answer as malformed")
    func shippedContractsConform() throws {
        let reports = try ContractConformance.checkShipped(fixturesAt: Checkout.fixtures)
        #expect(reports.map(\.backend) == Backend.documented)
        for report in reports {
            #expect(report.passed, "\(report.problems)")
            #expect(report.requests > 0 && report.responses > 0 && report.damagedBodies > report.responses, "\(report)")
        }
    }

    @Test("a contract that reads Everday's wrong current password as an expired token is caught by the fixture of that answer")
    func misreadAnswerCaught() throws {
        let broken = Broken(
            base: try Self.shipped(.everday),
            reading: { reply in
                guard case .failed(.incorrectPassword(let message)) = reply else { return reply }
                return .failed(.unauthorized(message))
            })
        let report = ContractConformance.check(broken, against: Self.fixtures)
        #expect(!report.passed)
        #expect(report.problems.contains { $0.hasPrefix("everday/auth-change-password.response.401.deployed.json: reads as") }, "\(report.problems)")
        #expect(report.problems.allSatisfy { $0.contains("reads as") && !$0.contains("answer cut") }, "only that fixture's reading")
    }

    @Test("a contract that takes an answer it cannot read for a success passes every fixture and is caught by the damaged answers")
    func lenientReadingCaught() throws {
        let broken = Broken(base: try Self.shipped(.subspace), reading: { $0 == .failed(.malformed) ? .accepted(nil) : $0 })
        let report = ContractConformance.check(broken, against: Self.fixtures)
        #expect(!report.passed)
        #expect(report.problems.contains { $0.contains("a success answer") && $0.contains("reads as") }, "\(report.problems)")
        #expect(!report.problems.contains { $0.contains("not as {") || $0.hasSuffix(".json: reads as") }, "no fixture itself is misread")
        // The fixtures alone pass it: only the damaged answers tell.
        let plain = Self.fixtures.filter { $0.backend == .subspace && !$0.isRequest }
        for fixture in plain {
            let reply = broken.decode(try fixture.response(), for: try fixture.apiRequest(), receivedAt: ContractConformance.receivedAt)
            #expect(reply == (try fixture.expectedReply()), "\(fixture.name)")
        }
    }

    @Test("a contract that drops a documented header or adds one is caught, named by the header, its value never shown")
    func headersCaught() throws {
        let dropping = Broken(
            base: try Self.shipped(.everday),
            encoding: { request in
                var changed = request
                changed.headers["Content-Type"] = nil
                changed.headers["X-Echo"] = request.headers["Authorization"]
                return changed
            })
        let report = ContractConformance.check(dropping, against: Self.fixtures)
        #expect(report.problems.contains { $0.contains("does not send header content-type") }, "\(report.problems)")
        #expect(report.problems.contains { $0.contains("sends an undocumented header x-echo") }, "\(report.problems)")
        // The bearer the change-password fixture carries, and its password, never appear.
        let fixture = try #require(Self.fixtures.first { $0.name == "everday/auth-change-password.request.deployed.json" })
        let sent = try dropping.encode(try fixture.apiRequest())
        let bearer = try #require(sent.headers["X-Echo"])
        #expect(!report.problems.contains { $0.contains(bearer) || $0.contains(bearer.dropFirst("Bearer ".count)) })
        let body = String(decoding: try #require(sent.body), as: UTF8.self)
        #expect(body.contains("NewPassword"), "the fixture carries a password")
        #expect(!report.problems.contains { $0.contains("\"") }, "no body value quoted")
    }

    @Test("verify prints a row per contract and fails when one is broken or the fixture library is missing")
    func verifyChecksContracts() throws {
        let run = CommandRun(["verify", "--runs", "1", "--length", "10"], models: [AnyModel(Models.passwordSignIn())])
        #expect(run.status == 0, "\(run.text)")
        #expect(run.text.contains("contract       requests  answers  damaged answers  result"), "\(run.text)")
        #expect(run.out.last?.contains("1 models, ") == true && run.out.last?.contains("; 5 contracts, 152 fixtures; in ") == true, "\(run.text)")
        let missing = CommandRun(
            ["verify", "--runs", "1", "--length", "10"], models: [AnyModel(Models.passwordSignIn())],
            fixtures: URL(fileURLWithPath: "/nonexistent/Fixtures"))
        #expect(missing.status == 1)
        #expect(
            missing.text.contains("✗ contracts not checked: everday") || missing.text.contains("✗ contracts not checked: anonymousWall"),
            "\(missing.text)")
    }
}

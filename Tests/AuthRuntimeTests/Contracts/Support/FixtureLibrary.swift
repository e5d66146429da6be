import AuthCore
import AuthRuntime
import AuthTestSupport
import AuthflowKit
import Foundation
import Testing

/// The one way tests read `Fixtures/`: the library `authflow verify` checks every contract
/// against (``ContractFixtures``), each fixture a test argument.
enum FixtureLibrary {
    /// `Fixtures/` at the package root.
    static let root = Checkout.fixtures

    /// The sidecar's name in each backend folder.
    static let sidecarName = ContractFixtures.sidecarName

    /// Every fixture of every backend, or an empty list when the library cannot be read (the test
    /// "the fixture library loads…" then says why).
    static let all: [FixtureCase] = (try? load()) ?? []
    /// Every request fixture.
    static var requests: [FixtureCase] { all.filter(\.isRequest) }
    /// Every response fixture.
    static var responses: [FixtureCase] { all.filter { !$0.isRequest } }

    /// Reads every backend's sidecar and pairs each entry with its file.
    static func load() throws -> [FixtureCase] { try ContractFixtures.load(at: root) }

    /// One backend's sidecar.
    static func sidecar(_ backend: Backend) throws -> FixtureSidecar { try ContractFixtures.sidecar(backend, at: root) }

    /// The fixture file names in one backend's folder: the sidecar and the summary excluded.
    static func files(_ backend: Backend) throws -> [String] { try ContractFixtures.files(backend, at: root) }

    /// The fixture `file` of `backend`.
    static func fixture(_ backend: Backend, _ file: String) throws -> FixtureCase {
        guard let found = all.first(where: { $0.backend == backend && $0.entry.file == file }) else {
            throw ContractFixtures.Problem("no fixture \(backend)/\(file)")
        }
        return found
    }
}

/// One fixture file as a test argument.
typealias FixtureCase = ContractFixture

extension ContractFixture: CustomTestStringConvertible {
    public var testDescription: String { name }
}

/// A JSON value read by Foundation's `JSONDecoder`, for comparing bodies as values.
typealias TestJSON = FixtureJSON

extension Reply {
    /// The reply with its user's attributes left out: what a server stamps on a user (creation
    /// dates, flags) is checked by the fixtures, not by comparisons with a live server.
    var withoutUserAttributes: Reply {
        switch self {
        case .user(var user):
            user.attributes = [:]
            return .user(user)
        case .granted(var grant):
            grant.user.attributes = [:]
            return .granted(grant)
        case .refreshed(var tokens):
            tokens.user?.attributes = [:]
            return .refreshed(tokens)
        case .accepted, .pendingApproval, .verificationRequired, .authorizationURL, .nativeSignInRequired, .device, .realtimeOpened,
            .realtimeClosed, .failed:
            return self
        }
    }
}

import AuthCore
@testable import AuthDiagrams
import AuthRuntime
import AuthTestSupport
import AuthVerification
@testable import AuthflowKit
import Foundation
import ReferenceBackend
import Testing

/// Each module that knows something of every documented backend registers it once; these lists
/// must all be `Backend.documented`, so a backend registered in one and missing from another fails here.
@Suite("Backend registry")
struct BackendRegistryTests {
    static let ids = Backend.documented.map(\.id)

    @Test("the documented backends have distinct ids and names")
    func distinct() {
        #expect(Set(Self.ids).count == Backend.documented.count)
        #expect(Set(Backend.documented.map(\.name)).count == Backend.documented.count)
    }

    @Test("the command line serves, tours and probes exactly the documented backends, in order, then OpenID Connect")
    func commandLine() {
        #expect(ShippedBackend.all.map(\.backend.id) == Self.ids + [Backend.openIDConnect.id])
        #expect(ShippedBackend.named("oidc")?.backend == .openIDConnect)
    }

    @Test("the runtime has exactly one contract per documented backend, in order, each naming its backend")
    func contracts() {
        #expect(BackendContracts.backends.map(\.id) == Self.ids)
        #expect(BackendContracts.documented.map(\.backend.id) == Self.ids)
    }

    @Test("the verification kit has an app model and a session model per documented backend, in order")
    func models() {
        #expect(Models.apps.map(\.name) == Self.ids.map { "app.\($0)" })
        #expect(Models.SessionBackend.allCases.map(\.backend.id) == Self.ids)
    }

    @Test("the diagrams draw a composition, each lifecycle and the documented flows of every documented backend")
    func diagrams() {
        #expect(DiagramCatalogue.backends.map(\.id) == Self.ids)
        #expect(Set(DiagramCatalogue.bounds.keys) == Set(Self.ids.map { "app.\($0)" }))
        #expect(Set(DocumentedFlows.all.map(\.backend.id)) == Set(Self.ids))
        for backend in Backend.documented {
            let drawn = DiagramCatalogue.usage.values.filter { $0.backends.contains(backend) }.flatMap(\.draws)
            #expect(Set(drawn) == Set(backend.lifecycles), "the diagrams draw \(drawn) for \(backend)")
        }
    }

    @Test("every documented backend has its API summary under Fixtures/<id>/")
    func fixtures() {
        for id in Self.ids {
            let summary = Checkout.root.appendingPathComponent("Fixtures/\(id)/README.md")
            #expect(FileManager.default.fileExists(atPath: summary.path), "\(id) has no API summary")
        }
    }

    @Test("the reference backend serves every documented backend under the same name, then OpenID Connect")
    func reference() {
        #expect(ServedBackend.allCases.map(\.rawValue) == Self.ids + [Backend.openIDConnect.id])
    }

    @Test("a backend of one's own is named by its name, and equal to another only by id")
    func ownBackend() {
        let mine = Backend("My API")
        #expect(mine.id == "My API")
        #expect(mine.description == "My API")
        #expect(mine.lifecycles.isEmpty)
        #expect(mine != .everday)
        #expect(Backend(id: "everday", name: "Everday (staging)") == .everday)
        #expect(!Backend.documented.contains(mine))
        #expect(BackendContracts.contract(for: mine, server: .init(fileURLWithPath: "/")) == nil)
        #expect(DiagramCatalogue.appMachine(mine) == nil)
    }
}

import AuthCore
import AuthDiagrams
import AuthVerification
import Testing

@Suite("Catalogue and flow coverage", .timeLimit(.minutes(15)))
struct CatalogueTests {
    @Test("every lifecycle model of the verification kit has a diagram, with the backends that use it")
    func everyModelHasADiagram() {
        let catalogue = DiagramCatalogue.standard
        #expect(catalogue.lifecycles.map(\.name) == Models.lifecycles.map(\.name))
        for entry in catalogue.lifecycles {
            #expect(!entry.backends.isEmpty, "\(entry.name) names no backend")
            #expect(!entry.draws.isEmpty, "\(entry.name) draws no declared lifecycle")
        }
        #expect(catalogue.compositions.map(\.backend) == Backend.documented)
        #expect(catalogue.compositions.map(\.name) == Models.apps.map(\.name))
    }

    @Test("the catalogue agrees with AuthCore: every lifecycle a backend declares is drawn for it, and nothing else", arguments: Backend.documented)
    func catalogueAgreesWithBackends(_ backend: Backend) {
        let drawn = DiagramCatalogue.standard.lifecycles.filter { $0.backends.contains(backend) }.flatMap(\.draws)
        #expect(Set(drawn) == Set(backend.lifecycles), "\(backend): drawn \(Set(drawn)), declared \(Set(backend.lifecycles))")
    }

    @Test("the app machines' entry flows are found by reflection, in position order")
    func entryPositions() {
        let entries = EntryPosition.of(Apps.anonymousWall())
        #expect(entries.map(\.typeName) == ["CodeRegistration", "PasswordSignIn", "OneTimeCodeSignIn", "PasswordReset"])
        #expect(entries.map { $0.path.joined(separator: ".") } == ["first", "second.first", "second.second.first", "second.second.second"])
        #expect(entries.map(\.initialCase) == ["enteringEmail", "enteringCredentials", "enteringDestination", "enteringIdentifier"])
        #expect(EntryPosition.of(Apps.hero365()).count == 5)
        #expect(CompositionGraph.state(of: "signedOut.second.second.first.verifying", entries: entries) == "OneTimeCodeSignIn")
        #expect(CompositionGraph.state(of: "signedOut.second.first.enteringCredentials", entries: entries) == "signedOut")
        #expect(CompositionGraph.state(of: "signedIn.(active.idle + connected)", entries: []) == "signedIn.active.idle")
    }

    @Test("an app step projects onto the lifecycle it belongs to, and onto no other")
    func projection() {
        let entries = EntryPosition.of(Apps.anonymousWall())
        let registered = AppStep(
            from: "signedOut.first.registering", label: "granted", to: "signedIn.passwordSetupRequired", kind: .success, reachesSession: false)
        let codeRegistration = DiagramCatalogue.Subject.entry(phaseType: DiagramCatalogue.phaseType(CodeRegistration.Phase.self))
        let session = DiagramCatalogue.Subject.session(entryPhaseType: DiagramCatalogue.phaseType(PasswordSignIn.Phase.self))
        #expect(
            registered.projected(onto: codeRegistration, initialCase: "enteringEmail", finals: ["registered"], entries: entries)
                == StateGraph.Edge(from: "registering", label: "granted", to: "registered", kind: .success))
        #expect(registered.projected(onto: session, initialCase: "signedOut.enteringCredentials", finals: [], entries: entries) == nil)
        let switched = AppStep(
            from: "signedOut.first.awaitingCode", label: "submit", to: "signedOut.second.first.signingIn", kind: .intent, reachesSession: false)
        let signIn = DiagramCatalogue.Subject.entry(phaseType: DiagramCatalogue.phaseType(PasswordSignIn.Phase.self))
        #expect(
            switched.projected(onto: signIn, initialCase: "enteringCredentials", finals: ["signedIn"], entries: entries)
                == StateGraph.Edge(from: "enteringCredentials", label: "submit", to: "signingIn", kind: .intent))
        #expect(switched.projected(onto: codeRegistration, initialCase: "enteringEmail", finals: ["registered"], entries: entries) == nil)
        let logout = AppStep(from: "signedIn.active", label: "logout", to: "signedOut.first.enteringEmail", kind: .intent, reachesSession: true)
        #expect(
            logout.projected(onto: session, initialCase: "signedOut.enteringCredentials", finals: [], entries: entries)
                == StateGraph.Edge(from: "signedIn.active", label: "logout", to: "signedOut.enteringCredentials", kind: .intent))
        #expect(CompositionGraph.edge(from: switched.from, label: switched.label, to: switched.to, kind: .intent, entries: entries) == nil)
    }

    @Test(
        "every edge a documented flow takes is drawn in its diagram, for every diagram explored to closure",
        arguments: Committed.diagramNames.filter { DiagramCatalogue.bounds[$0] == nil })
    func flowEdgesAreDrawn(_ name: String) async throws {
        let generated = await Committed.generated
        let diagram = try #require(generated.diagram(named: name))
        #expect(diagram.graph.complete)
        let missing = diagram.flowEdges.keys.filter { !diagram.graph.edges.contains($0) }
        #expect(missing.isEmpty, "\(missing.map { "\($0.from) --\($0.label)--> \($0.to) (\(diagram.flowEdges[$0] ?? []))" })")
    }

    @Test("every backend's documented flows take edges of its composition and of every entry lifecycle they use", arguments: Backend.documented)
    func flowsCoverEachBackend(_ backend: Backend) async throws {
        let generated = await Committed.generated
        let composition = try #require(generated.diagrams.first { $0.kind == .composition && $0.backends == [backend] })
        #expect(!composition.graph.coverage.isEmpty)
        #expect(generated.flows.contains { $0.backend == backend })
    }
}

import AuthDiagrams
import AuthVerification
import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite("Formats", .timeLimit(.minutes(15)))
struct FormatTests {
    @Test(
        "Mermaid: every id is valid for GitHub's renderer, declared once, and every transition uses declared ids", arguments: Committed.diagramNames)
    func mermaidIDs(_ name: String) async throws {
        let generated = await Committed.generated
        let diagram = try #require(generated.diagram(named: name))
        let text = Mermaid.render(diagram.graph, header: diagram.header)
        var declared: [String] = []
        var used: [String] = []
        var lines = text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("%%") }
        #expect(lines.removeFirst() == "stateDiagram-v2")
        // The legend: one note, last, by the initial state, whose lines need the same escaping as labels.
        let note = try #require(lines.firstIndex { $0.hasPrefix("    note right of ") }, "no legend")
        #expect(lines.last == "    end note")
        #expect(lines[note] == "    note right of \(Identifiers(diagram.graph.states)[diagram.graph.initial])")
        for line in lines[(note + 1)..<(lines.count - 1)] { #expect(!line.contains(where: { ":;#%{}<>\"".contains($0) }), "\(line)") }
        lines.removeSubrange(note...)
        for line in lines.map({ $0.trimmingCharacters(in: .whitespaces) }) where line != "direction LR" {
            if line.hasPrefix("state \"") {
                let parts = line.components(separatedBy: "\" as ")
                #expect(parts.count == 2, "\(line)")
                declared.append(parts.last ?? "")
                #expect(!parts[0].dropFirst("state \"".count).contains("\""), "\(line)")
            } else {
                let arrow = line.components(separatedBy: " --> ")
                #expect(arrow.count == 2, "not a transition: \(line)")
                let target = arrow.last?.components(separatedBy: " : ") ?? []
                used += [arrow[0], target[0]]
                if target.count == 2 {
                    #expect(!target[1].contains(where: { ":;#%{}<>\"".contains($0) }), "\(line)")
                }
            }
        }
        #expect(Set(declared).count == declared.count, "an id is declared twice")
        for id in declared { #expect(Identifiers.isValid(id), "invalid id \(id)") }
        for id in used where id != "[*]" { #expect(declared.contains(id), "undeclared id \(id)") }
    }

    @Test("Identifiers: case paths become readable, unique, valid ids; reserved words and leading digits are avoided")
    func identifiers() {
        let ids = Identifiers(["signedIn.(active + connected)", "signedIn.active.connected", "end", "2fa", "a-b:c d"])
        #expect(ids["signedIn.(active + connected)"] == "signedIn_active_connected")
        #expect(ids["signedIn.active.connected"] == "signedIn_active_connected_2")
        #expect(ids["end"] == "end_2")
        #expect(ids["2fa"] == "s_2fa")
        #expect(ids["a-b:c d"] == "a_b_c_d")
        for path in ["signedIn.(active + connected)", "signedIn.active.connected", "end", "2fa", "a-b:c d"] {
            #expect(Identifiers.isValid(ids[path]))
        }
        #expect(!Identifiers.isValid("signedIn.active"))
        #expect(!Identifiers.isValid("a-b"))
        #expect(!Identifiers.isValid("state"))
    }

    @Test(
        "every SCXML file parses as XML in the SCXML namespace, with its initial state, finals and one transition per edge",
        arguments: Committed.diagramNames)
    func scxmlParses(_ name: String) async throws {
        let generated = await Committed.generated
        let diagram = try #require(generated.diagram(named: name))
        let text = SCXML.render(diagram.graph, header: diagram.header)
        let reader = SCXMLReader()
        let parser = XMLParser(data: Data(text.utf8))
        parser.shouldProcessNamespaces = true
        parser.delegate = reader
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(reader.rootNamespace == SCXML.namespace)
        #expect(reader.version == "1.0")
        let ids = Identifiers(diagram.graph.states)
        #expect(reader.initial == ids[diagram.graph.initial])
        #expect(Set(reader.states).count == diagram.graph.states.count)
        #expect(reader.transitions.count == diagram.graph.edges.count)
        for target in reader.transitions.map(\.target) { #expect(reader.states.contains(target), "unknown target \(target)") }
        #expect(reader.states.contains(reader.initial ?? ""))
        let finalsWithoutExits = diagram.graph.finals.filter { final in !diagram.graph.edges.contains { $0.from == final } }
        #expect(Set(reader.finals) == Set(finalsWithoutExits.map { ids[$0] }))
    }

    @Test("SCXML escapes what XML needs escaped and names events in dotted form")
    func scxmlEscapingAndEvents() throws {
        #expect(SCXML.escape(#"a<b>&"c'"#) == "a&lt;b&gt;&amp;&quot;c&apos;")
        #expect(SCXML.eventName("failed(network)") == "failed.network")
        #expect(SCXML.eventName("launched(stored)") == "launched.stored")
        #expect(SCXML.eventName("submitEmail") == "submitEmail")
        let graph = StateGraph(
            name: "odd <name> & \"quotes\"", title: "t", initial: "a&b", finals: ["c"],
            edges: [StateGraph.Edge(from: "a&b", label: "x<y", to: "c", kind: .intent)], exploredStates: 2, exploredTransitions: 1, complete: true)
        let reader = SCXMLReader()
        let parser = XMLParser(data: Data(SCXML.render(graph, header: ["a -- comment with -- dashes"]).utf8))
        parser.shouldProcessNamespaces = true
        parser.delegate = reader
        #expect(parser.parse())
        #expect(reader.name == "odd <name> & \"quotes\"")
        #expect(reader.transitions.map(\.event) == ["x_y"])
    }

    @Test("DOT is deterministic: nodes and edges sorted, the same graph always the same text")
    func dotDeterministic() throws {
        let edges = [
            StateGraph.Edge(from: "b", label: "go", to: "a", kind: .intent),
            StateGraph.Edge(from: "a", label: "failed(network)", to: "b", kind: .failure),
            StateGraph.Edge(from: "a", label: "failed(timeout)", to: "b", kind: .failure),
            StateGraph.Edge(from: "a", label: "tick", to: "a", kind: .timer),
        ]
        let forward = StateGraph(
            name: "g", title: "g", initial: "a", finals: [], edges: edges, exploredStates: 2, exploredTransitions: 4, complete: true)
        let backward = StateGraph(
            name: "g", title: "g", initial: "a", finals: [], edges: edges.reversed(), exploredStates: 2, exploredTransitions: 4, complete: true)
        let text = Graphviz.render(forward)
        #expect(text == Graphviz.render(backward))
        let body = text.split(separator: "\n").map(String.init)
        let nodes = body.filter { $0.hasPrefix("    a [") || $0.hasPrefix("    b [") }
        #expect(nodes == ["    a [label=\"a\"];", "    b [label=\"b\"];"])
        #expect(body.contains(##"    a -> b [label="failed(network, timeout)", color="#c62828", fontcolor="#c62828", style=dashed];"##))
        #expect(!body.contains { $0.contains("a -> a") }, "self-loops are not drawn")
        #expect(forward.internalEvents == ["a": ["tick"]])
        #expect(Graphviz.quoted("say \"hi\"\\") == #""say \"hi\"\\""#)
    }

    @Test("edges of one kind between two cases merge; labels of one case are written once; failures are marked")
    func mergedLabels() {
        let graph = StateGraph(
            name: "g", title: "g", initial: "a", finals: ["c"],
            edges: [
                .init(from: "a", label: "failed(network)", to: "b", kind: .failure),
                .init(from: "a", label: "failed(timeout)", to: "b", kind: .failure),
                .init(from: "a", label: "submit", to: "b", kind: .intent), .init(from: "b", label: "granted", to: "c", kind: .success),
            ],
            exploredStates: 3, exploredTransitions: 4, complete: true)
        #expect(graph.mergedEdges.map(\.text) == ["✗ failed(network, timeout)", "submit", "granted"])
        let mermaid = Mermaid.render(graph)
        #expect(mermaid.contains("    [*] --> a\n"))
        #expect(mermaid.contains("    c --> [*]\n"))
        #expect(mermaid.contains("direction LR"))
    }

    @Test(
        "a failure list of three or more on two arrows or more is named once in the legend and the arrows carry its name; a list on one arrow, or a short one, stays"
    )
    func sharedFailures() throws {
        let long = ["failed(network)", "failed(server)", "failed(timeout)"]
        var edges: [StateGraph.Edge] = []
        for target in ["b", "c"] { edges += long.map { .init(from: "a", label: $0, to: target, kind: .failure) } }
        edges += long.map { .init(from: "b", label: $0, to: "c", kind: .failure) }.dropLast()  // Two: stays on its arrow.
        edges += [
            .init(from: "c", label: "failed(network)", to: "d", kind: .failure), .init(from: "c", label: "failed(conflict)", to: "d", kind: .failure),
            .init(from: "c", label: "failed(server)", to: "d", kind: .failure),
        ]  // Another list of three, on one arrow: stays.
        edges.append(.init(from: "a", label: "go", to: "d", kind: .intent))
        let graph = StateGraph(
            name: "g", title: "g", initial: "a", finals: [], edges: edges, exploredStates: 4, exploredTransitions: 10, complete: true)
        #expect(graph.sharedFailures == [SharedFailures(name: "F1", failures: ["network", "server", "timeout"])])
        let shared = graph.sharedFailures
        #expect(
            graph.mergedEdges.map { graph.drawnText($0, shared: shared) } == [
                "✗ failed(F1)", "✗ failed(F1)", "go", "✗ failed(network, server)", "✗ failed(conflict, network, server)",
            ])
        let mermaid = Mermaid.render(graph)
        #expect(mermaid.contains("    a --> b : ✗ failed(F1)\n"))
        #expect(mermaid.contains("        F1 = network, server, timeout\n    end note\n"))
        let dot = Graphviz.render(graph)
        #expect(dot.contains(##"    a -> b [label="failed(F1)", color="#c62828", fontcolor="#c62828", style=dashed];"##))
        #expect(dot.contains(#"label="F1 = network, server, timeout\l""#))
        // SCXML keeps every event: it is read by tools, not people.
        #expect(SCXML.render(graph).contains("failed.timeout"))
    }

    @Test("every DOT diagram carries a legend box with an arrow of each style", arguments: Committed.diagramNames)
    func dotLegend(_ name: String) async throws {
        let generated = await Committed.generated
        let diagram = try #require(generated.diagram(named: name))
        let text = Graphviz.render(diagram.graph, header: diagram.header)
        #expect(text.contains("    subgraph cluster_legend {"))
        for (label, style) in [
            ("user intent or server answer", "]"), ("failed answer", #"style=dashed]"#), ("timer", "style=dotted]"),
            ("app launch", ##"color="#1565c0""##), ("documented flow", "penwidth=2.2]"),
        ] {
            #expect(text.split(separator: "\n").contains { $0.contains("label=\"\(label)\"") && $0.contains(style) }, "\(name) lacks \(label)")
        }
        for shared in diagram.graph.sharedFailures { #expect(text.contains(shared.name + " = ")) }
    }

    @Test("a relaunch is drawn once, from the initial case, when it lands where a launch from there does or back at the start")
    func launchesFold() {
        let graph = StateGraph(
            name: "g", title: "g", initial: "out", finals: [],
            edges: [
                .init(from: "out", label: "launched(stored)", to: "in", kind: .launch),
                .init(from: "in", label: "launched(stored)", to: "in", kind: .launch),
                .init(from: "busy", label: "launched(stored)", to: "in", kind: .launch),
                .init(from: "busy", label: "launched(empty)", to: "out", kind: .launch),
                .init(from: "busy", label: "launched(unreadable)", to: "in", kind: .launch),
                .init(from: "out", label: "go", to: "busy", kind: .intent),
            ],
            exploredStates: 3, exploredTransitions: 5, complete: true)
        #expect(graph.edges.map { "\($0.from)>\($0.to)" } == ["busy>in", "out>busy", "out>in"])
        #expect(graph.foldedLaunches == 3)
    }
}

/// Collects what the SCXML tests check.
final class SCXMLReader: NSObject, XMLParserDelegate {
    var rootNamespace: String?
    var version: String?
    var initial: String?
    var name: String?
    var states: [String] = []
    var finals: [String] = []
    var transitions: [(event: String, target: String)] = []

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        switch elementName {
        case "scxml":
            rootNamespace = namespaceURI
            version = attributes["version"]
            initial = attributes["initial"]
            name = attributes["name"]
        case "state":
            states.append(attributes["id"] ?? "")
        case "final":
            states.append(attributes["id"] ?? "")
            finals.append(attributes["id"] ?? "")
        case "transition":
            transitions.append((attributes["event"] ?? "", attributes["target"] ?? ""))
        default:
            break
        }
    }
}

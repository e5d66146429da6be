import AuthDiagrams
import AuthSupport
import AuthVerification
import Foundation

extension Authflow {
    /// `authflow verify --diagrams`: whether every drawn lifecycle diagram (at its model's own
    /// bounds) holds every state and edge of `reports`, the explorations verify has just made — at
    /// 4 in flight / 2 left over, so the lifecycles are explored once, not once for verify and
    /// again for `diagrams --check --full-bounds`. 0 when nothing is missing.
    static func drawnDiagramsMissNothing(of reports: [ExplorationReport], out: (String) -> Void, err: (String) -> Void) -> Int32 {
        let bounds = Set(reports.map { "\($0.bounds.inFlight) in flight / \($0.bounds.stale) left over" }).sorted().joined(separator: ", ")
        return report(DiagramSet.standard().missing(comparedTo: reports), against: bounds, out: out, err: err)
    }

    /// Prints what each drawn diagram lacks of explorations at `bounds`; 1 when one lacks anything.
    private static func report(
        _ missing: [(diagram: String, missing: [String])], against bounds: String, out: (String) -> Void, err: (String) -> Void
    )
        -> Int32
    {
        guard missing.isEmpty else {
            for (diagram, lacks) in missing {
                err("\(diagram), drawn at its model's own bounds, lacks what \(bounds) reach:")
                lacks.forEach { err("  \($0)") }
            }
            err("raise that model's bounds (its LifecycleModel) until its diagram misses nothing")
            return 1
        }
        out("✓ drawn at each model's own bounds, no lifecycle diagram misses a state or an edge of \(bounds)")
        return 0
    }

    /// `authflow diagrams [--output DIR] [--format mermaid|dot|scxml|all] [--check [--full-bounds]]`:
    /// generates `StateDiagrams/` from the reducers, or with `--check` says which files differ from
    /// what the code generates (exit 1); `--full-bounds` also explores every lifecycle at 4 in
    /// flight / 2 left over and fails when a drawn diagram lacks a state or an edge found there. Where Graphviz's `dot` is on the `PATH`, writing also renders
    /// every `.dot` to `.svg`; `--check` never compares `.svg` files.
    static func diagrams(_ arguments: Arguments, out: (String) -> Void, err: (String) -> Void) throws -> Int32 {
        let formats = try diagramFormats(arguments.options["format"] ?? "all")
        let folder = DiagramFolder(path: arguments.options["output"] ?? "StateDiagrams")
        let set = DiagramSet.standard(progress: { err($0) })
        let files = set.files(formats: formats)
        let bounded = set.diagrams.filter { !$0.graph.complete }.map(\.name)
        if !bounded.isEmpty { err("bounded (exploration stopped at its limits): \(bounded.joined(separator: ", "))") }

        if arguments.flags.contains("check") {
            let stale = try folder.check(files, formats: formats)
            guard stale.isEmpty else {
                err("\(folder.path) differs from what the code generates:")
                stale.forEach { err("  \($0)") }
                err("run `swift run authflow diagrams\(arguments.options["output"].map { " --output \($0)" } ?? "")` to regenerate")
                return 1
            }
            out("✓ \(folder.path) is what the code generates (\(files.count) files; .svg files are not compared)")
            guard arguments.flags.contains("full-bounds") else { return 0 }
            let full = Models.fullBounds
            let reference = DiagramSet.explore(.atFullBounds, progress: { err("at \(full.inFlight)/\(full.stale): \($0)") })
            return report(set.missing(comparedTo: reference), against: "\(full.inFlight) in flight / \(full.stale) left over", out: out, err: err)
        }

        let changed = try folder.write(files, formats: formats)
        changed.forEach { out("\($0.reason == .unexpected ? "removed" : "wrote") \(folder.path)/\($0.path)") }
        out("\(folder.path): \(files.count) files, \(changed.count) changed")
        guard formats.contains(.dot) else { return 0 }
        guard let dot = GraphvizTool.executable() else {
            err("Graphviz's `dot` is not on the PATH: .svg files were not rendered (existing ones may be stale)")
            return 0
        }
        var failures = 0
        for file in files where file.format == .dot {
            let source = (folder.path as NSString).appendingPathComponent(file.path)
            let target = String(source.dropLast(".dot".count)) + ".svg"
            if let problem = GraphvizTool.renderSVG(dot: dot, source: source, target: target) {
                err("\(file.path): \(problem)")
                failures += 1
            }
        }
        out("rendered \(files.filter { $0.format == .dot }.count - failures) .svg files with \(dot)")
        return failures == 0 ? 0 : 1
    }

    /// The formats `--format` names.
    static func diagramFormats(_ value: String) throws -> Set<DiagramFormat> {
        if value == "all" { return Set(DiagramFormat.allCases) }
        var formats: Set<DiagramFormat> = []
        for name in value.split(separator: ",") {
            guard let format = DiagramFormat(rawValue: String(name)) else {
                throw CommandProblem(description: "--format takes mermaid, dot, scxml or all, not '\(name)'")
            }
            formats.insert(format)
        }
        return formats
    }
}

/// Graphviz's `dot`, when it is installed: found on the `PATH` (no shell, no `which`), run with
/// Foundation's `Process`.
public enum GraphvizTool: Sendable {
    /// The path of `dot` on the `PATH`, if Graphviz is installed.
    public static func executable(path: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        for directory in (path ?? "").split(separator: ":") {
            let candidate = (String(directory) as NSString).appendingPathComponent("dot")
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Renders `source` (DOT) to `target` (SVG) with `dot`; `nil` on success, otherwise what went wrong.
    public static func renderSVG(dot: String, source: String, target: String) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: dot)
        process.arguments = ["-Tsvg", source, "-o", target]
        let errors = Pipe()
        process.standardError = errors
        do {
            try process.run()
        } catch {
            return "could not run \(dot): \(error)"
        }
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            return "dot exited with \(process.terminationStatus): \(String(decoding: message, as: UTF8.self))"
        }
        return nil
    }
}

import Foundation
import PackagePlugin

/// `swift package verify`: builds each verification executable of the package in release and runs
/// it, so a composition is explored by an optimized engine (a debug build, as `swift test` makes,
/// runs it five to ten times slower).
///
/// A verification executable is an executable target that depends on `AuthVerification` directly
/// and whose `@main` type conforms to `VerificationCommand`. `--target NAME` picks one (repeat it
/// for several); `--list` prints the names of those it would build and run, one a line, and
/// builds nothing (it refuses arguments meant for them); every other argument goes to the
/// executable (`--in-flight 4 --stale 2`, `--max-seconds 60`, `--help`…). The command fails when
/// an executable does not pass.
@main struct VerifyPlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let named = extractor.extractOption(named: "target")
        let listing = extractor.extractFlag(named: "list") > 0
        let forwarded = extractor.remainingArguments
        let targets = try Self.verificationTargets(in: context.package, named: named)
        if listing {
            // Nothing runs, so an argument meant for the executables would be dropped unread.
            guard forwarded.isEmpty else { throw VerifyError.listTakesNoArguments(forwarded) }
            for target in targets { print(target) }
            return
        }
        var failed: [String] = []
        for target in targets {
            // Unbuffered, so that it comes before the executable's own output.
            FileHandle.standardOutput.write(Data("building \(target) (release)…\n".utf8))
            let build = try packageManager.build(.product(target), parameters: .init(configuration: .release, logging: .concise))
            guard build.succeeded, let executable = build.builtArtifacts.first(where: { $0.kind == .executable }) else {
                print(build.logText)
                throw VerifyError.buildFailed(target)
            }
            let process = Process()
            process.executableURL = executable.url
            process.arguments = forwarded
            try process.run()
            process.waitUntilExit()
            if process.terminationStatus != 0 { failed.append("\(target) (exit status \(process.terminationStatus))") }
        }
        if !failed.isEmpty { throw VerifyError.didNotPass(failed) }
    }

    /// The package's executable targets that depend on `AuthVerification` directly, or those named.
    static func verificationTargets(in package: Package, named: [String]) throws -> [String] {
        let executables = package.targets.compactMap { $0 as? SwiftSourceModuleTarget }.filter { $0.kind == .executable }
        let verifying = executables.filter { target in
            target.dependencies.contains { dependency in
                switch dependency {
                case .target(let target): target.name == "AuthVerification"
                case .product(let product): product.name == "AuthVerification"
                @unknown default: false
                }
            }
        }
        if named.isEmpty {
            guard !verifying.isEmpty else { throw VerifyError.noTarget }
            return verifying.map(\.name)
        }
        for name in named where !verifying.contains(where: { $0.name == name }) {
            throw VerifyError.notAVerificationTarget(name, known: verifying.map(\.name))
        }
        return named
    }
}

/// Why `swift package verify` stopped.
enum VerifyError: Error, CustomStringConvertible {
    case noTarget
    case notAVerificationTarget(String, known: [String])
    case buildFailed(String)
    case didNotPass([String])
    case listTakesNoArguments([String])

    var description: String {
        switch self {
        case .noTarget:
            "no verification executable: add an executable target that depends on AuthVerification, "
                + "whose @main type conforms to VerificationCommand"
        case .notAVerificationTarget(let name, let known):
            "'\(name)' is not an executable target depending on AuthVerification; those that are: "
                + (known.isEmpty ? "none" : known.joined(separator: ", "))
        case .buildFailed(let name): "\(name) did not build"
        case .didNotPass(let names): "verification did not pass: \(names.joined(separator: ", "))"
        case .listTakesNoArguments(let words):
            "--list runs nothing, so it takes no arguments for the executables (only --target): \(words.joined(separator: " "))"
        }
    }
}

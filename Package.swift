// swift-tools-version:6.0
import PackageDescription

/// AuthCore has zero third-party packages: an auth core that apps embed should carry no supply chain.
let package = Package(
    name: "AuthCore",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "AuthCore", targets: ["AuthCore"]),
        .library(name: "AuthVerification", targets: ["AuthVerification"]),
        .library(name: "AuthRuntime", targets: ["AuthRuntime"]),
        .library(name: "AuthDiagrams", targets: ["AuthDiagrams"]),
        .library(name: "ReferenceBackend", targets: ["ReferenceBackend"]),
        .executable(name: "authflow", targets: ["authflow"]),
        .plugin(name: "VerifyPlugin", targets: ["VerifyPlugin"]),
    ],
    dependencies: [],
    targets: [
        .target(name: "AuthCore"),
        // What the client modules and the CLI share and AuthCore does not need (the one lock, JSON writing); not a product.
        .target(name: "AuthSupport"),
        .target(name: "AuthVerification", dependencies: ["AuthCore", "AuthSupport"]),
        .target(name: "AuthDiagrams", dependencies: ["AuthCore", "AuthVerification", "AuthSupport"]),
        .target(name: "AuthRuntime", dependencies: ["AuthCore", "AuthSupport"]),
        .target(name: "ReferenceBackend"),
        // `authflow bench`'s measurements, a target of their own so that AuthflowKit reads as the CLI.
        .target(name: "AuthflowBench", dependencies: ["AuthCore", "AuthSupport", "AuthVerification", "AuthRuntime", "ReferenceBackend"]),
        .target(
            name: "AuthflowKit",
            dependencies: ["AuthCore", "AuthSupport", "AuthVerification", "AuthDiagrams", "AuthRuntime", "ReferenceBackend", "AuthflowBench"]),
        .executableTarget(name: "authflow", dependencies: ["AuthflowKit"]),
        // `swift package verify`: builds the package's verification executables in release and runs them.
        .plugin(
            name: "VerifyPlugin",
            capability: .command(
                intent: .custom(verb: "verify", description: "Build each verification executable optimized and run it (see VerificationCommand)")),
            path: "Sources/VerifyPlugin"),
        // One small app per backend: sign up or in, an authorized call, sign out (`swift run SubspaceExample <url>`).
        .executableTarget(name: "SubspaceExample", dependencies: ["AuthRuntime"], path: "Sources/Examples/SubspaceExample"),
        .executableTarget(name: "Hero365Example", dependencies: ["AuthRuntime"], path: "Sources/Examples/Hero365Example"),
        .executableTarget(name: "EverdayExample", dependencies: ["AuthRuntime"], path: "Sources/Examples/EverdayExample"),
        .executableTarget(name: "AnonymousWallExample", dependencies: ["AuthRuntime"], path: "Sources/Examples/AnonymousWallExample"),
        .executableTarget(name: "VynqTalkExample", dependencies: ["AuthRuntime"], path: "Sources/Examples/VynqTalkExample"),
        // A server none of the five: its own contract and `AuthClient`, public API only.
        .executableTarget(name: "CustomServerExample", dependencies: ["AuthCore", "AuthRuntime"], path: "Sources/Examples/CustomServerExample"),
        // Any OpenID Connect provider: sign-in by code + PKCE in a browser, a call, sign out.
        .executableTarget(name: "OpenIDConnectExample", dependencies: ["AuthRuntime"], path: "Sources/Examples/OpenIDConnectExample"),
        // A verification executable, as an app adds one: `swift package verify` runs it optimized.
        .executableTarget(name: "MyAppVerification", dependencies: ["AuthCore", "AuthVerification"], path: "Sources/Examples/MyAppVerification"),
        // What several test targets share (checkout folders, temporary directories, loopback
        // sessions), dependency-free so the reference backend's tests can use it too; not a product.
        .target(name: "AuthTestSupport", path: "Tests/AuthTestSupport"),
        .testTarget(name: "AuthCoreTests", dependencies: ["AuthCore"]),
        .testTarget(name: "AuthVerificationTests", dependencies: ["AuthCore", "AuthSupport", "AuthVerification"]),
        .testTarget(name: "AuthDiagramsTests", dependencies: ["AuthCore", "AuthVerification", "AuthDiagrams", "AuthTestSupport"]),
        .testTarget(
            name: "AuthRuntimeTests",
            dependencies: [
                "AuthCore", "AuthSupport", "AuthRuntime", "ReferenceBackend", "AuthVerification", "AuthTestSupport", "AuthflowKit",
            ]),
        .testTarget(name: "ReferenceBackendTests", dependencies: ["ReferenceBackend", "AuthTestSupport"]),
        .testTarget(
            name: "ExamplesTests",
            dependencies: [
                "SubspaceExample", "Hero365Example", "EverdayExample", "AnonymousWallExample", "VynqTalkExample", "CustomServerExample",
                "OpenIDConnectExample", "MyAppVerification",
                "ReferenceBackend", "AuthCore", "AuthRuntime", "AuthVerification", "AuthTestSupport", "AuthflowBench",
            ]),
        .testTarget(
            name: "AuthflowKitTests",
            dependencies: [
                "AuthflowKit", "AuthflowBench", "AuthCore", "AuthSupport", "AuthVerification", "AuthDiagrams", "AuthRuntime", "AuthTestSupport",
                "ReferenceBackend",
            ]),
    ],
    swiftLanguageModes: [.v6]
)

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
    ],
    dependencies: [],
    targets: [
        .target(name: "AuthCore"),
        .target(name: "AuthVerification", dependencies: ["AuthCore"]),
        .target(name: "AuthDiagrams", dependencies: ["AuthCore", "AuthVerification"]),
        .target(name: "AuthRuntime", dependencies: ["AuthCore"]),
        .target(name: "ReferenceBackend"),
        .target(
            name: "AuthflowKit",
            dependencies: ["AuthCore", "AuthVerification", "AuthDiagrams", "AuthRuntime", "ReferenceBackend"]),
        .executableTarget(name: "authflow", dependencies: ["AuthflowKit"]),
        .testTarget(name: "AuthCoreTests", dependencies: ["AuthCore"]),
        .testTarget(name: "AuthVerificationTests", dependencies: ["AuthCore", "AuthVerification"]),
        .testTarget(name: "AuthDiagramsTests", dependencies: ["AuthCore", "AuthVerification", "AuthDiagrams"]),
        .testTarget(name: "AuthRuntimeTests", dependencies: ["AuthCore", "AuthRuntime", "ReferenceBackend", "AuthVerification"]),
        .testTarget(name: "ReferenceBackendTests", dependencies: ["ReferenceBackend"]),
        .testTarget(name: "AuthflowKitTests", dependencies: ["AuthflowKit", "AuthCore", "AuthVerification"]),
    ],
    swiftLanguageModes: [.v6]
)

import Foundation

/// The folders of this checkout that tests read: the one way a test finds `Fixtures/` or
/// `StateDiagrams/`, whichever target it is in.
public enum Checkout {
    /// The package's root directory (this file is `Tests/AuthTestSupport/Checkout.swift`).
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// `Fixtures/`: the example bodies of each backend's API document, their sidecars, each
    /// backend's API summary and `INDEX.md`.
    public static let fixtures = root.appendingPathComponent("Fixtures")
    /// `StateDiagrams/`: the committed diagrams.
    public static let stateDiagrams = root.appendingPathComponent("StateDiagrams")
}

import AuthCore

/// An entry flow's cases that hand a grant over to the session. A `Handover` passes the grant on
/// in the same step, so it never stores these cases: the explorer does not expect to reach them.
public protocol HandoverCases {
    /// `Type.case` names of the phases that hand over (e.g. `PasswordSignIn.Phase.signedIn`).
    var handoverCases: [String] { get }
}

/// A session's signed-out cases, which a `Handover` replaces at once with the entry flows' start.
public protocol SignedOutCases {
    /// `Type.case` names of the signed-out phases.
    var signedOutCases: [String] { get }
}

/// A composition that never stores some of its parts' declared cases.
public protocol TransientCaseListing {
    /// `Type.case` names the composition passes through within one step and never stores.
    var transientCases: [String] { get }
}

/// The cases `machine` passes through without storing them, if it says.
@inlinable func transientCases(of machine: Any) -> [String] {
    (machine as? any TransientCaseListing)?.transientCases ?? []
}

@inlinable func key<P: LifecyclePhase>(_ phase: P.Type, _ name: String) -> String { "\(typeName(P.self)).\(name)" }

extension Handover: TransientCaseListing where Entry: HandoverCases, SessionSide: SignedOutCases {
    /// The entry flows' handover cases and the session's signed-out cases.
    @inlinable public var transientCases: [String] { entry.handoverCases + session.signedOutCases }
}

extension OneOf: HandoverCases where First: HandoverCases, Second: HandoverCases {
    /// Both flows' handover cases.
    @inlinable public var handoverCases: [String] { first.handoverCases + second.handoverCases }
}

extension CodeRegistration: HandoverCases {
    /// `registered`.
    @inlinable public var handoverCases: [String] { [key(Phase.self, "registered")] }
}

extension OneTimeCodeSignIn: HandoverCases {
    /// `signedIn`.
    @inlinable public var handoverCases: [String] { [key(Phase.self, "signedIn")] }
}

extension PasswordSignIn: HandoverCases {
    /// `signedIn`.
    @inlinable public var handoverCases: [String] { [key(Phase.self, "signedIn")] }
}

extension Registration: HandoverCases {
    /// `registered`.
    @inlinable public var handoverCases: [String] { [key(Phase.self, "registered")] }
}

extension PasswordReset: HandoverCases {
    /// `signedIn`.
    @inlinable public var handoverCases: [String] { [key(Phase.self, "signedIn")] }
}

extension OAuthSignIn: HandoverCases {
    /// `signedIn`.
    @inlinable public var handoverCases: [String] { [key(Phase.self, "signedIn")] }
}

extension OpenIDSignIn: HandoverCases {
    /// `signedIn`.
    @inlinable public var handoverCases: [String] { [key(Phase.self, "signedIn")] }
}

extension DeviceSignIn: HandoverCases {
    /// `signedIn`.
    @inlinable public var handoverCases: [String] { [key(Phase.self, "signedIn")] }
}

extension SessionLifecycle: SignedOutCases {
    /// `signedOut`.
    @inlinable public var signedOutCases: [String] { [key(Phase.self, "signedOut")] }
}

extension SessionWithRealtime: SignedOutCases {
    /// The session's `signedOut`.
    @inlinable public var signedOutCases: [String] { session.signedOutCases }
}

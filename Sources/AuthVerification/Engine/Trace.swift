import AuthCore

/// One step of a trace: the move, the event, and where the lifecycle was after it.
public struct TraceStep: Hashable, Sendable, CustomStringConvertible {
    /// The replayable choice.
    public var choice: Choice
    /// The event, redacted.
    public var event: String
    /// The case path after the step.
    public var phase: String

    /// Memberwise, written out: inlinable code cannot call an implicit internal initializer.
    @inlinable init(choice: Choice, event: String, phase: String) {
        self.choice = choice
        self.event = event
        self.phase = phase
    }

    /// `[a0.3] t+1000000s reply r2 failed(network) → signedIn.active.backingOff`.
    @inlinable public var description: String { "[\(choice)] \(event) → \(phase)" }
}

/// An invariant that does not hold, with the shortest trace that breaks it.
public struct Violation: Hashable, Sendable, CustomStringConvertible {
    /// The invariant's name.
    public var invariant: String
    /// Where it comes from.
    public var source: String
    /// What went wrong.
    public var message: String
    /// The events from the initial state to the violation.
    public var trace: [TraceStep]

    /// Memberwise, written out: inlinable code cannot call an implicit internal initializer.
    @inlinable init(invariant: String, source: String, message: String, trace: [TraceStep]) {
        self.invariant = invariant
        self.source = source
        self.message = message
        self.trace = trace
    }

    /// The invariant and how many events reach it, as a verdict or a progress line names the
    /// violation: `logout always signs out and clears the vault (1 step)`.
    @inlinable public var summary: String { "\(invariant) (\(trace.count == 1 ? "1 step" : "\(trace.count) steps"))" }

    /// A readable report.
    @inlinable public var description: String {
        "✗ \(invariant) (\(source)): \(message)\n" + trace.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n")
    }
}

/// A structural problem found by the explorer.
public struct Finding: Hashable, Sendable, CustomStringConvertible {
    /// What kind.
    public enum Kind: String, Hashable, Sendable {
        /// A non-final state where nothing can change anything.
        case deadlock
        /// A state from which the lifecycle's starting case is unreachable.
        case noWayHome
        /// A declared phase case never reached.
        case unreachedCase
        /// A reached phase case missing from the declared list.
        case undeclaredCase
        /// A declared intent case the model never offers.
        case unusedIntent
        /// A cycle made only of timers, failed answers and realtime opens that never settle: a retry loop the user never sees end.
        case livelock
        /// A trace that does not lead back to the state it was recorded for when replayed from
        /// the initial world: the model offered different moves at worlds with one fingerprint,
        /// breaking ``LifecycleModel/intents(in:)``'s contract, so no trace it reports can be
        /// trusted until that is mended.
        case brokenModelContract
    }

    /// What kind.
    public var kind: Kind
    /// What and where.
    public var detail: String
    /// The shortest trace to the state concerned (and, for a livelock, around the cycle).
    public var trace: [TraceStep]

    /// Memberwise, written out: inlinable code cannot call an implicit internal initializer.
    @inlinable init(kind: Kind, detail: String, trace: [TraceStep]) {
        self.kind = kind
        self.detail = detail
        self.trace = trace
    }

    /// A readable report.
    @inlinable public var description: String {
        "✗ \(kind.rawValue): \(detail)"
            + (trace.isEmpty ? "" : "\n" + trace.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n"))
    }
}

/// An edge of the projected graph: case path to case path, labelled by the event's case.
public struct ProjectedEdge: Hashable, Sendable, Comparable {
    /// What kind of event.
    public enum Kind: String, Hashable, Sendable, Comparable {
        /// A user intent.
        case intent
        /// A successful answer.
        case success
        /// A failed answer.
        case failure
        /// A timer.
        case timer
        /// An app launch.
        case launch

        /// Orders by declaration.
        @inlinable public static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The source case path.
    public var from: String
    /// The event's label (`submitEmail`, `granted`, `failed(network)`, `tick`).
    public var label: String
    /// The target case path.
    public var to: String
    /// What kind of event.
    public var kind: Kind

    /// Memberwise, written out: inlinable code cannot call an implicit internal initializer.
    @inlinable init(from: String, label: String, to: String, kind: Kind) {
        self.from = from
        self.label = label
        self.to = to
        self.kind = kind
    }

    /// Orders by source, label, target.
    @inlinable public static func < (lhs: ProjectedEdge, rhs: ProjectedEdge) -> Bool {
        (lhs.from, lhs.label, lhs.to, lhs.kind) < (rhs.from, rhs.label, rhs.to, rhs.kind)
    }
}

/// Labels for events in traces and diagrams: the explorer's projected graph and the diagrams'
/// documented flows name events with these, so the two always agree.
public enum EventLabel {
    /// An event's label and the kind of edge it makes: an intent's innermost case, a reply's case
    /// (a failure with its class), `tick`, or the launch with what the vault held.
    @inlinable public static func of<Intent>(_ event: AuthEvent<Intent>) -> (String, ProjectedEdge.Kind) {
        switch event {
        case .intent(let intent, _, _): (leafCase(of: intent), .intent)
        case .withdrawn: ("withdrawn", .intent)
        case .reply(_, let reply, _): label(of: reply)
        case .tick: ("tick", .timer)
        case .launched(.none, _, _): ("launched(empty)", .launch)
        case .launched(.stored, _, _): ("launched(stored)", .launch)
        case .launched(.unreadable, _, _): ("launched(unreadable)", .launch)
        }
    }

    /// A reply's label: its case, and a failure's class (`failed(network)`).
    @inlinable static func label(of reply: Reply) -> (String, ProjectedEdge.Kind) {
        switch reply {
        case .granted: ("granted", .success)
        case .refreshed: ("refreshed", .success)
        case .accepted: ("accepted", .success)
        case .user: ("user", .success)
        case .pendingApproval: ("pendingApproval", .success)
        case .verificationRequired: ("verificationRequired", .success)
        case .authorizationURL: ("authorizationURL", .success)
        case .nativeSignInRequired: ("nativeSignInRequired", .success)
        case .device(.codeIssued): ("device(codeIssued)", .success)
        case .device(.authorizationPending): ("device(authorizationPending)", .failure)
        case .device(.slowDown): ("device(slowDown)", .failure)
        case .device(.accessDenied): ("device(accessDenied)", .failure)
        case .device(.expiredToken): ("device(expiredToken)", .failure)
        case .realtimeOpened: ("realtimeOpened", .success)
        case .realtimeClosed: ("realtimeClosed", .failure)
        case .failed(let failure): (label(of: failure), .failure)
        }
    }

    /// A failure's label: its class, the case name its description starts with (`failed(server)`).
    /// Literals, not cut from the description: the explorer labels every failed answer that
    /// changes a state, and building the string each time showed in its profile.
    @inlinable static func label(of failure: AuthFailure) -> String {
        switch failure {
        case .badRequest: "failed(badRequest)"
        case .unauthorized: "failed(unauthorized)"
        case .incorrectPassword: "failed(incorrectPassword)"
        case .pendingApproval: "failed(pendingApproval)"
        case .forbidden: "failed(forbidden)"
        case .notFound: "failed(notFound)"
        case .conflict: "failed(conflict)"
        case .rateLimited: "failed(rateLimited)"
        case .server: "failed(server)"
        case .network: "failed(network)"
        case .timeout: "failed(timeout)"
        case .malformed: "failed(malformed)"
        }
    }

    /// Every declared intent type inside a wrapped intent, with its declared cases.
    @inlinable static func intentDeclarations(_ intent: Any) -> [String: [String]] {
        var result: [String: [String]] = [:]
        func visit(_ value: Any) {
            guard let listing = value as? any CaseListing else { return }
            result[typeName(type(of: listing))] = type(of: listing).declaredCases
            for child in Mirror(reflecting: listing).children { visit(child.value) }
        }
        visit(intent)
        return result
    }

    /// The innermost case name of a (possibly wrapped) intent: `.entry(<flow>(.submitEmail(…)))` → `submitEmail`.
    @inlinable public static func leafCase(of value: Any) -> String {
        var current: Any = value
        var name = String(describing: value)
        while true {
            let mirror = Mirror(reflecting: current)
            guard mirror.displayStyle == .enum else { return name }
            guard let child = mirror.children.first else { return String(describing: current) }
            name = child.label ?? name
            guard child.value is any CaseListing else { return name }
            current = child.value
        }
    }

    /// Every (intent type, case) met in a wrapped intent.
    @inlinable static func intentCases(of value: Any, into found: inout Set<PhaseCase>) {
        var current: Any = value
        while let listing = current as? any CaseListing {
            let mirror = Mirror(reflecting: listing)
            let name = mirror.children.first?.label ?? String(describing: listing)
            found.insert(PhaseCase(type: typeName(type(of: listing)), name: name))
            guard let child = mirror.children.first else { return }
            current = child.value
        }
    }
}

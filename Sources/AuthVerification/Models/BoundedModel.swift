import AuthCore

/// `base` explored with other bounds: at most `maxInFlight` requests in flight and `maxStale`
/// answers left over from abandoned work (see ``LifecycleModel/maxInFlight`` and
/// ``LifecycleModel/maxStale``); everything else is `base`'s. Raise the bounds to check more
/// concurrency (the space grows fast), lower them for a quick look.
public struct BoundedModel<Base: LifecycleModel>: LifecycleModel {
    /// The model whose bounds change.
    public let base: Base
    /// Requests in flight at most.
    public let maxInFlight: Int
    /// Answers left over at most (at least 1).
    public let maxStale: Int

    /// `base` with at most `inFlight` requests in flight and `stale` answers left over, each at
    /// least 1: the user acts only while fewer are in flight and fewer are left over, so a bound
    /// of 0 would let nothing happen at all.
    public init(_ base: Base, inFlight: Int, stale: Int) {
        self.base = base
        self.maxInFlight = max(1, inFlight)
        self.maxStale = max(1, stale)
    }

    /// `base`'s name.
    public var name: String { base.name }
    /// `base`'s machine.
    public var machine: Base.Machine { base.machine }
    /// `base`'s answers.
    public var replies: ReplyCatalogue { base.replies }
    /// `base`'s intents.
    public func intents(in snapshot: Snapshot<Base.Machine>) -> [Base.Machine.Intent] { base.intents(in: snapshot) }
    /// `base`'s.
    public var relaunches: Bool { base.relaunches }
    /// `base`'s.
    public var initialWorld: World<Base.Machine> { base.initialWorld }
    /// `base`'s.
    public var finalCases: [String] { base.finalCases }
    /// `base`'s.
    public var unreachableByDesign: [String: String] { base.unreachableByDesign }
    /// `base`'s.
    public var timeHorizon: Interval { base.timeHorizon }
    /// `base`'s.
    public var historyHorizon: Interval { base.historyHorizon }
    /// `base`'s.
    public var invariants: [Invariant<Base.Machine>] { base.invariants }
    /// `base`'s.
    public var codeRules: CodeRules? { base.codeRules }
    /// `base`'s.
    public var endsServerSessions: Bool { base.endsServerSessions }
}

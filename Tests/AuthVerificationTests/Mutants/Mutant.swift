import AuthCore
import AuthVerification

/// A real lifecycle with one rule broken: every event goes to `breaking`, which calls the real
/// reducer (`base`) and changes what goes in or what comes out. The phase type is the real one,
/// so the explorer surveys, names and checks a mutant exactly as it does the lifecycle it breaks.
struct Mutant<Base: Lifecycle>: Lifecycle {
    typealias Phase = Base.Phase
    typealias Intent = Base.Intent
    /// The broken reducer: the real one, the phase, the event, the shared request counter.
    typealias Breaking = @Sendable (Base, inout Phase, Event, inout FlowContext) -> [AuthEffect]

    /// The lifecycle broken.
    let base: Base
    /// How it is broken.
    let breaking: Breaking

    init(_ base: Base, _ breaking: @escaping Breaking) {
        self.base = base
        self.breaking = breaking
    }

    var initialPhase: Phase { base.initialPhase }

    func step(_ phase: inout Phase, _ event: Event, _ requests: inout FlowContext) -> [AuthEffect] {
        breaking(base, &phase, event, &requests)
    }

    /// The real reducer, then `change` applied to the phase it left and the effects it asked for,
    /// knowing the phase before and the event.
    static func editing(
        _ base: Base, _ change: @escaping @Sendable (_ before: Phase, _ event: Event, _ phase: inout Phase, _ effects: inout [AuthEffect]) -> Void
    ) -> Mutant {
        Mutant(base) { base, phase, event, requests in
            let before = phase
            var effects = base.step(&phase, event, &requests)
            change(before, event, &phase, &effects)
            return effects
        }
    }
}

extension Mutant: EntryFlow where Base: EntryFlow {
    func handover(_ phase: Phase) -> Grant? { base.handover(phase) }
}

extension Mutant: TransientCaseListing {
    /// The real lifecycle's: a mutant stores the same phases.
    var transientCases: [String] { (base as? any TransientCaseListing)?.transientCases ?? [] }
}

/// A real lifecycle with a little memory of its own, for the broken rules the real phase has no
/// room for (a second request kept current, a typed password kept in plain text). The explorer
/// surveys the wrapper through `Mirror`: its case path is the real one in parentheses.
struct Remembering<Base: Lifecycle, Memory: Hashable & Sendable>: Lifecycle {
    /// The real phase and the memory.
    struct Phase: LifecyclePhase {
        /// A product, not an enum: its cases are the real phase's.
        static var declaredCases: [String] { [] }
        /// The real lifecycle's phase.
        var base: Base.Phase
        /// What the broken reducer remembers.
        var memory: Memory?
    }

    typealias Intent = Base.Intent
    /// The broken reducer, with the memory beside the real phase.
    typealias Breaking = @Sendable (Base, inout Base.Phase, inout Memory?, Event, inout FlowContext) -> [AuthEffect]

    /// The lifecycle broken.
    let base: Base
    /// How it is broken.
    let breaking: Breaking

    init(_ base: Base, _ breaking: @escaping Breaking) {
        self.base = base
        self.breaking = breaking
    }

    var initialPhase: Phase { Phase(base: base.initialPhase, memory: nil) }

    func step(_ phase: inout Phase, _ event: Event, _ requests: inout FlowContext) -> [AuthEffect] {
        breaking(base, &phase.base, &phase.memory, event, &requests)
    }
}

extension Remembering: EntryFlow where Base: EntryFlow {
    func handover(_ phase: Phase) -> Grant? { base.handover(phase.base) }
}

extension Remembering: TransientCaseListing {
    /// The real lifecycle's.
    var transientCases: [String] { (base as? any TransientCaseListing)?.transientCases ?? [] }
}

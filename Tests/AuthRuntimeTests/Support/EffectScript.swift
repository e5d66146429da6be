import AuthCore

/// A test-only lifecycle that performs exactly the effects its intent lists and records every
/// other event, so a test can see what the runner did with each effect and what it fed back.
struct EffectScript: Lifecycle {
    /// The events fed back to the reducer (replies, ticks, launches), in order.
    struct Phase: LifecyclePhase {
        static let declaredCases = ["recording"]
        var events: [AuthEvent<Intent>] = []
    }

    /// Perform these effects.
    struct Intent: CaseListing {
        static let declaredCases = ["perform"]
        var effects: [AuthEffect]
        init(_ effects: [AuthEffect]) { self.effects = effects }
    }

    var initialPhase: Phase { Phase() }

    func step(_ phase: inout Phase, _ event: Event, _ requests: inout FlowContext) -> [AuthEffect] {
        switch event {
        case .intent(let intent, _, _): return intent.effects
        case .reply, .tick, .launched, .withdrawn:
            phase.events.append(event)
            return []
        }
    }
}

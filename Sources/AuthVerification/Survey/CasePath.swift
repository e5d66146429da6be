import AuthCore

/// The readable case path of a phase: `signedIn.active.idle`, `signedOut.first.awaitingCode`,
/// `(active.idle + connected)` for a product of phases. Payloads that are not phases are dropped.
///
/// Read from ``ExplorablePhase`` when the phase conforms, otherwise through `Mirror`.
@inlinable public func casePath(of phase: Any) -> String {
    if let explorable = phase as? any ExplorablePhase { return explorable.casePath }
    let mirror = Mirror(reflecting: phase)
    switch mirror.displayStyle {
    case .enum:
        guard let child = mirror.children.first, let label = child.label else { return String(describing: phase) }
        let inner = phasesInside(child.value)
        return inner.isEmpty ? label : label + "." + inner.joined(separator: ".")
    case .struct, .class:
        if phase is any LifecyclePhase {
            return "("
                + mirror.children.compactMap { $0.value is any LifecyclePhase ? casePath(of: $0.value) : nil }
                .joined(separator: " + ") + ")"
        }
        return String(describing: phase)
    default:
        return String(describing: phase)
    }
}

@inlinable func phasesInside(_ payload: Any) -> [String] {
    if payload is any LifecyclePhase { return [casePath(of: payload)] }
    let mirror = Mirror(reflecting: payload)
    guard mirror.displayStyle == .tuple else { return [] }
    return mirror.children.compactMap { $0.value is any LifecyclePhase ? casePath(of: $0.value) : nil }
}

/// The phase cases a state reaches (its own and every inner phase's), with each phase type's
/// declared cases: from ``ExplorablePhase`` when the phase conforms, otherwise through `Mirror`.
@inlinable func reachedCases(of phase: Any, into cases: inout [PhaseCase], declared: inout [String: [String]]) {
    if let explorable = phase as? any ExplorablePhase {
        explorable.reachedCases(into: &cases, declared: &declared)
        return
    }
    if phase is any AnySecret { return }
    if let listing = phase as? any LifecyclePhase {
        let type = typeName(Swift.type(of: listing))
        if declared[type] == nil { declared[type] = Swift.type(of: listing).declaredCases }
        let mirror = Mirror(reflecting: phase)
        if mirror.displayStyle == .enum, let label = mirror.children.first?.label ?? Optional(String(describing: phase)) {
            cases.append(PhaseCase(type: type, name: label))
        }
    }
    for child in Mirror(reflecting: phase).children { reachedCases(of: child.value, into: &cases, declared: &declared) }
}

/// The first phase of type `T` in `phase` or inside it, outermost first.
@inlinable func firstPhase<T>(_ type: T.Type, in phase: Any) -> T? {
    if let match = phase as? T { return match }
    if let explorable = phase as? any ExplorablePhase { return explorable.firstPhase(T.self) }
    if phase is any AnySecret { return nil }
    for child in Mirror(reflecting: phase).children {
        if let found = firstPhase(T.self, in: child.value) { return found }
    }
    return nil
}

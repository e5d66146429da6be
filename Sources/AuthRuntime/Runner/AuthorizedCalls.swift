import AuthCore

/// A lifecycle that can make the app's own protected calls: it names the intent that starts one,
/// so the runner's ``AuthRunner/authorized(_:)`` can drive any app shape.
public protocol AuthorizedCalls: Lifecycle {
    /// The intent that makes protected call `call`.
    func callIntent(for call: CallID) -> Intent
}

extension SessionLifecycle: AuthorizedCalls {
    /// `.call(call)`.
    public func callIntent(for call: CallID) -> Intent { .call(call) }
}

extension SessionWithRealtime: AuthorizedCalls {
    /// `.session(.call(call))`.
    public func callIntent(for call: CallID) -> Intent { .session(session.callIntent(for: call)) }
}

extension Handover: AuthorizedCalls where SessionSide: AuthorizedCalls {
    /// `.session(<the session's call intent>)`: every app in `Apps`.
    public func callIntent(for call: CallID) -> Intent { .session(session.callIntent(for: call)) }
}

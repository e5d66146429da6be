import ReferenceBackend
import Testing

/// Which form the reference server answers in: what a backend's document says, or what its
/// deployed server sends. End-to-end tests of a flow whose forms differ run against both.
enum ServerForm: String, Sendable, CaseIterable, CustomTestStringConvertible {
    /// As the backend's document says (the reference server's default).
    case documented
    /// As the deployed server answers.
    case deployed

    var testDescription: String { rawValue }

    /// Sets `configuration` to answer in this form (every backend with a deployed form).
    func configure(_ configuration: inout Configuration) {
        if self == .deployed { configuration.answerAsDeployed() }
    }

    /// `configure`, then `more`.
    func configure(then more: @escaping (inout Configuration) -> Void) -> (inout Configuration) -> Void {
        { configuration in
            self.configure(&configuration)
            more(&configuration)
        }
    }
}

import AuthCore

extension CodeRegistration.Phase {
    /// Code registration's cases by name (`declaredCases`, typed), to name one in an ``UnreachableCase``.
    public enum Case: String, PhaseCaseName {
        /// The phase type.
        public typealias Phase = CodeRegistration.Phase
        /// `enteringEmail`.
        case enteringEmail
        /// `sendingCode`.
        case sendingCode
        /// `awaitingCode`.
        case awaitingCode
        /// `resendingCode`.
        case resendingCode
        /// `registering`.
        case registering
        /// `registered`.
        case registered
    }
}

extension OneTimeCodeSignIn.Phase {
    /// Code sign-in's cases by name (`declaredCases`, typed), to name one in an ``UnreachableCase``.
    public enum Case: String, PhaseCaseName {
        /// The phase type.
        public typealias Phase = OneTimeCodeSignIn.Phase
        /// `enteringDestination`.
        case enteringDestination
        /// `requestingCode`.
        case requestingCode
        /// `awaitingCode`.
        case awaitingCode
        /// `resendingCode`.
        case resendingCode
        /// `verifying`.
        case verifying
        /// `codeExpired`.
        case codeExpired
        /// `attemptsExhausted`.
        case attemptsExhausted
        /// `signedIn`.
        case signedIn
    }
}

extension PasswordSignIn.Phase {
    /// Password sign-in's cases by name (`declaredCases`, typed), to name one in an ``UnreachableCase``.
    public enum Case: String, PhaseCaseName {
        /// The phase type.
        public typealias Phase = PasswordSignIn.Phase
        /// `enteringCredentials`.
        case enteringCredentials
        /// `signingIn`.
        case signingIn
        /// `pendingApproval`.
        case pendingApproval
        /// `rateLimited`.
        case rateLimited
        /// `signedIn`.
        case signedIn
    }
}

extension Registration.Phase {
    /// Registration's cases by name (`declaredCases`, typed), to name one in an ``UnreachableCase``.
    public enum Case: String, PhaseCaseName {
        /// The phase type.
        public typealias Phase = Registration.Phase
        /// `editing`.
        case editing
        /// `submitting`.
        case submitting
        /// `awaitingVerification`.
        case awaitingVerification
        /// `pendingApproval`.
        case pendingApproval
        /// `registered`.
        case registered
    }
}

extension PasswordReset.Phase {
    /// Password reset's cases by name (`declaredCases`, typed), to name one in an ``UnreachableCase``.
    public enum Case: String, PhaseCaseName {
        /// The phase type.
        public typealias Phase = PasswordReset.Phase
        /// `enteringIdentifier`.
        case enteringIdentifier
        /// `requesting`.
        case requesting
        /// `requestingAgain`.
        case requestingAgain
        /// `awaitingProof`.
        case awaitingProof
        /// `resetting`.
        case resetting
        /// `linkSent`.
        case linkSent
        /// `completed`.
        case completed
        /// `signedIn`.
        case signedIn
    }
}

extension OAuthSignIn.Phase {
    /// OAuth sign-in's cases by name (`declaredCases`, typed), to name one in an ``UnreachableCase``.
    public enum Case: String, PhaseCaseName {
        /// The phase type.
        public typealias Phase = OAuthSignIn.Phase
        /// `choosingProvider`.
        case choosingProvider
        /// `fetchingURL`.
        case fetchingURL
        /// `awaitingCallback`.
        case awaitingCallback
        /// `signingInNatively`.
        case signingInNatively
        /// `signedIn`.
        case signedIn
    }
}

extension OpenIDSignIn.Phase {
    /// OpenID Connect sign-in's cases by name (`declaredCases`, typed), to name one in an ``UnreachableCase``.
    public enum Case: String, PhaseCaseName {
        /// The phase type.
        public typealias Phase = OpenIDSignIn.Phase
        /// `idle`.
        case idle
        /// `awaitingCallback`.
        case awaitingCallback
        /// `exchangingCode`.
        case exchangingCode
        /// `signedIn`.
        case signedIn
    }
}

extension SessionLifecycle.Phase {
    /// The session's cases by name (`declaredCases`, typed), to name one in an ``UnreachableCase``.
    public enum Case: String, PhaseCaseName {
        /// The phase type.
        public typealias Phase = SessionLifecycle.Phase
        /// `signedOut`.
        case signedOut
        /// `restoring`.
        case restoring
        /// `active`.
        case active
        /// `passwordSetupRequired`.
        case passwordSetupRequired
        /// `passwordChangeRequired`.
        case passwordChangeRequired
    }
}

extension SessionLifecycle.Refresh {
    /// The session's refresh's cases by name (`declaredCases`, typed), to name one in an ``UnreachableCase``.
    public enum Case: String, PhaseCaseName {
        /// The phase type.
        public typealias Phase = SessionLifecycle.Refresh
        /// `idle`.
        case idle
        /// `refreshing`.
        case refreshing
        /// `backingOff`.
        case backingOff
        /// `offline`.
        case offline
    }
}

extension RealtimeConnection.Phase {
    /// The realtime connection's cases by name (`declaredCases`, typed), to name one in an ``UnreachableCase``.
    public enum Case: String, PhaseCaseName {
        /// The phase type.
        public typealias Phase = RealtimeConnection.Phase
        /// `idle`.
        case idle
        /// `connecting`.
        case connecting
        /// `settling`.
        case settling
        /// `connected`.
        case connected
        /// `checkingToken`.
        case checkingToken
        /// `waitingToReconnect`.
        case waitingToReconnect
        /// `rejected`.
        case rejected
        /// `gaveUp`.
        case gaveUp
    }
}

extension DeviceSignIn.Phase {
    /// Device sign-in's cases by name (`declaredCases`, typed), to name one in an ``UnreachableCase``.
    public enum Case: String, PhaseCaseName {
        /// The phase type.
        public typealias Phase = DeviceSignIn.Phase
        /// `idle`.
        case idle
        /// `requestingCode`.
        case requestingCode
        /// `waitingToPoll`.
        case waitingToPoll
        /// `polling`.
        case polling
        /// `signedIn`.
        case signedIn
    }
}

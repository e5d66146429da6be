import AuthCore

// Plain data of AuthCore's own value types, fed to the fingerprint as text and case marks rather
// than through ``Survey/plain(_:)-(T)``'s hasher: a seeded hasher, fed and finished, costs
// several times more per value, and the survey meets these in most worlds it walks.
extension Survey {
    /// Surveys an email address: its text.
    @inlinable public mutating func plain(_ value: Email) { plain(value.rawValue) }

    /// Surveys an optional email address.
    @inlinable public mutating func plain(_ value: Email?) { plain(value?.rawValue) }

    /// Surveys a username: its text.
    @inlinable public mutating func plain(_ value: Username) { plain(value.rawValue) }

    /// Surveys an optional name: its text.
    @inlinable public mutating func plain(_ value: PersonName?) { plain(value?.rawValue) }

    /// Surveys a phone number: its E.164 text.
    @inlinable public mutating func plain(_ value: PhoneNumber) { plain(value.e164) }

    /// Surveys a code's purpose: its wire name.
    @inlinable public mutating func plain(_ value: CodePurpose) { plain(value.rawValue) }

    /// Surveys a sign-in identifier: its kind, then its text.
    @inlinable public mutating func plain(_ value: SignInIdentifier) {
        switch value {
        case .email(let email):
            tag("email")
            plain(email)
        case .username(let username):
            tag("username")
            plain(username)
        case .phone(let phone):
            tag("phone")
            plain(phone)
        }
    }

    /// Surveys where a code goes: its kind, then its text.
    @inlinable public mutating func plain(_ value: CodeDestination) {
        switch value {
        case .email(let email):
            tag("email")
            plain(email)
        case .phone(let phone):
            tag("phone")
            plain(phone)
        }
    }

    /// Surveys the identifier a reset is for: its kind, then its text.
    @inlinable public mutating func plain(_ value: ResetIdentifier) {
        switch value {
        case .email(let email):
            tag("email")
            plain(email)
        case .usernameOrEmail(let identifier):
            tag("usernameOrEmail")
            plain(identifier)
        }
    }

    /// Surveys what a code cooldown is for: a destination and purpose, or a reset's identifier.
    @inlinable public mutating func plain(_ value: CodeTarget) {
        switch value {
        case .destination(let destination, let purpose):
            tag("destination")
            plain(destination)
            plain(purpose)
        case .reset(let identifier):
            tag("reset")
            plain(identifier)
        }
    }
}

import Testing

@testable import AuthCore
@testable import AuthVerification

/// The models' menus are as rich as the code they check: every field a user types is offered with
/// each class of invalid input the value types refuse, and time can pass to the expiry of the
/// access token a world holds, whatever timers are pending. A menu thinner than the code hides bugs: a reset by token that built its new password
/// without validation passed `authflow verify` while the menu offered the token only with a valid
/// password.
@Suite("Menus offer every class of invalid input, and every deadline")
struct InputClassTests {
    /// What a field holds.
    enum Kind: String, CaseIterable, Sendable {
        case email, password, code, phone, username, name, resetToken, identityToken, provider
    }

    /// Every class of invalid input the value types refuse.
    static let classes: [ValidationError] = [
        .emailMalformed, .emailTooLong, .usernameEmpty, .usernameTooLong, .usernameInvalidCharacters,
        .passwordTooShort(minimum: Password.minimumLength), .passwordTooLong(maximum: Password.maximumLength),
        .phoneMissingCountryCode, .phoneWrongLength, .phoneInvalidCharacters, .codeNotSixDigits, .nameEmpty, .nameTooLong,
        .resetTokenEmpty, .unsupportedProvider, .identityTokenEmpty,
    ]

    /// A class of non-ASCII input: the verdict the value types give it (`nil`: valid) and what
    /// sets it apart, which a reducer counting or reading something other than characters would
    /// misjudge.
    struct NonASCIIClass: Sendable {
        var name: String
        var kind: Kind
        var refusal: ValidationError?
        var matches: @Sendable (String) -> Bool
    }

    /// Whether `text` has a scalar outside ASCII.
    static func isNonASCII(_ text: String) -> Bool { text.unicodeScalars.contains { !$0.isASCII } }

    /// Every non-ASCII class the menus must offer: three passwords too short in characters and
    /// long enough in UTF-8 bytes, told apart by how they are written (so each is needed), a valid
    /// non-ASCII password, and the emails, usernames and names whose rule says what non-ASCII
    /// text is.
    static let nonASCIIClasses: [NonASCIIClass] = [
        NonASCIIClass(name: "too short, of two-byte letters", kind: .password, refusal: .passwordTooShort(minimum: Password.minimumLength)) {
            $0.utf8.count >= Password.minimumLength && $0.allSatisfy { $0.isLetter && $0.unicodeScalars.count == 1 && $0.utf8.count == 2 }
        },
        NonASCIIClass(name: "too short, with combining marks", kind: .password, refusal: .passwordTooShort(minimum: Password.minimumLength)) {
            $0.unicodeScalars.count >= Password.minimumLength && $0.unicodeScalars.contains { $0.properties.generalCategory == .nonspacingMark }
        },
        NonASCIIClass(name: "too short, of emoji", kind: .password, refusal: .passwordTooShort(minimum: Password.minimumLength)) {
            $0.unicodeScalars.count >= Password.minimumLength && $0.utf16.count >= Password.minimumLength
                && $0.unicodeScalars.contains { $0.properties.isEmojiPresentation }
        },
        NonASCIIClass(name: "valid, not ASCII", kind: .password, refusal: nil, matches: isNonASCII),
        NonASCIIClass(name: "malformed, not ASCII", kind: .email, refusal: .emailMalformed, matches: isNonASCII),
        NonASCIIClass(name: "invalid characters, a non-ASCII letter", kind: .username, refusal: .usernameInvalidCharacters) {
            $0.contains { !$0.isASCII && $0.isLetter }
        },
        NonASCIIClass(name: "blank, of non-ASCII spaces", kind: .name, refusal: .nameEmpty) {
            !$0.isEmpty && $0.allSatisfy { $0.isWhitespace && !$0.isASCII }
        },
    ]

    /// The kind of field a class of invalid input belongs to (exhaustive: a new class must say).
    static func kind(of error: ValidationError) -> Kind {
        switch error {
        case .emailMalformed, .emailTooLong: .email
        case .usernameEmpty, .usernameTooLong, .usernameInvalidCharacters: .username
        case .passwordTooShort, .passwordTooLong: .password
        case .phoneMissingCountryCode, .phoneWrongLength, .phoneInvalidCharacters: .phone
        case .codeNotSixDigits: .code
        case .nameEmpty, .nameTooLong: .name
        case .resetTokenEmpty: .resetToken
        case .unsupportedProvider: .provider
        case .identityTokenEmpty: .identityToken
        }
    }

    /// One typed field of an intent: its name, the kinds it may hold, and what was typed.
    struct Field {
        var name: String
        var kinds: [Kind]
        var value: String
    }

    /// Why `value` is refused as `kind`, by the value types (`nil`: valid).
    static func refusal(_ value: String, as kind: Kind) -> ValidationError? {
        func error<T>(_ result: Result<T, ValidationError>) -> ValidationError? {
            if case .failure(let error) = result { return error }
            return nil
        }
        switch kind {
        case .email: return error(Email.validate(value))
        case .password: return error(Password.validate(PasswordInput(value)))
        case .code: return error(VerificationCode.validate(CodeInput(value)))
        case .phone: return error(PhoneNumber.validate(value))
        case .username: return error(Username.validate(value))
        case .name: return error(PersonName.validate(value))
        case .resetToken: return error(ResetProof.validate(ResetToken(value)))
        case .identityToken: return value.trimmedForInput.isEmpty ? .identityTokenEmpty : nil
        case .provider: return ["google", "apple"].contains(value) ? nil : .unsupportedProvider
        }
    }

    /// The kind an identifier field holds for this value, among the kinds it may hold (an
    /// email-or-phone field reads the value as an email when it has an `@`).
    static func kind(of field: Field) -> Kind {
        guard field.kinds.count > 1 else { return field.kinds[0] }
        return field.value.contains("@") ? .email : field.kinds.first { $0 != .email }!
    }

    /// An intent's case and typed fields (exhaustive over each lifecycle's intents).
    static func fields(_ intent: CodeRegistration.Intent) -> (String, [Field]) {
        switch intent {
        case .submitEmail(let email): ("submitEmail", [Field(name: "email", kinds: [.email], value: email)])
        case .submitCode(let code): ("submitCode", [Field(name: "code", kinds: [.code], value: code.reveal())])
        case .requestNewCode: ("requestNewCode", [])
        case .startOver: ("startOver", [])
        }
    }

    static func fields(_ intent: OneTimeCodeSignIn.Intent, _ channel: OneTimeCodeSignIn.Channel) -> (String, [Field]) {
        switch intent {
        case .submitDestination(let destination):
            ("submitDestination", [Field(name: "destination", kinds: [channel == .email ? .email : .phone], value: destination)])
        case .submitCode(let code): ("submitCode", [Field(name: "code", kinds: [.code], value: code.reveal())])
        case .requestNewCode: ("requestNewCode", [])
        case .startOver: ("startOver", [])
        }
    }

    static func fields(_ intent: PasswordSignIn.Intent, _ identifiers: PasswordSignIn.IdentifierKind) -> (String, [Field]) {
        let kinds: [Kind] =
            switch identifiers {
            case .email: [.email]
            case .username: [.username]
            case .emailOrPhone: [.email, .phone]
            }
        switch intent {
        case .submit(let identifier, let password):
            return (
                "submit",
                [Field(name: "identifier", kinds: kinds, value: identifier), Field(name: "password", kinds: [.password], value: password.reveal())]
            )
        case .startOver: return ("startOver", [])
        }
    }

    static func fields(_ intent: Registration.Intent) -> (String, [Field]) {
        switch intent {
        case .submit(let input):
            // The form is told by which fields are filled in; its name is part of the case here.
            var fields: [Field] = []
            if !input.name.isEmpty { fields.append(Field(name: "name", kinds: [.name], value: input.name)) }
            if !input.email.isEmpty { fields.append(Field(name: "email", kinds: [.email], value: input.email)) }
            if !input.phone.isEmpty { fields.append(Field(name: "phone", kinds: [.phone], value: input.phone)) }
            if !input.username.isEmpty { fields.append(Field(name: "username", kinds: [.username], value: input.username)) }
            fields.append(Field(name: "password", kinds: [.password], value: input.password.reveal()))
            return ("submit(" + fields.map(\.name).joined(separator: ",") + ")", fields)
        case .startOver: return ("startOver", [])
        }
    }

    static func fields(_ intent: PasswordReset.Intent, _ style: PasswordReset.Style) -> (String, [Field]) {
        switch intent {
        case .requestReset(let identifier):
            let kinds: [Kind] = style == .emailedToken ? [.email, .username] : [.email]
            return ("requestReset", [Field(name: "identifier", kinds: kinds, value: identifier)])
        case .requestAgain: return ("requestAgain", [])
        case .submitCode(let code, let password):
            return (
                "submitCode",
                [Field(name: "code", kinds: [.code], value: code.reveal()), Field(name: "newPassword", kinds: [.password], value: password.reveal())]
            )
        case .submitToken(let token, let password):
            return (
                "submitToken",
                [
                    Field(name: "token", kinds: [.resetToken], value: token.reveal()),
                    Field(name: "newPassword", kinds: [.password], value: password.reveal()),
                ]
            )
        case .startOver: return ("startOver", [])
        }
    }

    static func fields(_ intent: SessionLifecycle.Intent) -> (String, [Field]) {
        switch intent {
        case .setPassword(let password): ("setPassword", [Field(name: "password", kinds: [.password], value: password.reveal())])
        case .changePassword(let old, let new):
            (
                "changePassword",
                [Field(name: "old", kinds: [.password], value: old.reveal()), Field(name: "new", kinds: [.password], value: new.reveal())]
            )
        case .call: ("call", [])
        case .logout: ("logout", [])
        case .credentialsRejected: ("credentialsRejected", [])
        case .deleteAccount: ("deleteAccount", [])
        }
    }

    static func fields(_ intent: OAuthSignIn.Intent) -> (String, [Field]) {
        switch intent {
        case .begin(let provider, _): ("begin", [Field(name: "provider", kinds: [.provider], value: provider)])
        case .signInNatively(let provider, let token, _, _, _, _, _):
            (
                "signInNatively",
                [
                    Field(name: "provider", kinds: [.provider], value: provider),
                    Field(name: "identityToken", kinds: [.identityToken], value: token.reveal()),
                ]
            )
        case .callback: ("callback", [])
        case .cancel: ("cancel", [])
        }
    }

    /// What a menu lacks: for each case and typed field, each class of invalid input and each
    /// non-ASCII class of the field's kinds that no intent of that case offers with every other
    /// field valid; and each case and field never offered valid.
    static func missing(_ menu: [(String, [Field])]) -> [String] {
        var offered: Set<String> = []
        var needed: Set<String> = []
        for (name, fields) in menu {
            let refusals = fields.map { refusal($0.value, as: kind(of: $0)) }
            for (position, field) in fields.enumerated() {
                for kind in field.kinds {
                    for error in classes where Self.kind(of: error) == kind { needed.insert("\(name).\(field.name): \(error)") }
                    for nonASCII in nonASCIIClasses where nonASCII.kind == kind { needed.insert("\(name).\(field.name): \(nonASCII.name)") }
                }
                needed.insert("\(name).\(field.name): valid")
                let othersValid = refusals.indices.allSatisfy { $0 == position || refusals[$0] == nil }
                guard othersValid else { continue }
                offered.insert("\(name).\(field.name): \(refusals[position].map { "\($0)" } ?? "valid")")
                for nonASCII in nonASCIIClasses
                where nonASCII.kind == kind(of: field) && nonASCII.refusal == refusals[position] && nonASCII.matches(field.value) {
                    offered.insert("\(name).\(field.name): \(nonASCII.name)")
                }
            }
        }
        return needed.subtracting(offered).sorted()
    }

    @Test("every class of invalid input belongs to a kind of field, and each listed class is a distinct one")
    func classesAreComplete() {
        #expect(Set(Self.classes).count == Self.classes.count)
        #expect(Set(Self.classes.map(Self.kind(of:))) == Set(Kind.allCases))
        #expect(Set(Self.nonASCIIClasses.map(\.name)).count == Self.nonASCIIClasses.count)
    }

    /// The non-ASCII inputs and the classes they stand for, with the counts that make each one
    /// matter.
    static let nonASCIIInputs: [(value: String, kind: Kind, class: String)] = [
        (Inputs.twoBytePassword.reveal(), .password, "too short, of two-byte letters"),
        (Inputs.combiningPassword.reveal(), .password, "too short, with combining marks"),
        (Inputs.emojiPassword.reveal(), .password, "too short, of emoji"),
        (Inputs.password.reveal(), .password, "valid, not ASCII"), (Inputs.newPassword.reveal(), .password, "valid, not ASCII"),
        (Inputs.longestEmojiPassword.reveal(), .password, "valid, not ASCII"),
        (Inputs.nonASCIIEmail, .email, "malformed, not ASCII"),
        (Inputs.nonASCIIUsername, .username, "invalid characters, a non-ASCII letter"),
        (Inputs.nonASCIIBlankName, .name, "blank, of non-ASCII spaces"),
    ]

    @Test("each non-ASCII input is of its class, and the value types and the source rules give it the same verdict")
    func nonASCIIInputsAreOfTheirClass() throws {
        for (value, kind, name) in Self.nonASCIIInputs {
            let nonASCII = try #require(Self.nonASCIIClasses.first { $0.name == name })
            #expect(nonASCII.kind == kind && Self.refusal(value, as: kind) == nonASCII.refusal && nonASCII.matches(value), "\(name)")
            let rule: (String) -> Bool =
                switch kind {
                case .password: SourceRules.isPassword
                case .email: SourceRules.isEmail
                case .username: SourceRules.isUsername
                case .name: SourceRules.isName
                case .code, .phone, .resetToken, .identityToken, .provider: { _ in false }
                }
            #expect(rule(value) == (nonASCII.refusal == nil), "the source rule and the value type disagree on \(name)")
        }
        // The counts that make each password matter: short in characters, long enough in the units
        // a broken reducer might count instead.
        let twoByte = Inputs.twoBytePassword.reveal()
        #expect((twoByte.count, twoByte.unicodeScalars.count, twoByte.utf16.count, twoByte.utf8.count) == (7, 7, 7, 14))
        let combining = Inputs.combiningPassword.reveal()
        #expect((combining.count, combining.unicodeScalars.count, combining.utf16.count, combining.utf8.count) == (7, 14, 14, 21))
        let emoji = Inputs.emojiPassword.reveal()
        #expect((emoji.count, emoji.unicodeScalars.count, emoji.utf16.count, emoji.utf8.count) == (4, 8, 16, 32))
        let valid = Inputs.password.reveal()
        #expect((valid.count, valid.unicodeScalars.count, valid.utf8.count) == (Password.minimumLength, 10, 17))
        let longest = Inputs.longestEmojiPassword.reveal()
        #expect((longest.count, longest.utf8.count) == (Password.maximumLength, 4 * Password.maximumLength))
        #expect(Self.refusal(longest + "\u{1F600}", as: .password) == .passwordTooLong(maximum: Password.maximumLength))
        #expect(!SourceRules.isPassword(longest + "\u{1F600}"))
    }

    @Test("each lifecycle's menu, in every configuration, offers every typed field valid and with each invalid class")
    func lifecycleMenusAreComplete() {
        var menus: [(String, [(String, [Field])])] = [("codeRegistration", Menus.codeRegistration.map(Self.fields))]
        for channel in [OneTimeCodeSignIn.Channel.email, .phone] {
            menus.append(("oneTimeCode(\(channel))", Menus.oneTimeCode(channel).map { Self.fields($0, channel) }))
        }
        for identifiers in [PasswordSignIn.IdentifierKind.email, .username, .emailOrPhone] {
            menus.append(("passwordSignIn(\(identifiers))", Menus.passwordSignIn(identifiers).map { Self.fields($0, identifiers) }))
        }
        for form in [Registration.Form.nameEmailPassword, .emailPassword, .phonePassword, .usernamePassword] {
            menus.append(("registration(\(form))", Menus.registration([form]).map(Self.fields)))
        }
        for style in [PasswordReset.Style.emailCodeWithAutoLogin, .emailedToken, .emailLink] {
            menus.append(("passwordReset(\(style))", Menus.passwordReset(style).map { Self.fields($0, style) }))
        }
        menus.append(("session", Menus.session(offeringCall: true).map(Self.fields)))
        menus.append(("oauth", Menus.oauth(in: Environment(model: Models.oauth()).initial).map(Self.fields)))
        for (name, menu) in menus {
            #expect(Self.missing(menu).isEmpty, "\(name) lacks: \(Self.missing(menu).joined(separator: "; "))")
        }
        // No two intents alike: Swift compares strings by canonical equivalence, so `"é"` and `"e"`
        // with a combining acute would be one intent to every `Set` and dictionary.
        #expect(Set(Menus.passwordSignIn(.username)).count == Menus.passwordSignIn(.username).count)
        #expect(Set(Menus.registration([.nameEmailPassword])).count == Menus.registration([.nameEmailPassword]).count)
        #expect(Set(Menus.passwordReset(.emailedToken)).count == Menus.passwordReset(.emailedToken).count)
        #expect(Set(Menus.session(offeringCall: true)).count == Menus.session(offeringCall: true).count)
    }

    @Test("the completeness check fails on the menu that hid the reset-by-token bug (the token only with a valid password)")
    func thinMenuIsCaught() {
        let thin: [PasswordReset.Intent] = [
            .requestReset(Inputs.username), .submitToken(Inputs.resetToken, newPassword: Inputs.password),
            .submitToken(Inputs.blankResetToken, newPassword: Inputs.password),
        ]
        let missing = Self.missing(thin.map { Self.fields($0, .emailedToken) })
        #expect(missing.contains("submitToken.newPassword: \(ValidationError.passwordTooShort(minimum: Password.minimumLength))"))
        #expect(missing.contains("requestReset.identifier: \(ValidationError.usernameTooLong)"))
    }

    /// `menu` without the non-ASCII invalid input: the menus as they were, every invalid value
    /// ASCII (the valid values kept).
    static func asciiInvalidOnly(_ menu: [(String, [Field])]) -> [(String, [Field])] {
        menu.filter { _, fields in
            fields.allSatisfy { refusal($0.value, as: kind(of: $0)) == nil || !isNonASCII($0.value) }
        }
    }

    @Test("the completeness check fails on a menu whose invalid input is all ASCII, and on one that lacks one non-ASCII class")
    func asciiMenuIsCaught() {
        for identifiers in [PasswordSignIn.IdentifierKind.email, .username] {
            let shipped = Menus.passwordSignIn(identifiers).map { Self.fields($0, identifiers) }
            #expect(Self.missing(shipped).isEmpty)
            let missing = Self.missing(Self.asciiInvalidOnly(shipped))
            for name in ["too short, of two-byte letters", "too short, with combining marks", "too short, of emoji"] {
                #expect(missing.contains("submit.password: \(name)"), "\(missing)")
            }
            let identifier = identifiers == .email ? "malformed, not ASCII" : "invalid characters, a non-ASCII letter"
            #expect(missing.contains("submit.identifier: \(identifier)"), "\(missing)")
            // One class left out: the others do not stand in for it.
            for (left, name) in [
                (Inputs.twoBytePassword, "too short, of two-byte letters"), (Inputs.combiningPassword, "too short, with combining marks"),
                (Inputs.emojiPassword, "too short, of emoji"),
            ] {
                // By scalars: `==` on strings is canonical equivalence.
                let thinner = shipped.filter { _, fields in !fields.contains { $0.value.unicodeScalars.elementsEqual(left.reveal().unicodeScalars) } }
                #expect(Self.missing(thinner) == ["submit.password: \(name)"])
            }
        }
        let registration = Menus.registration([.nameEmailPassword]).map(Self.fields)
        #expect(Self.missing(registration).isEmpty)
        let withoutBlankName = registration.filter { _, fields in !fields.contains { $0.value == Inputs.nonASCIIBlankName } }
        #expect(Self.missing(withoutBlankName) == ["submit(name,email,password).name: blank, of non-ASCII spaces"])
        // A menu whose valid passwords are ASCII hides a reducer that refuses the others.
        let asciiValid = Menus.session(offeringCall: true).map { intent -> SessionLifecycle.Intent in
            switch intent {
            case .setPassword(Inputs.password): .setPassword(PasswordInput("pw-valid-secret"))
            case .changePassword(Inputs.password, Inputs.newPassword): .changePassword(old: PasswordInput("pw-valid-secret"), new: Inputs.newPassword)
            default: intent
            }
        }
        #expect(Self.missing(asciiValid.map(Self.fields)) == ["changePassword.old: valid, not ASCII", "setPassword.password: valid, not ASCII"])
    }

    // MARK: Deadlines

    /// Every access token's expiry in `value`, found by reflection (not by the survey that names
    /// the deadlines).
    static func expiries(in value: Any) -> [Instant] {
        if let credentials = value as? Credentials { return credentials.expiresAt.map { [$0] } ?? [] }
        return Mirror(reflecting: value).children.flatMap { expiries(in: $0.value) }
    }

    /// Walks `model` for `steps` seeded random steps and returns each world where the menu does
    /// not offer time passing to the expiry of an access token the lifecycle's state holds, and
    /// each world where it offers a wait that does not move time.
    static func deadlinesNotOffered<M: LifecycleModel>(_ model: M, steps: Int, seed: UInt64) -> [String] {
        let environment = Environment(model: model)
        var random = SplitMix64(seed: seed)
        var snapshot = environment.initial
        var problems: [String] = []
        var walked = 0
        for _ in 0..<steps {
            let world = snapshot.world
            let ahead = Set(expiries(in: world.state).filter { $0 > world.now })
            let menu = environment.menu(snapshot)
            let offered = Set(menu.waits)
            if !ahead.isSubset(of: offered) { problems.append("\(snapshot.casePath): \(ahead.subtracting(offered).sorted()) not offered") }
            if offered.contains(where: { $0 <= world.now }) { problems.append("\(snapshot.casePath): a wait that does not move time") }
            guard let choice = Fuzzer.pick(in: menu, &random), let move = menu.move(choice) else { break }
            snapshot = environment.step(move, from: snapshot).after
            walked += 1
        }
        if walked < steps / 2 { problems.append("the walk stopped after \(walked) steps") }
        return problems
    }

    @Test(
        "in every world of a seeded walk of each shipped model, time can pass to the expiry of the access token the state holds, while nothing is in flight"
    )
    func everyDeadlineIsOffered() {
        func check<M: LifecycleModel>(_ model: M) {
            let problems = Self.deadlinesNotOffered(model, steps: 400, seed: 0xDEAD_11E5)
            #expect(problems.isEmpty, "\(model.name): \(problems.prefix(3).joined(separator: "; "))")
        }
        check(Models.codeRegistration())
        check(Models.oneTimeCode(.email))
        check(Models.oneTimeCode(.phone))
        check(Models.passwordSignIn())
        check(Models.registration())
        for style in [PasswordReset.Style.emailCodeWithAutoLogin, .emailedToken, .emailLink] { check(Models.passwordReset(style)) }
        check(Models.oauth())
        for backend in [Models.SessionBackend.anonymousWall, .everday, .subspace, .hero365] { check(Models.session(backend)) }
        check(Models.realtime())
        check(Models.anonymousWallApp())
        check(Models.vynqTalkApp())
        check(Models.everdayApp())
        check(Models.subspaceApp())
        check(Models.hero365App())
    }

    // MARK: The bugs thin menus hid

    /// Everday's reset by token, sending the new password as typed.
    static let resetTokenPasswordUnchecked = Mutant<PasswordReset>(SmallModels.passwordReset(.emailedToken)) {
        base, phase, event, requests in
        if case .intent(.submitToken(let token, let password), let intent, _) = event, case .awaitingProof(let identifier, let resendAt) = phase,
            case .success(let proof) = ResetProof.validate(token)
        {
            let id = requests.issue(for: intent)
            phase = .resetting(identifier, id, resendAt: resendAt)
            return [.send(id, .resetPassword(.token(proof), newPassword: Password(secret: password)))]
        }
        return base.step(&phase, event, &requests)
    }

    @Test(
        "a reset by token that sends its new password unvalidated breaks 'no request carries input the validation rejects' under the shipped menu, in 3 steps"
    )
    func resetTokenPasswordUncheckedIsCaught() {
        let model = SmallModels.PasswordResetModel(style: .emailedToken)("resetTokenPasswordUnchecked", Self.resetTokenPasswordUnchecked)
        let report = Explorer.explore(model)
        let violation = report.violations.first { $0.invariant == "no request carries input the validation rejects" }
        // Ask for a reset (1), the server sends the token (1), the token with a 7-character password (1).
        #expect(violation?.trace.count == 3, "\(report.violations.map { "\($0.invariant): \($0.trace.count)" })")
        let original = SmallModels.PasswordResetModel(style: .emailedToken)("passwordReset.emailedToken", SmallModels.passwordReset(.emailedToken))
        #expect(Explorer.explore(original).violations.isEmpty)
    }

    /// A sign-in that counts the password's UTF-8 bytes where the rule counts characters: seven
    /// two-byte letters pass as fourteen. It validates the identifier as the real one does.
    static let passwordCountedInBytes = Mutant<PasswordSignIn>(PasswordSignIn(identifiers: .username)) { base, phase, event, requests in
        guard case .intent(.submit(let rawIdentifier, let raw), let intent, _) = event, phase == .enteringCredentials,
            case .success(let identifier) = base.identifier(rawIdentifier)
        else { return base.step(&phase, event, &requests) }
        let bytes = raw.reveal().utf8.count
        guard bytes >= Password.minimumLength else { return [.reject(intent, .invalid(.passwordTooShort(minimum: Password.minimumLength)))] }
        guard bytes <= Password.maximumLength else { return [.reject(intent, .invalid(.passwordTooLong(maximum: Password.maximumLength)))] }
        let request = requests.issue(for: intent)
        phase = .signingIn(identifier, request)
        return [.send(request, .signIn(identifier, Password(secret: raw)))]
    }

    /// A sign-in that refuses every password with a character outside ASCII, valid or not.
    static let nonASCIIPasswordRefused = Mutant<PasswordSignIn>(PasswordSignIn(identifiers: .username)) { base, phase, event, requests in
        if case .intent(.submit(_, let raw), let intent, _) = event, phase == .enteringCredentials, !raw.reveal().allSatisfy(\.isASCII) {
            return [.reject(intent, .invalid(.passwordTooShort(minimum: Password.minimumLength)))]
        }
        return base.step(&phase, event, &requests)
    }

    /// `machine` under the model `authflow verify` explores `passwordSignIn` with (its answers,
    /// bounds, unreachable cases and invariants), offering `menu`: by default the shipped one.
    static func shippedPasswordSignIn<Machine: Lifecycle>(
        _ name: String, _ machine: Machine, menu: [PasswordSignIn.Intent] = Menus.passwordSignIn(.username)
    ) -> Model<Machine> where Machine.Intent == PasswordSignIn.Intent {
        let shipped = Models.passwordSignIn()
        return Model(
            name: name, machine: machine, replies: shipped.replies, relaunches: shipped.relaunches, finalCases: shipped.finalCases,
            unreachableByDesign: shipped.unreachableByDesign, codes: shipped.codeRules, timeHorizon: shipped.timeHorizon,
            maxInFlight: shipped.maxInFlight, maxStale: shipped.maxStale, endsServerSessions: shipped.endsServerSessions,
            historyHorizon: shipped.historyHorizon
        ) { _ in menu }
    }

    /// The shipped `passwordSignIn` menu as it was before its non-ASCII classes: every invalid
    /// value ASCII, the valid password ASCII too.
    static let asciiPasswordSignInMenu: [PasswordSignIn.Intent] = Menus.passwordSignIn(.username).compactMap { intent in
        guard case .submit(let identifier, let password) = intent else { return intent }
        if password == Inputs.password { return .submit(identifier: identifier, password: PasswordInput("pw-valid-secret")) }
        return identifier.allSatisfy(\.isASCII) && password.reveal().allSatisfy(\.isASCII) ? intent : nil
    }

    @Test("the model the mutants below are explored under is the shipped passwordSignIn model: its menu, answers, bounds, invariants, states")
    func shippedModelIsTheShippedOne() {
        let shipped = Models.passwordSignIn()
        let copy = Self.shippedPasswordSignIn("copy", shipped.machine)
        #expect(copy.intents(in: Environment(model: copy).initial) == shipped.intents(in: Environment(model: shipped).initial))
        #expect(copy.invariants.map(\.name) == shipped.invariants.map(\.name))
        #expect((copy.maxInFlight, copy.maxStale) == (shipped.maxInFlight, shipped.maxStale))
        let (mine, theirs) = (Explorer.explore(copy), Explorer.explore(shipped))
        #expect(mine.passed && theirs.passed)
        #expect((mine.states, mine.transitions) == (theirs.states, theirs.transitions))
    }

    @Test(
        "a sign-in that counts the password in UTF-8 bytes breaks 'no request carries input the validation rejects' under the shipped menu in 1 step, and passed the ASCII-only one"
    )
    func passwordCountedInBytesIsCaught() throws {
        let report = Explorer.explore(Self.shippedPasswordSignIn("passwordCountedInBytes", Self.passwordCountedInBytes))
        let violation = try #require(report.violations.first { $0.invariant == "no request carries input the validation rejects" })
        // Submit seven two-byte letters (1): 14 bytes, sent.
        #expect(violation.trace.count == 1, "\(violation)")
        #expect(Set(report.violations.map(\.invariant)) == ["no request carries input the validation rejects"])
        // The verdict counts the one event in the singular.
        #expect(report.verdict.hasPrefix("violated: no request carries input the validation rejects (1 step)"), "\(report.verdict)")
        // Under the menus as they were, every invalid password ASCII: nothing to see.
        let ascii = Explorer.explore(
            Self.shippedPasswordSignIn("passwordCountedInBytes", Self.passwordCountedInBytes, menu: Self.asciiPasswordSignInMenu))
        #expect(ascii.passed, "\(ascii.violations.map(\.description)) \(ascii.findings)")
        #expect(Explorer.explore(Self.shippedPasswordSignIn("passwordSignIn", Self.passwordCountedInBytes.base)).passed)
    }

    /// No invariant sees a valid input refused: the refusal sends nothing. The shipped menus offer
    /// only non-ASCII valid passwords, so the cases after a sign-in go unreached, which the
    /// explorer reports, and `authflow verify` fails.
    @Test("a sign-in that refuses non-ASCII passwords leaves signing in unreached under the shipped menu, and passed the ASCII-only one")
    func nonASCIIPasswordRefusedIsCaught() {
        let report = Explorer.explore(Self.shippedPasswordSignIn("nonASCIIPasswordRefused", Self.nonASCIIPasswordRefused))
        #expect(report.violations.isEmpty, "no invariant sees a refusal")
        let unreached = Set(report.findings.filter { $0.kind == .unreachedCase }.map(\.detail))
        #expect(unreached.isSuperset(of: ["PasswordSignIn.Phase.signingIn", "PasswordSignIn.Phase.signedIn"]), "\(report.findings)")
        #expect(!report.passed)
        let ascii = Explorer.explore(
            Self.shippedPasswordSignIn("nonASCIIPasswordRefused", Self.nonASCIIPasswordRefused, menu: Self.asciiPasswordSignInMenu))
        #expect(ascii.passed, "\(ascii.violations.map(\.description)) \(ascii.findings)")
    }
}

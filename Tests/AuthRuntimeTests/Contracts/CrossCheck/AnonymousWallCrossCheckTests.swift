import AuthCore
import AuthRuntime
import Foundation
import Testing

@Suite("Cross-check against the reference server: Anonymous Wall", .timeLimit(.minutes(15)))
struct AnonymousWallCrossCheckTests {
    static let student = "student@harvard.edu"

    @Test("email code → register (signed in, password not set) → set password → password login → change → reset with automatic sign-in")
    func wholeLifecycle() async throws {
        try await withReference(.anonymousWall) { wall in
            let email = try Typed.email(Self.student)
            #expect(try await wall.send(.sendEmailCode(email, .register)) == .accepted("Verification code sent to email"))
            let registered = try await wall.send(.registerWithEmailCode(email, try Typed.code(try wall.lastCode(to: Self.student))))
            guard let grant = registered.grant() else { return }
            #expect(grant.user.passwordSet == false)
            #expect(grant.user.email == Self.student)
            #expect(grant.refreshToken == nil)
            #expect(grant.expiry == .at(.afterReferenceNow(3600)))

            let bearer = Bearer(token: grant.accessToken, userID: grant.user.id)
            let set = try await wall.send(.setPassword(try Typed.password("secure_password"), bearer))
            #expect(set.withoutUserAttributes == .user(UserProfile(id: grant.user.id, email: Self.student, passwordSet: true)))

            let signedIn = try await wall.send(.signIn(.email(email), try Typed.password("secure_password"))).grant()
            #expect(signedIn?.user.passwordSet == true)

            let changed = try await wall.send(
                .changePassword(old: try Typed.password("secure_password"), new: try Typed.password("new_password"), bearer))
            #expect(changed.withoutUserAttributes == .user(UserProfile(id: grant.user.id, email: Self.student, passwordSet: true)))
            #expect(
                try await wall.send(.signIn(.email(email), try Typed.password("secure_password"))).failure
                    == .unauthorized("Invalid email or password"))

            #expect(try await wall.send(.requestPasswordReset(.email(email))) == .accepted("Password reset code sent to email"))
            let reset = try await wall.send(
                .resetPassword(
                    .emailCode(email, try Typed.code(try wall.lastCode(to: Self.student))), newPassword: try Typed.password("myNewPassword789")))
            #expect(reset.grant()?.user.id == grant.user.id)
            #expect(try await wall.send(.signIn(.email(email), try Typed.password("myNewPassword789"))).grant() != nil)
        }
    }

    @Test("sign-in with an emailed code, after asking for a login code")
    func codeSignIn() async throws {
        try await withReference(.anonymousWall) { wall in
            let email = try Typed.email("student@nyu.edu")
            #expect(try await wall.send(.sendEmailCode(email, .login)) == .accepted("Verification code sent to email"))
            let grant = try await wall.send(.signInWithEmailCode(email, try Typed.code(try wall.lastCode(to: "student@nyu.edu")))).grant()
            #expect(grant?.user.email == "student@nyu.edu")
        }
    }

    @Test("the taxonomy: 403 for a non-school address, 409 for a registered one, 400 for a wrong code, 401 for a bad password")
    func refusals() async throws {
        try await withReference(.anonymousWall) { wall in
            let outsider = try Typed.email("someone@gmail.com")
            guard case .failed(.forbidden(let message)) = try await wall.send(.sendEmailCode(outsider, .register)) else {
                Issue.record("a non-school address is not forbidden")
                return
            }
            #expect(message == "Only school email addresses are allowed")

            let email = try Typed.email(Self.student)
            _ = try await wall.send(.sendEmailCode(email, .register))
            let wrong = try wall.lastCode(to: Self.student) == "000000" ? "111111" : "000000"
            #expect(
                try await wall.send(.registerWithEmailCode(email, try Typed.code(wrong))).failure
                    == .badRequest("Invalid or expired verification code"))
            _ = try await wall.send(.registerWithEmailCode(email, try Typed.code(try wall.lastCode(to: Self.student))))
            #expect(try await wall.send(.sendEmailCode(email, .register)).failure == .conflict("Email already registered"))
            #expect(
                try await wall.send(.signIn(.email(email), try Typed.password("not-the-password"))).failure
                    == .unauthorized("Invalid email or password"))
        }
    }

    @Test("set password needs the bearer and the matching X-User-Id: a stranger's id is forbidden, a dead token unauthorized")
    func userHeader() async throws {
        try await withReference(.anonymousWall) { wall in
            let email = try Typed.email(Self.student)
            _ = try await wall.send(.sendEmailCode(email, .register))
            guard let grant = try await wall.send(.registerWithEmailCode(email, try Typed.code(try wall.lastCode(to: Self.student)))).grant()
            else { return }
            let password = try Typed.password("secure_password")
            guard case .failed(.forbidden) = try await wall.send(.setPassword(password, Bearer(token: grant.accessToken, userID: "someone-else")))
            else { Issue.record("a mismatched X-User-Id was not refused"); return }
            guard case .failed(.unauthorized) = try await wall.send(.setPassword(password, Bearer(token: AccessToken("dead"), userID: grant.user.id)))
            else { Issue.record("a dead token was not refused"); return }
            guard case .user = try await wall.send(.setPassword(password, Bearer(token: grant.accessToken, userID: grant.user.id))) else {
                Issue.record("the right bearer was refused")
                return
            }
        }
    }

    @Test("answers in plain ISO dates decode as well as the zoned form the API document prints")
    func isoDates() async throws {
        try await withReference(.anonymousWall, configure: { $0.anonymousWall.dateStyle = .iso8601 }) { wall in
            let email = try Typed.email(Self.student)
            _ = try await wall.send(.sendEmailCode(email, .register))
            #expect(try await wall.send(.registerWithEmailCode(email, try Typed.code(try wall.lastCode(to: Self.student)))).grant() != nil)
        }
    }

    @Test("a token without an exp claim has an unknown expiry, never an instant sign-out")
    func tokenWithoutExp() async throws {
        try await withReference(.anonymousWall, configure: { $0.anonymousWall.tokens.includesExpiryClaim = false }) { wall in
            let email = try Typed.email(Self.student)
            _ = try await wall.send(.sendEmailCode(email, .register))
            let grant = try await wall.send(.registerWithEmailCode(email, try Typed.code(try wall.lastCode(to: Self.student)))).grant()
            #expect(grant?.expiry == .unknown)
        }
    }
}

import Testing
@testable import AuthCore

/// A refresh answer that describes the user (Everday's carries `Role` and the names again) updates
/// the stored profile: the renewed credentials take its role and fields.
@Suite("Refreshed profile")
struct RefreshedProfileTests {
    static let session = Apps.everday().session
    static let kid = UserProfile(
        id: Samples.userID, email: Samples.emailText, name: "New Kid", role: .kid, attributes: ["DiscordHandle": .string("kid#1")])
    static let parent = UserProfile(
        id: Samples.userID, email: Samples.emailText, name: "New Kid", role: .parent, attributes: ["DiscordHandle": .null])

    /// A session signed in as `user` at `t0`, with a refresh on its way.
    static func refreshing(_ user: UserProfile) -> (SessionLifecycle.Phase, FlowContext, RequestID) {
        var requests = FlowContext()
        let grant = Grant(accessToken: Samples.access1, refreshToken: Samples.refresh1, expiry: .after(Samples.lifetime), user: user)
        var (phase, _) = session.begin(grant, at: Samples.t0, &requests)
        let refreshID = Samples.r(requests.next)
        let effects = session.step(&phase, .tick(Samples.at(1740)), &requests)
        #expect(effects.contains(.send(refreshID, .refresh(Samples.refresh1))))
        return (phase, requests, refreshID)
    }

    static func user(in phase: SessionLifecycle.Phase) -> UserProfile? {
        guard case .active(let active) = phase else { return nil }
        return active.credentials.user
    }

    @Test("a refresh answer's new role and fields replace the old ones, in the session and in what is persisted")
    func newRoleReplacesTheOld() {
        var (phase, requests, refreshID) = Self.refreshing(Self.kid)
        #expect(Self.user(in: phase)?.role == .kid)
        let tokens = TokenRefresh(accessToken: Samples.access2, refreshToken: Samples.refresh2, expiry: .after(Samples.lifetime), user: Self.parent)
        let effects = Self.session.step(&phase, .reply(refreshID, .refreshed(tokens), at: Samples.at(1741)), &requests)
        let user = Self.user(in: phase)
        #expect(user == Self.parent)
        #expect(user?.role == .parent)
        #expect(user?.role?.rawValue == "Parent")
        #expect(user?.attributes["DiscordHandle"] == .null)
        guard case .persist(let persisted)? = effects.first else {
            Issue.record("the refresh did not persist first: \(effects)")
            return
        }
        #expect(persisted.user.role == .parent)
    }

    @Test("a refresh answer without a user keeps the stored profile")
    func noUserKeepsTheProfile() {
        var (phase, requests, refreshID) = Self.refreshing(Self.kid)
        let effects = Self.session.step(&phase, .reply(refreshID, .refreshed(Samples.rotated), at: Samples.at(1741)), &requests)
        #expect(Self.user(in: phase) == Self.kid)
        #expect(effects.contains(.emit(.tokenRefreshed)))
    }

    @Test("a refresh answer that describes another user, or lifts a demanded password change, does not change who is signed in")
    func otherUserIsNotAdopted() {
        var stranger = Self.parent
        stranger.id = "someone-else"
        let credentials = Credentials(
            accessToken: Samples.access1, refreshToken: Samples.refresh1,
            user: UserProfile(id: Samples.userID, passwordChangeRequired: true, role: .kid))
        let other = Self.session.renew(
            credentials, with: TokenRefresh(accessToken: Samples.access2, refreshToken: nil, user: stranger), at: Samples.t0)
        #expect(other.user == credentials.user)
        let same = Self.session.renew(
            credentials, with: TokenRefresh(accessToken: Samples.access2, refreshToken: nil, user: Self.parent), at: Samples.t0)
        #expect(same.user.role == .parent)
        #expect(same.user.passwordChangeRequired, "a password change demanded at sign-in is not lifted by a refresh")
    }

    @Test("roles compare by the server's exact spelling; descriptions show neither role nor attributes")
    func spellingAndDescriptions() {
        #expect(UserRole.parent == "Parent")
        #expect(UserRole("parent") != .parent)
        #expect(Self.kid.description == "user(\(Samples.userID))")
        #expect(UserAttribute.string("kid#1").description == "string")
        #expect(UserAttribute.object(["a": .string("secret-ish")]).description == "object(1)")
        #expect(!String(describing: TokenRefresh(accessToken: Samples.access2, refreshToken: nil, user: Self.kid)).contains("kid#1"))
    }
}

import AuthCore
import Testing

@testable import AuthVerification

/// What per-value memos key on instead of the values: an environment's numbers for event
/// payloads, and digests of effects. A key or digest shared by two different values would let
/// one's verdict (no secret shown, not a logout) stand for the other's unchecked.
@Suite("Event keys and effect digests")
struct EventKeyTests {
    @Test("one table gives equal payloads one key and different payloads different keys; another table's keys are its own")
    func keysNamePayloads() {
        let table = EventTable<String>()
        let other = EventTable<String>()
        #expect(table.key(.intent("a")) == table.key(.intent("a")))
        #expect(table.key(.intent("a")) != table.key(.intent("b")))
        #expect(table.key(.intent("a")) != table.key(.reply(.accepted(nil))))
        #expect(table.key(.reply(.accepted(nil))) == table.key(.reply(.accepted(nil))))
        #expect(other.key(.intent("a")) != table.key(.intent("a")))
        #expect(table.keys(of: ["b", "a", "c"]) == [table.key(.intent("b")), table.key(.intent("a")), table.key(.intent("c"))])
    }

    @Test("relaunches finding different credentials get different keys, in any order (the last credentials' key is kept, not hashed again)")
    func launchKeys() {
        func credentials(_ n: Int) -> Credentials {
            Credentials(accessToken: AccessToken("tok-at-\(n)"), refreshToken: RefreshToken("tok-rt-\(n)"), user: UserProfile(id: "u1"))
        }
        let table = EventTable<String>()
        let first = table.key(.launched(.stored(credentials(1))))
        let second = table.key(.launched(.stored(credentials(2))))
        #expect(first != second)
        #expect(table.key(.launched(.stored(credentials(2)))) == second)
        #expect(table.key(.launched(.stored(credentials(1)))) == first)
        #expect(table.key(.launched(.unreadable)) != first)
        #expect(table.key(.launched(.stored(credentials(1)))) == first)
        #expect(table.key(.launched(.stored(credentials(3)))) != first)
    }

    @Test("a move's key is dropped when its event is changed: it numbered the payload the move was built with")
    func changedEventDropsTheKey() throws {
        let environment = Environment(model: Models.passwordSignIn())
        var move = try #require(environment.moves(environment.initial).first { $0.key != nil })
        let kept = move
        move.choice = .intent(7)
        #expect(move.key == kept.key)
        move.event = .tick(.seconds(1))
        #expect(move.key == nil)
    }

    static let credentials = Credentials(
        accessToken: AccessToken("tok-at-1"), refreshToken: RefreshToken("tok-rt-1"), expiresAt: .seconds(5), user: UserProfile(id: "u1"))

    @Test("an effect's digest is its value exactly: tokens and ids are not renamed, instants are not made relative")
    func digestsAreExact() {
        typealias D = Described<String>
        var other = Self.credentials
        other.expiresAt = Instant(milliseconds: 5_001)
        let pairs: [(AuthEffect, AuthEffect)] = [
            (.send(RequestID(1), .refresh(RefreshToken("tok-rt-1"))), .send(RequestID(1), .refresh(RefreshToken("tok-rt-2")))),
            (.persist(Self.credentials), .persist(other)),
            (.finish(IntentID(1), .answered(RequestID(3))), .finish(IntentID(1), .answered(RequestID(4)))),
            (.finish(IntentID(1), .sessionEnded), .finish(IntentID(1), .signedOut)),
            (.emit(.offline), .emit(.tokenRefreshed)),
            (.send(RequestID(1), .refresh(RefreshToken("tok-rt-1"))), .persist(Self.credentials)),
        ]
        for (one, another) in pairs {
            #expect(D.digest(one) != nil)
            #expect(D.digest(one) == D.digest(one))
            #expect(D.digest(one) != D.digest(another), "\(one) and \(another)")
        }
    }

    @Test(
        "a request's or an intent's id is left out of its digest (one request or answer is scanned once whatever its id); effects without text have none"
    )
    func digestLeavesOutIds() {
        typealias D = Described<String>
        let request = APIRequest.refresh(RefreshToken("tok-rt-1"))
        #expect(D.digest(.send(RequestID(1), request)) == D.digest(.send(RequestID(9), request)))
        #expect(D.digest(.finish(IntentID(1), .signedOut)) == D.digest(.finish(IntentID(7), .signedOut)))
        for effect: AuthEffect in [.cancel(RequestID(1)), .clearCredentials, .cancelTimer(.proactiveRefresh), .closeRealtime(RequestID(2))] {
            #expect(D.digest(effect) == nil)
        }
    }
}

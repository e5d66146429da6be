import AuthCore
@testable import AuthflowKit
import AuthSupport
import ReferenceBackend
import AuthTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A blocking GET: the status, or `nil` when nothing answered.
func statusOfGET(_ url: String) -> Int? {
    guard let url = URL(string: url) else { return nil }
    let done = DispatchSemaphore(value: 0)
    let status = Locked<Int?>(nil)
    let session = URLSession.loopback()
    defer { session.invalidateAndCancel() }
    session.dataTask(with: URLRequest(url: url, timeoutInterval: 10)) { _, response, _ in
        status.withLock { $0 = (response as? HTTPURLResponse)?.statusCode }
        done.signal()
    }.resume()
    done.wait()
    return status.withLock { $0 }
}

/// Runs `body` on a thread of its own (not one of Swift concurrency's few), for commands that block.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

@Suite("authflow serve", .timeLimit(.minutes(15)))
struct ServeCommandTests {
    @Test("serve prints the base URLs, the outbox and the faults URL, answers requests while running, and stops")
    func servesAndStops() throws {
        var out: [String] = []
        var port: UInt16 = 0
        var answered: (health: Int?, outbox: Int?, login: Int?)
        let arguments = try Arguments.parse(["serve", "--port", "0"], valued: Authflow.valued, flags: Authflow.flags)
        let status = try Authflow.serve(arguments, out: { out.append($0) }, err: { Issue.record("unexpected error: \($0)") }) { running in
            port = running.port
            answered = (
                statusOfGET("http://127.0.0.1:\(port)/subspace/health"),
                statusOfGET("http://127.0.0.1:\(port)/__dev/outbox?to=kid@school.edu"),
                statusOfGET("http://127.0.0.1:\(port)/everday/api/auth/login")
            )
        }
        #expect(status == 0)
        #expect(port != 0)
        #expect(answered.health == 200)
        #expect(answered.outbox == 200)
        #expect(answered.login == 405, "the documented path answers (POST only)")
        let text = out.joined(separator: "\n")
        for prefix in ["anonymouswall", "vynqtalk", "everday", "subspace", "hero365", "oidc"] {
            #expect(text.contains("http://127.0.0.1:\(port)/\(prefix)"))
        }
        #expect(text.contains("API: http://127.0.0.1:\(port)/everday/api"))
        #expect(text.contains("GET    http://127.0.0.1:\(port)/__dev/outbox?to=<email-or-phone>"))
        #expect(text.contains("POST   http://127.0.0.1:\(port)/__dev/faults"))
        #expect(text.contains("ws://127.0.0.1:\(port)/vynqtalk/ws?token=<accessToken>"))
        #expect(out.last == "stopped")
        #expect(statusOfGET("http://127.0.0.1:\(port)/subspace/health") == nil, "nothing listens once stopped")
    }

    @Test("serve answers the documented forms by default and the deployed ones with --deployed, and says which", arguments: [false, true])
    func deployedSwitch(deployed: Bool) throws {
        var out: [String] = []
        var forms: [Bool] = []
        let words = ["serve", "--port", "0"] + (deployed ? ["--deployed"] : [])
        let arguments = try Arguments.parse(words, valued: Authflow.valued, flags: Authflow.flags)
        let status = try Authflow.serve(arguments, out: { out.append($0) }, err: { Issue.record("unexpected error: \($0)") }) { running in
            let configuration = running.server.configuration
            forms = [
                configuration.subspace.deployed, configuration.hero365.deployed, configuration.anonymousWall.deployed,
                configuration.vynqTalk.tokens.expiryClaim == "expiration",
            ]
        }
        #expect(status == 0)
        #expect(forms == Array(repeating: deployed, count: 4))
        #expect(out.joined(separator: "\n").contains("answering as the deployed servers do") == deployed)
    }

    @Test("each of the client's backends is served as the reference server's backend of its name")
    func backendMounts() {
        for shipped in ShippedBackend.all {
            #expect(shipped.served.rawValue == shipped.backend.id)
        }
        #expect(Set(ShippedBackend.all.map(\.served)) == Set(ServedBackend.allCases))
        #expect(ShippedBackend.all.count == ServedBackend.allCases.count)
    }

    @Test("--backend mounts one backend at the root; names are read in any casing")
    func oneBackend() throws {
        #expect(DevServer.backends(named: "anonymous-wall") == [.anonymousWall])
        #expect(DevServer.backends(named: "Everday") == [.everday])
        #expect(DevServer.backends(named: "all")?.count == 6)
        #expect(DevServer.backends(named: "oidc") == [.openIDConnect])
        #expect(DevServer.backends(named: "myspace") == nil)
        let running = try DevServer(backends: [.everday], port: 0)
        defer { running.stop() }
        #expect(running.banner.contains { $0.hasSuffix("API: http://127.0.0.1:\(running.port)/api") })
        #expect(statusOfGET("http://127.0.0.1:\(running.port)/api/auth/login") == 405)
    }

    @Test(
        "serve refuses an unknown backend, a port out of range and stray arguments before listening",
        arguments: [
            ["serve", "--backend", "myspace"], ["serve", "--port", "70000"], ["serve", "everday"], ["serve", "--port", "http"],
        ])
    func refusals(words: [String]) {
        let run = CommandRun(words)
        #expect(run.status == 64)
        #expect(run.out.isEmpty)
        #expect(run.err.count == 1)
    }

    @Test("the usage text documents serve and demo and no longer calls them unbuilt")
    func usage() {
        #expect(Authflow.usage.contains("authflow serve [--backend NAME|all] [--port 8080]"))
        #expect(Authflow.usage.contains("authflow demo "))
    }
}

@Suite("authflow demo", .timeLimit(.minutes(15)))
struct DemoCommandTests {
    static let backends = ["Anonymous Wall", "VynqTalk", "Everday", "Subspace", "Hero365", "OpenID Connect"]

    @Test("the demo runs to completion, prints every backend's client calls, requests, results and states and a summary, and exits 0")
    func runsToCompletion() async {
        let lines = Locked<[String]>([])
        let status = await Demo.run { line in lines.withLock { $0.append(line) } }
        let out = lines.withLock { $0 }
        #expect(status == 0, "\(out.filter { $0.contains("✗") })")
        for backend in Self.backends {
            #expect(out.contains { $0.hasPrefix("━━ \(backend) ") }, "no tour of \(backend)")
            #expect(out.contains { $0.hasPrefix("  ✓ \(backend)") }, "\(backend) is not ✓ in the summary")
        }
        #expect(out.last == "✓ every lifecycle ran as its API document describes")
        #expect(out.contains("    signIn(username:password:)"))
        #expect(out.contains("    ★ pendingApproval"))
        #expect(out.contains("    → pendingApproval"))
        #expect(out.contains("    ⇄ POST /everday/api/auth/refresh → 200"))
        #expect(out.contains { $0.hasPrefix("    → signedIn(user(") })
        #expect(out.filter { $0.hasPrefix("  ▸ ") }.count >= 30)
        // Descriptions only: no secret, and none of Swift's generic type paths.
        for secret in ["Passw0rd!123", "ParentPassw0rd!", "N3wPassw0rd!", "R3setPassw0rd!", "eyJ"] {
            #expect(!out.contains { $0.contains(secret) }, "\(secret) printed")
        }
        #expect(!out.contains { $0.contains("AuthCore.") || $0.contains("first(") || $0.contains("Optional(") })
    }

    @Test("`authflow demo` prints as it goes and exits 0; it takes no arguments")
    func command() async {
        let run = await onOwnThread { CommandRun(["demo"]) }
        #expect(run.status == 0)
        #expect(run.out.first == "authflow demo — each backend's main lifecycle, over HTTP, through its client")
        #expect(run.out.last == "✓ every lifecycle ran as its API document describes")
        #expect(run.err.isEmpty)
        #expect(CommandRun(["demo", "everday"]).status == 64)
    }

    @Test("readable descriptions drop generic type paths and the wrappers that only say which flow is active")
    func readable() {
        let raw =
            "signedOut(AuthCore.Either<AuthCore.Registration.Phase, AuthCore.Either<AuthCore.PasswordSignIn.Phase, "
            + "AuthCore.PasswordReset.Phase>>.second(AuthCore.Either<AuthCore.PasswordSignIn.Phase, AuthCore.PasswordReset.Phase>"
            + ".first(AuthCore.PasswordSignIn.Phase.signingIn(username(kid), r1))))"
        #expect(DemoText.readable(raw) == "signedOut(signingIn(username(kid), r1))")
        #expect(
            DemoText.readable("passwordSetupRequired(credentials(user(u1)), pending: Optional(r3))")
                == "passwordSetupRequired(credentials(user(u1)), pending: r3)")
        #expect(DemoText.readable("user(firstName(x))") == "user(firstName(x))")
    }
}

import AuthCore
import AuthRuntime
import AuthSupport
import AuthTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real OAuth 2.0 / OpenID Connect server: django-oauth-toolkit, configured by the Django
/// project in `Tests/OAuthServer/`, run by a Python that has it, on a free loopback port.
///
/// Where the Python is: `AUTHCORE_OAUTH_SERVER_PYTHON`, else `.build/oauth-venv/bin/python`
/// (what `.ci/run` makes). Without one that imports Django and django-oauth-toolkit the suites
/// using it are skipped, with one line saying how to install them; with
/// `AUTHCORE_REQUIRE_OAUTH_SERVER=1` (CI) they run and fail instead.
struct OAuthServer: Sendable {
    /// The Django project.
    static let project = Checkout.root.appendingPathComponent("Tests/OAuthServer")
    /// What `manage.py authcore_setup` creates (`Tests/OAuthServer/authcore_oauth/management/commands/authcore_setup.py`).
    static let username = "alice"
    static let password = "correct horse battery staple"
    static let clientID = "authcore-app"
    static let redirectURI = URL(string: "org.authcore.tests:/oauth2redirect")!
    static let introspectionClient = (id: "authcore-introspection", secret: "introspection-secret")
    /// The public client of the device authorization grant (RFC 8628).
    static let deviceClientID = "authcore-device"

    /// `http://127.0.0.1:<port>`.
    let baseURL: URL
    /// The issuer: DOT is mounted at `/o/`.
    var issuer: URL { baseURL.appendingPathComponent("o") }

    // MARK: Whether it can run

    /// `AUTHCORE_REQUIRE_OAUTH_SERVER=1`: a server that cannot start fails the tests.
    static let isRequired = ProcessInfo.processInfo.environment["AUTHCORE_REQUIRE_OAUTH_SERVER"] == "1"

    /// The Python to run the server with, when there is one.
    static let python: URL? = {
        if let given = ProcessInfo.processInfo.environment["AUTHCORE_OAUTH_SERVER_PYTHON"], !given.isEmpty {
            return URL(fileURLWithPath: given)
        }
        let venv = Checkout.root.appendingPathComponent(".build/oauth-venv/bin/python")
        return FileManager.default.isExecutableFile(atPath: venv.path) ? venv : nil
    }()

    /// Whether the Python imports Django and django-oauth-toolkit. When it cannot and the server
    /// is not required, says once how to install them.
    static let isInstalled: Bool = {
        var installed = false
        if let python {
            let check = Process()
            check.executableURL = python
            check.arguments = ["-c", "import django, oauth2_provider"]
            check.standardOutput = FileHandle.nullDevice
            check.standardError = FileHandle.nullDevice
            installed =
                (try? check.run()) != nil
                && {
                    check.waitUntilExit(); return check.terminationStatus == 0
                }()
        }
        if !installed && !isRequired {
            print(
                "Skipping the django-oauth-toolkit end-to-end tests: to run them, python3 -m venv .build/oauth-venv && "
                    + ".build/oauth-venv/bin/pip install -r Tests/OAuthServer/requirements.txt")
        }
        return installed
    }()

    /// Whether the suites using the server run: it is installed, or required (and then fails).
    static var shouldRun: Bool { isInstalled || isRequired }

    // MARK: Starting and stopping

    /// Why the server could not start, with its log.
    struct StartFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// Where ``template`` is made: removed when the test process exits.
    private static let templateFolder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "AuthCoreOAuthServer-\(UUID().uuidString)")

    /// The database, signing key, applications and user, made once per test process
    /// (`manage.py authcore_setup`); every server starts from a copy.
    private static let template = Task<URL, any Error> {
        guard let python, isInstalled else {
            throw StartFailure(
                description: "AUTHCORE_REQUIRE_OAUTH_SERVER=1, but no Python with Django and django-oauth-toolkit "
                    + "(set AUTHCORE_OAUTH_SERVER_PYTHON, or pip install -r Tests/OAuthServer/requirements.txt into .build/oauth-venv)")
        }
        let folder = templateFolder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: OAuthServer.templateFolder) }
        let log = folder.appendingPathComponent("setup.log")
        let setup = try Running(["manage.py", "authcore_setup"], python: python, data: folder, log: log)
        let status = await setup.exit()
        guard status == 0 else {
            throw StartFailure(description: "manage.py authcore_setup exited \(status): \(Self.text(of: log))")
        }
        return folder
    }

    /// Starts a server on its own copy of the template, runs `body` with it, and stops it.
    static func with<T>(_ body: (OAuthServer) async throws -> T) async throws -> T {
        let template = try await template.value
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        for file in ["db.sqlite3", "oidc.key"] {
            try FileManager.default.copyItem(at: template.appendingPathComponent(file), to: folder.url.appendingPathComponent(file))
        }
        let log = folder.url.appendingPathComponent("server.log")
        let process = try Running(["manage.py", "authcore_serve"], python: try #require(python), data: folder.url, log: log, readingOutput: true)
        do {
            // `authcore_serve` prints its address once it listens; a hang is cut off after a minute.
            let hangGuard = Task {
                try await Task.sleep(for: .seconds(60))
                process.stop()
            }
            let address = await process.firstLine()
            hangGuard.cancel()
            guard let address, address.hasPrefix("http://127.0.0.1:"), let baseURL = URL(string: address) else {
                throw StartFailure(description: "manage.py authcore_serve did not start: \(Self.text(of: log))")
            }
            let server = OAuthServer(baseURL: baseURL)
            try await server.waitUntilAnswering(log: log)
            let result = try await body(server)
            process.stop()
            _ = await process.exit()
            return result
        } catch {
            process.stop()
            _ = await process.exit()
            throw error
        }
    }

    /// Asks for the discovery document until it comes (the socket listens before the first
    /// request is served).
    private func waitUntilAnswering(log: URL) async throws {
        let transport = URLSessionTransport(timeout: 5)
        let discovery = OpenIDProviderMetadata.discoveryURL(issuer: issuer)
        for _ in 0..<100 {
            if let answer = try? await transport.send(HTTPRequest(method: "GET", url: discovery)), answer.status == 200 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw StartFailure(description: "the server at \(baseURL) does not answer: \(Self.text(of: log))")
    }

    /// A Python process in the project folder, keeping its data in `data`, its output in `log`
    /// (its standard output readable by ``firstLine()`` instead when `readingOutput`). Its end is
    /// awaited, never waited for on a thread of the cooperative pool.
    final class Running: Sendable {
        private let process: Process
        private let exited: AsyncStream<Int32>
        private let output: AsyncStream<Data>?

        init(_ arguments: [String], python: URL, data: URL, log: URL, readingOutput: Bool = false) throws {
            let process = Process()
            process.executableURL = python
            process.arguments = arguments
            process.currentDirectoryURL = OAuthServer.project
            var environment = ProcessInfo.processInfo.environment
            environment["PYTHONDONTWRITEBYTECODE"] = "1"  // Nothing written into the checkout.
            environment["PYTHONUNBUFFERED"] = "1"
            environment["DJANGO_SETTINGS_MODULE"] = "authcore_oauth.settings"
            environment["AUTHCORE_OAUTH_DATA"] = data.path
            process.environment = environment
            process.standardInput = FileHandle.nullDevice
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let logHandle = try FileHandle(forWritingTo: log)
            process.standardOutput = logHandle
            process.standardError = logHandle
            if readingOutput {
                let pipe = Pipe()
                process.standardOutput = pipe
                output = AsyncStream { continuation in
                    pipe.fileHandleForReading.readabilityHandler = { handle in
                        let data = handle.availableData
                        if data.isEmpty {
                            handle.readabilityHandler = nil
                            continuation.finish()
                        } else {
                            continuation.yield(data)
                        }
                    }
                }
            } else {
                output = nil
            }
            let (exited, continuation) = AsyncStream.makeStream(of: Int32.self)
            process.terminationHandler = { ended in
                continuation.yield(ended.terminationStatus)
                continuation.finish()
            }
            self.exited = exited
            self.process = process
            try process.run()
        }

        /// The first line it printed, `nil` when it ended first.
        func firstLine() async -> String? {
            guard let output else { return nil }
            var printed = Data()
            for await chunk in output {
                printed.append(chunk)
                if let newline = printed.firstIndex(of: UInt8(ascii: "\n")) {
                    return String(decoding: printed[..<newline], as: UTF8.self)
                }
            }
            return nil
        }

        /// Asks it to stop (SIGTERM).
        func stop() {
            if process.isRunning { process.terminate() }
        }

        /// Its exit status, once it has ended.
        func exit() async -> Int32 {
            for await status in exited { return status }
            return process.terminationStatus
        }
    }

    /// The end of a log, for a failure's message.
    private static func text(of log: URL) -> String {
        String(String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self).suffix(3000))
    }

    // MARK: Talking to it as the test

    /// `path` under the server's root.
    func url(_ path: String) -> URL { URL(string: baseURL.absoluteString + path)! }

    /// A form POST to `path` (with the introspection client's credentials when `authenticated`),
    /// its status and JSON object.
    func post(_ path: String, _ fields: [(String, String)], authenticated: Bool = false) async throws -> (
        status: Int, json: [String: Any]
    ) {
        var headers = [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")]
        if authenticated {
            let pair = "\(Self.introspectionClient.id):\(Self.introspectionClient.secret)"
            headers.append(("Authorization", "Basic " + Data(pair.utf8).base64EncodedString()))
        }
        let request = HTTPRequest(
            method: "POST", url: url(path), headers: HTTPHeaders(headers), body: Data(RequestBuilder.formEncoded(fields).utf8))
        let answer = try await URLSessionTransport(timeout: 10).send(request)
        return (answer.status, (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:])
    }

    /// What the server's tables hold (`/test/records`): grants (unused codes), access, refresh
    /// and ID tokens, the refresh tokens not revoked, and the device authorization grants by
    /// status (`authorization-pending`, `authorized`, `denied`, `expired`).
    struct Records: Equatable, CustomStringConvertible {
        var grants = 0
        var accessTokens = 0
        var refreshTokens = 0
        var activeRefreshTokens = 0
        var idTokens = 0
        var deviceGrants: [String: Int] = [:]

        var description: String {
            "grants \(grants), access \(accessTokens), refresh \(refreshTokens) (\(activeRefreshTokens) active), ID \(idTokens), "
                + "device grants \(deviceGrants)"
        }
    }

    /// The server's own records, now.
    func records() async throws -> Records {
        let answer = try await URLSessionTransport(timeout: 10).send(HTTPRequest(method: "GET", url: url("/test/records")))
        let json = try #require((try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any])
        func count(_ name: String) -> Int { json[name] as? Int ?? -1 }
        return Records(
            grants: count("grants"), accessTokens: count("accessTokens"), refreshTokens: count("refreshTokens"),
            activeRefreshTokens: count("activeRefreshTokens"), idTokens: count("idTokens"),
            deviceGrants: try #require(json["deviceGrants"] as? [String: Int]))
    }

    /// RFC 7662 introspection with the confidential client: whether the server calls `token` active.
    func isActive(_ token: String) async throws -> Bool {
        let answer = try await post("/o/introspect/", [("token", token)], authenticated: true)
        try #require(answer.status == 200, "introspection answered \(answer.status)")
        return try #require(answer.json["active"] as? Bool)
    }

    /// A refresh grant for `refreshToken` sent by the test itself, as a thief would.
    func refresh(_ refreshToken: String) async throws -> (status: Int, json: [String: Any]) {
        try await post("/o/token/", [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", Self.clientID)])
    }

    /// Makes every access token the server issued expire a second ago.
    func expireAccessTokens() async throws {
        let answer = try await post("/test/expire-access-tokens", [])
        try #require(answer.status == 200)
    }
}

import Foundation

/// Endpoints under `/__dev/` that tests and local development use; never part of a contract.
///
/// - `GET /__dev/outbox?to=<email-or-phone>` → `[{"backend","to","kind","code","sentAt"}]`
/// - `POST /__dev/faults` with `{"fault": <name>, "path"?, "times"?, …}` installs a fault;
///   `DELETE /__dev/faults` clears them. Names and their parameters: `latency` (`seconds`),
///   `dropBeforeCommit`, `dropAfterCommit`, `serverError` (`status`), `rateLimited` (`retryAfter`),
///   `malformedJSON`, `truncatedBody`, `wrongContentType`, `slowTrickle` (`interval`), `successFalse` (`message`).
/// - `GET /__dev/oauth/complete?state=<state>[&cancel=true]` → `{"callbackURL": …}` (Hero365);
///   `GET /__dev/oauth/authorize?state=…` (the URL `auth/oauth/{provider}` hands out) answers
///   the same callback as a 302 redirect, like a provider would.
/// - `GET /__dev/oidc/authorize?<an authorization request's query>` → `{"redirectURL": …}`: what
///   the OpenID Connect provider's `/authorize` would redirect the browser to (a code, or an error),
///   for tests playing the browser without following a redirect to an app's own scheme.
/// - `POST /__dev/clock` with `{"advanceBy": seconds}` moves the server clock forward.
/// - `POST /__dev/everday/approve` with `{"username": …}` approves a pending Everday account, as
///   the seeded parent would (404 when there is no such account); `POST /__dev/everday/unapprove`
///   with the same body withdraws the approval, so the account is pending again.
struct DevEndpoints: Sendable {
    var outbox: Outbox
    var faults: FaultBoard
    var clock: ServerClock
    var everday: Everday?
    var hero365: Hero365?
    var openIDProvider: OpenIDProvider?

    /// Answers one dev request; errors are `{"error": …}`.
    func handle(_ request: ServerRequest) -> ServerResponse {
        switch (request.method, request.path) {
        case ("GET", "/__dev/outbox"):
            guard let recipient = request.query["to"] else { return error(400, "Query parameter 'to' is required") }
            return .json(200, .array(outbox.messages(to: recipient).map(DevEndpoints.json)))
        case ("POST", "/__dev/faults"):
            guard let body = JSONValue.decode(request.body)?.object else { return error(400, "Invalid JSON body") }
            guard let fault = DevEndpoints.fault(from: body) else { return error(400, "Unknown or incomplete fault") }
            faults.inject(fault, path: body["path"]?.string, times: body["times"]?.int)
            return .json(200, ["installed": true])
        case ("DELETE", "/__dev/faults"):
            faults.clear()
            return .json(200, ["cleared": true])
        case ("GET", "/__dev/oauth/complete"):
            guard let hero365 else { return error(404, "Hero365 is not mounted") }
            guard let state = request.query["state"],
                let callback = hero365.completeOAuth(state: state, cancelled: request.query["cancel"] == "true")
            else {
                return error(400, "Unknown OAuth state")
            }
            return .json(200, ["callbackURL": .string(callback)])
        case ("GET", "/__dev/oauth/authorize"):
            guard let hero365 else { return error(404, "Hero365 is not mounted") }
            guard let state = request.query["state"],
                let callback = hero365.completeOAuth(state: state, cancelled: request.query["cancel"] == "true")
            else {
                return error(400, "Unknown OAuth state")
            }
            var headers = ServerHeaders()
            headers.set("Location", callback)
            return ServerResponse(status: 302, headers: headers)
        case ("GET", "/__dev/oidc/authorize"):
            guard let openIDProvider else { return error(404, "OpenID Connect is not mounted") }
            do throws(Rejection) {
                return .json(200, ["redirectURL": .string(try openIDProvider.authorize(request.query))])
            } catch {
                return openIDProvider.errorResponse(error)
            }
        case ("POST", "/__dev/clock"):
            guard let seconds = DevEndpoints.number(JSONValue.decode(request.body)?.object?["advanceBy"]) else {
                return error(400, "Body must be {\"advanceBy\": seconds}")
            }
            clock.advance(by: seconds)
            return .json(200, ["now": .string(Validation.iso8601(clock.now))])
        case ("POST", "/__dev/everday/approve"):
            guard let everday else { return error(404, "Everday is not mounted") }
            guard let username = JSONValue.decode(request.body)?.object?["username"]?.string else {
                return error(400, "Body must be {\"username\": …}")
            }
            guard everday.approve(username: username) else { return error(404, "No such user") }
            return .json(200, ["approved": true])
        case ("POST", "/__dev/everday/unapprove"):
            guard let everday else { return error(404, "Everday is not mounted") }
            guard let username = JSONValue.decode(request.body)?.object?["username"]?.string else {
                return error(400, "Body must be {\"username\": …}")
            }
            guard everday.withdrawApproval(username: username) else { return error(404, "No such user") }
            return .json(200, ["approved": false])
        default:
            return error(404, "Not Found")
        }
    }

    private func error(_ status: Int, _ message: String) -> ServerResponse {
        .json(status, ["error": .string(message)])
    }

    private static func json(_ message: OutboxMessage) -> JSONValue {
        [
            "backend": .string(message.backend.rawValue),
            "to": .string(message.to),
            "kind": .string(message.kind.rawValue),
            "code": message.code.json,
            "sentAt": .string(Validation.iso8601(message.sentAt)),
        ]
    }

    private static func number(_ value: JSONValue?) -> Double? {
        switch value {
        case let .int(number): return Double(number)
        case let .double(number): return number
        case .null, .bool, .string, .array, .object, .none: return nil
        }
    }

    private static func fault(from body: [String: JSONValue]) -> Fault? {
        switch body["fault"]?.string {
        case "latency": return number(body["seconds"]).map(Fault.latency)
        case "dropBeforeCommit": return .dropBeforeCommit
        case "dropAfterCommit": return .dropAfterCommit
        case "serverError": return .serverError(status: body["status"]?.int ?? 500)
        case "rateLimited": return .rateLimited(retryAfter: body["retryAfter"]?.int ?? 1)
        case "malformedJSON": return .malformedJSON
        case "truncatedBody": return .truncatedBody
        case "wrongContentType": return .wrongContentType
        case "slowTrickle": return number(body["interval"]).map { Fault.slowTrickle(interval: $0) }
        case "successFalse": return .successFalse(message: body["message"]?.string ?? "Request failed")
        default: return nil
        }
    }
}

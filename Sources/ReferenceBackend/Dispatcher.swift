import Foundation

/// Routes each request: dev endpoints, then the backend whose prefix matches, then faults,
/// the backend's gate, and finally the endpoint's handler.
struct Dispatcher: Sendable {
    /// A backend mounted under a path prefix (empty when it is the only one).
    struct Mount: Sendable {
        var prefix: String
        var contract: any Contract
        var routes: [Route]

        init(prefix: String, contract: any Contract) {
            self.prefix = prefix
            self.contract = contract
            routes = contract.routes
        }
    }

    var mounts: [Mount]
    var faults: FaultBoard
    var ledger: LedgerRecorder
    var dev: DevEndpoints

    /// Answers one request.
    func handle(_ request: ServerRequest, _ connection: HTTPServer.Connection) -> ServerReply {
        if request.path == "/__dev" || request.path.hasPrefix("/__dev/") {
            return .respond(dev.handle(request))
        }
        guard let (mount, relativePath) = mount(for: request.path) else {
            return .respond(.json(404, ["error": "Not Found"]))
        }
        let contract = mount.contract
        var relative = request
        relative.path = relativePath
        let candidates = mount.routes.compactMap { route in route.match(relativePath).map { (route, $0) } }
        guard let (route, parameters) = candidates.first(where: { $0.0.method == request.method }) else {
            if candidates.isEmpty {
                return .respond(contract.errorResponse(Rejection(404, "Not Found")))
            }
            var headers = ServerHeaders()
            headers.set("Allow", Set(candidates.map(\.0.method)).sorted().joined(separator: ", "))
            return .respond(contract.errorResponse(Rejection(405, "Method Not Allowed", headers: headers)))
        }
        ledger.count(Ledger.Endpoint(backend: contract.backend, method: request.method, path: route.template))
        let contractRequest = ContractRequest(http: relative, parameters: parameters, remoteAddress: connection.remoteAddress)
        let run: @Sendable () -> ServerResponse = {
            if let rejection = contract.admit(contractRequest) { return contract.errorResponse(rejection) }
            do throws(Rejection) {
                return try route.handle(contractRequest)
            } catch {
                return contract.errorResponse(error)
            }
        }
        guard let fault = faults.take(matching: [request.path, relativePath, route.template]) else {
            return .respond(run())
        }
        return apply(fault, contract: contract, connection: connection, run: run)
    }

    private func mount(for path: String) -> (Mount, String)? {
        for mount in mounts {
            if mount.prefix.isEmpty { return (mount, path) }
            if path == mount.prefix { return (mount, "/") }
            if path.hasPrefix(mount.prefix + "/") { return (mount, String(path.dropFirst(mount.prefix.count))) }
        }
        return nil
    }

    private func apply(
        _ fault: Fault, contract: any Contract, connection: HTTPServer.Connection,
        run: @Sendable () -> ServerResponse
    ) -> ServerReply {
        switch fault {
        case let .latency(seconds):
            guard connection.stopSignal.wait(seconds) else { return .drop }
            return .respond(run())
        case .dropBeforeCommit:
            return .drop
        case .dropAfterCommit:
            _ = run()
            return .drop
        case let .serverError(status):
            return .respond(contract.errorResponse(Rejection(status, ServerResponse.reason(for: status))))
        case let .rateLimited(retryAfter):
            var headers = ServerHeaders()
            headers.set("Retry-After", String(retryAfter))
            return .respond(contract.errorResponse(Rejection(429, "Too Many Requests", headers: headers)))
        case .malformedJSON:
            var headers = ServerHeaders()
            headers.set("Content-Type", "application/json; charset=utf-8")
            return .respond(ServerResponse(status: 200, headers: headers, body: Data("{\"accessToken\": \"eyJ".utf8)))
        case .truncatedBody:
            return .truncate(run())
        case .wrongContentType:
            var headers = ServerHeaders()
            headers.set("Content-Type", "text/html; charset=utf-8")
            let page = "<html><head><title>Network login</title></head><body>Sign in to continue.</body></html>"
            return .respond(ServerResponse(status: 200, headers: headers, body: Data(page.utf8)))
        case let .slowTrickle(interval):
            return .trickle(run(), interval: interval)
        case let .successFalse(message):
            return .respond(.json(200, ["success": false, "data": nil, "message": .string(message)]))
        }
    }
}

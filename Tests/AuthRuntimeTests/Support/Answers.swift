import AuthRuntime
import Foundation

/// JSON answers for scripted transports.
enum Answers {
    static func json(_ status: Int = 200, _ object: [String: Any]) -> Result<HTTPResponse, TransportError> {
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return .success(HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body))
    }

    static func status(_ status: Int) -> Result<HTTPResponse, TransportError> {
        .success(HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Data("{}".utf8)))
    }

    /// A sign-in or refresh answer in `casing`.
    static func tokens(
        access: String, refresh: String? = nil, expiresIn: Int? = 3600, casing: KeyCasing = .camel, userID: String = "user-1"
    ) -> Result<HTTPResponse, TransportError> {
        var object: [String: Any] = [casing.key("accessToken"): access, casing.key("userId"): userID]
        if let refresh { object[casing.key("refreshToken")] = refresh }
        if let expiresIn { object[casing.key("expiresIn")] = expiresIn }
        return json(200, object)
    }
}

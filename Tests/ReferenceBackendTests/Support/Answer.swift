import Foundation

/// One HTTP answer as a test sees it: status, headers (names lowercased) and body.
struct Answer: Sendable {
    let status: Int
    let headers: [String: String]
    let body: Data

    /// The body parsed as JSON, or `nil`.
    var json: Any? {
        try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
    }

    /// The value at a path of object keys, e.g. `value("data", "user", "id")`.
    func value(_ keys: String...) -> Any? {
        var current = json
        for key in keys {
            current = (current as? [String: Any])?[key]
        }
        return current
    }

    /// The string at a path of object keys.
    func string(_ keys: String...) -> String? {
        var current = json
        for key in keys { current = (current as? [String: Any])?[key] }
        return current as? String
    }

    /// The boolean at a path of object keys.
    func bool(_ keys: String...) -> Bool? {
        var current = json
        for key in keys { current = (current as? [String: Any])?[key] }
        return current as? Bool
    }

    /// The integer at a path of object keys.
    func int(_ keys: String...) -> Int? {
        var current = json
        for key in keys { current = (current as? [String: Any])?[key] }
        return current as? Int
    }

    /// The top-level object's keys, sorted.
    var keys: [String] {
        ((json as? [String: Any])?.keys).map { $0.sorted() } ?? []
    }

    /// The body as text.
    var text: String {
        String(decoding: body, as: UTF8.self)
    }
}

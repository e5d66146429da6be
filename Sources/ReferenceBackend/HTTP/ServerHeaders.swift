/// The reference server's header fields in arrival order, looked up case-insensitively as HTTP
/// requires (the client's are `HTTPHeaders`).
struct ServerHeaders: Sendable {
    private(set) var fields: [(name: String, value: String)] = []

    init(_ fields: [(name: String, value: String)] = []) {
        self.fields = fields
    }

    /// The first value for `name`, compared case-insensitively.
    subscript(name: String) -> String? {
        let wanted = name.lowercased()
        return fields.first { $0.name.lowercased() == wanted }?.value
    }

    /// Every value for `name`, compared case-insensitively.
    func values(_ name: String) -> [String] {
        let wanted = name.lowercased()
        return fields.filter { $0.name.lowercased() == wanted }.map(\.value)
    }

    /// Appends a field.
    mutating func add(_ name: String, _ value: String) {
        fields.append((name, value))
    }

    /// Replaces every field named `name` with one holding `value`.
    mutating func set(_ name: String, _ value: String) {
        let wanted = name.lowercased()
        fields.removeAll { $0.name.lowercased() == wanted }
        fields.append((name, value))
    }
}

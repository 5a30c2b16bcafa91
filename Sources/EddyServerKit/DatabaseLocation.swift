import Foundation

/// Where the server keeps its data: `--database sqlite:PATH` or `--database postgres://USER[:PASSWORD]@HOST[:PORT]/DB`.
package enum DatabaseLocation: Sendable, Equatable {
    /// A SQLite file (created when missing).
    case sqlite(path: String)
    /// A PostgreSQL database (the database must exist; the server creates its tables).
    case postgres(PostgresLocation)

    /// Parses a `--database` value; the error says what is wrong and what a good value looks like.
    package init(parsing text: String) throws(DatabaseLocationError) {
        if text.hasPrefix("sqlite:") {
            var path = String(text.dropFirst("sqlite:".count))
            if path.hasPrefix("//") { path = String(path.dropFirst(2)) }
            guard !path.isEmpty else { throw DatabaseLocationError(text: text, problem: "the SQLite path is empty") }
            self = .sqlite(path: path)
            return
        }
        guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") else {
            throw DatabaseLocationError(text: text, problem: "it starts with neither sqlite: nor postgres://")
        }
        self = .postgres(try PostgresLocation(parsing: text))
    }

    /// The location without its password (for logs and messages).
    package var redacted: String {
        switch self {
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(let location): location.redacted
        }
    }
}

/// A PostgreSQL server and database, parsed from a `postgres://` URL.
package struct PostgresLocation: Sendable, Equatable {
    /// Host name or address.
    package var host: String
    /// TCP port (5432 when the URL gives none).
    package var port: Int
    /// Role to log in as.
    package var username: String
    /// Password, when the URL gives one.
    package var password: String?
    /// Database name.
    package var database: String
    /// Whether to require TLS (`?sslmode=require`); off by default (loopback and private networks).
    package var requireTLS: Bool

    /// Parses `postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?sslmode=disable|prefer|require]`.
    package init(parsing text: String) throws(DatabaseLocationError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme,
              scheme == "postgres" || scheme == "postgresql"
        else { throw DatabaseLocationError(text: text, problem: "it is not a URL") }
        guard let host = components.host, !host.isEmpty else { throw DatabaseLocationError(text: text, problem: "the host is missing") }
        guard let user = components.user, !user.isEmpty else {
            throw DatabaseLocationError(text: text, problem: "the user name is missing (postgres://USER@HOST:PORT/DB)")
        }
        let name = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !name.isEmpty, !name.contains("/") else {
            throw DatabaseLocationError(text: text, problem: "the database name is missing (…/DB at the end)")
        }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw DatabaseLocationError(text: text, problem: "the port must be 1…65535") }
        var requireTLS = false
        for item in components.queryItems ?? [] {
            switch (item.name, item.value ?? "") {
            case ("sslmode", "disable"), ("sslmode", "prefer"), ("sslmode", "allow"): requireTLS = false
            case ("sslmode", "require"): requireTLS = true
            default: throw DatabaseLocationError(text: text, problem: "unknown parameter \(item.name)=\(item.value ?? "") (only sslmode=disable|require)")
            }
        }
        self.host = host
        self.port = port
        self.username = user.removingPercentEncoding ?? user
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = name.removingPercentEncoding ?? name
        self.requireTLS = requireTLS
    }

    /// The URL without its password.
    package var redacted: String { "postgres://\(username)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)" }
}

/// A `--database` value that cannot be used.
package struct DatabaseLocationError: Error, CustomStringConvertible, Equatable {
    /// The value as given.
    package var text: String
    /// What is wrong with it.
    package var problem: String
    /// The message shown at start.
    package var description: String {
        "--database \(text.contains("@") ? "value" : "'\(text)'"): \(problem). "
            + "Give sqlite:PATH (e.g. sqlite:eddy-server.sqlite) or postgres://USER[:PASSWORD]@HOST[:PORT]/DB "
            + "(e.g. postgres://eddy@127.0.0.1:5432/eddy)."
    }
}

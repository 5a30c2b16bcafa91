#if Tools
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
    /// Password, when the URL gives one (else `PostgresEnvironment.complete` fills it from `PGPASSWORD` or the password
    /// file).
    package var password: String?
    /// Where the password came from, for error messages ("the URL", "PGPASSWORD", a password file); nil: none given.
    package var passwordSource: String?
    /// Database name.
    package var database: String
    /// `?sslmode=` (nil: not given; `PGSSLMODE`, else libpq's default `prefer`).
    package var sslMode: PostgresSSLMode?
    /// `?sslrootcert=`: the PEM file of the CA(s) the server's certificate must chain to (`system`: the system's trust
    /// store); nil: not given.
    package var sslRootCertificatePath: String?

    /// The `sslmode` in force: the one given, else `prefer` (libpq's default: TLS when the server offers it).
    package var effectiveSSLMode: PostgresSSLMode { sslMode ?? .prefer }

    /// Parses `postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?sslmode=MODE&sslrootcert=PATH]`.
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
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "sslmode":
                guard let mode = PostgresSSLMode(rawValue: value) else {
                    throw DatabaseLocationError(text: text, problem: "unknown sslmode=\(value) (one of "
                        + PostgresSSLMode.allCases.map(\.rawValue).joined(separator: ", ") + ")")
                }
                sslMode = mode
            case "sslrootcert":
                guard !value.isEmpty else { throw DatabaseLocationError(text: text, problem: "sslrootcert= needs a file path") }
                sslRootCertificatePath = value
            default:
                throw DatabaseLocationError(text: text, problem: "unknown parameter \(item.name)=\(value) (only sslmode and sslrootcert)")
            }
        }
        self.host = host
        self.port = port
        self.username = user.removingPercentEncoding ?? user
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.passwordSource = password == nil ? nil : "the URL"
        self.database = name.removingPercentEncoding ?? name
    }

    /// The URL without its password.
    package var redacted: String { "postgres://\(username)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)"
            + (sslMode.map { "?sslmode=\($0.rawValue)" } ?? "") }
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
#endif

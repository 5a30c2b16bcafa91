#if Tools
import Foundation

/// libpq's `sslmode` values (https://www.postgresql.org/docs/current/libpq-ssl.html), as `eddy-server` honours them.
package enum PostgresSSLMode: String, Sendable, CaseIterable {
    /// No TLS.
    case disable
    /// TLS when the server offers it, else plain (libpq tries plain first; PostgresNIO asks for TLS first, as `prefer`).
    case allow
    /// TLS when the server offers it, else plain; the certificate is not checked (libpq's default).
    case prefer
    /// TLS or no connection; the certificate is checked against `sslrootcert` only when one is given (as libpq does when
    /// a root CA file exists), otherwise not at all.
    case require
    /// TLS; the server's certificate must chain to a CA of `sslrootcert`.
    case verifyCA = "verify-ca"
    /// TLS; the certificate must chain to a CA of `sslrootcert` and name the host connected to (DNS or IP
    /// subjectAltName).
    case verifyFull = "verify-full"

    /// Whether the connection fails without TLS.
    package var requiresTLS: Bool { self != .disable && self != .allow && self != .prefer }
}

/// Where the database password and TLS settings come from when the `postgres://` URL does not give them, following
/// libpq: the password from the URL, else `PGPASSWORD`, else the first matching line of the password file
/// (`PGPASSFILE`, default `~/.pgpass`); `sslmode` from the URL, else `PGSSLMODE`, else `prefer`; the root CA file from
/// `sslrootcert`, else `PGSSLROOTCERT`, else `~/.postgresql/root.crt` when it exists.
package struct PostgresEnvironment: Sendable {
    /// The process environment (or a test's).
    package var variables: [String: String]
    /// The home directory (`~/.pgpass`, `~/.postgresql/root.crt`); nil: none.
    package var homeDirectory: String?

    /// The environment of this process.
    package static var current: PostgresEnvironment {
        PostgresEnvironment(variables: ProcessInfo.processInfo.environment, homeDirectory: NSHomeDirectory())
    }

    /// Creates an environment.
    package init(variables: [String: String], homeDirectory: String?) {
        self.variables = variables
        self.homeDirectory = homeDirectory
    }

    /// `location` with what it leaves open filled in from here (password, `sslmode`, root CA file).
    package func complete(_ location: PostgresLocation) throws(PostgresSecretError) -> PostgresLocation {
        var location = location
        if location.sslMode == nil, let text = variables["PGSSLMODE"], !text.isEmpty {
            guard let mode = PostgresSSLMode(rawValue: text) else {
                throw PostgresSecretError(source: "PGSSLMODE", problem: "unknown sslmode '\(text)'; use one of "
                    + PostgresSSLMode.allCases.map(\.rawValue).joined(separator: ", "))
            }
            location.sslMode = mode
        }
        if location.sslRootCertificatePath == nil {
            if let path = variables["PGSSLROOTCERT"], !path.isEmpty {
                location.sslRootCertificatePath = path
            } else if let home = homeDirectory, FileManager.default.fileExists(atPath: home + "/.postgresql/root.crt") {
                location.sslRootCertificatePath = home + "/.postgresql/root.crt"
            }
        }
        if (location.sslMode == .verifyCA || location.sslMode == .verifyFull) && location.sslRootCertificatePath == nil {
            throw PostgresSecretError(source: "sslmode=\(location.sslMode!.rawValue)", problem: "no root CA file to verify the "
                + "server's certificate with; give sslrootcert=PATH in the URL or PGSSLROOTCERT (or sslrootcert=system for the "
                + "system's trust store)")
        }
        if let path = location.sslRootCertificatePath, path != "system", !FileManager.default.isReadableFile(atPath: path) {
            throw PostgresSecretError(source: "sslrootcert=\(path)", problem: "the file does not exist or cannot be read; "
                + "give the PEM file of the CA that signed the server's certificate")
        }
        guard location.password == nil else { return location }
        if let password = variables["PGPASSWORD"], !password.isEmpty {
            location.password = password
            location.passwordSource = "PGPASSWORD"
            return location
        }
        let explicit = variables["PGPASSFILE"].flatMap { $0.isEmpty ? nil : $0 }
        guard let path = explicit ?? homeDirectory.map({ $0 + "/.pgpass" }) else { return location }
        guard FileManager.default.fileExists(atPath: path) else {
            if explicit != nil {
                throw PostgresSecretError(source: "PGPASSFILE=\(path)", problem: "the file does not exist; create it (mode 0600) "
                    + "with lines host:port:database:user:password, or unset PGPASSFILE")
            }
            return location
        }
        let file = try PostgresPassFile(path: path)
        if let password = file.password(host: location.host, port: location.port, database: location.database, user: location.username) {
            location.password = password
            location.passwordSource = path
        }
        return location
    }
}

/// A libpq password file (`~/.pgpass`, `PGPASSFILE`): lines `hostname:port:database:username:password`, `*` matching
/// anything in the first four fields, `\:` and `\\` for a literal colon or backslash, `#` starting a comment line.
///
/// Like libpq, the file is only used when neither group nor others may read or write it (mode 0600 or less) and it is a
/// regular file; unlike libpq, which then ignores it with a warning, `eddy-server` stops with that reason (a password
/// silently not used would surface later as a refused login). A line with fewer than five fields is an error naming
/// the line.
package struct PostgresPassFile: Sendable {
    /// One usable line.
    struct Entry: Sendable, Equatable {
        var host: String, port: String, database: String, user: String, password: String
    }
    /// The entries, in file order (the first match wins).
    let entries: [Entry]

    /// Reads and checks the file at `path`.
    package init(path: String) throws(PostgresSecretError) {
        let source = "password file \(path)"
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw PostgresSecretError(source: source, problem: "cannot read it (errno \(errno))")
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw PostgresSecretError(source: source, problem: "it is not a regular file")
        }
        let mode = status.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw PostgresSecretError(source: source, problem: "it has group or world access (mode "
                + String(mode, radix: 8) + "); libpq ignores such a file: chmod 600 \(path)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PostgresSecretError(source: source, problem: "cannot read it (permission denied?)")
        }
        try self.init(text: String(decoding: data, as: UTF8.self), source: source)
    }

    /// Parses the text of a password file (`source` names it in errors).
    package init(text: String, source: String) throws(PostgresSecretError) {
        var entries: [Entry] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine[...]
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = Self.fields(of: line)
            guard fields.count >= 5 else {
                throw PostgresSecretError(source: "\(source) line \(index + 1)", problem: "it has \(fields.count) of the 5 fields "
                    + "hostname:port:database:username:password (write a literal colon as \\:)")
            }
            // libpq takes the rest of the line as the password, colons included.
            entries.append(Entry(host: fields[0], port: fields[1], database: fields[2], user: fields[3],
                                 password: fields[4...].joined(separator: ":")))
        }
        self.entries = entries
    }

    /// The line's fields, split at unescaped colons, with `\:` and `\\` unescaped.
    static func fields(of line: Substring) -> [String] {
        var fields: [String] = []
        var current = ""
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current)
        return fields
    }

    /// The password of the first line matching the connection (nil: none matches).
    package func password(host: String, port: Int, database: String, user: String) -> String? {
        func matches(_ field: String, _ value: String) -> Bool { field == "*" || field == value }
        return entries.first {
            matches($0.host, host) && matches($0.port, String(port)) && matches($0.database, database) && matches($0.user, user)
        }?.password
    }
}

/// A password or TLS setting for PostgreSQL that cannot be used: what, where, and what to do.
package struct PostgresSecretError: Error, CustomStringConvertible, Equatable {
    /// Where the setting came from (a variable, a file and line, a URL parameter).
    package var source: String
    /// What is wrong and what to do.
    package var problem: String
    /// The message shown at start.
    package var description: String { "\(source): \(problem)" }
}
#endif

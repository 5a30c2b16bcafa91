#if Tools
import Foundation
import NIOSSL
import PostgresNIO

/// How `PostgresServerStorage` connects: TLS from `sslmode` / `sslrootcert`, and what a failure to connect means in
/// words an operator can act on.
enum PostgresConnectionSettings {
    /// The TLS configuration of `location`'s `sslmode` (nil: no TLS): certificates checked against `sslrootcert` for
    /// `verify-ca` and `verify-full` (the host name too for `verify-full`), and for `require` when a root CA file is
    /// given; not checked for `prefer` and `allow` (libpq's rules).
    static func tlsConfiguration(_ location: PostgresLocation) -> TLSConfiguration? {
        let mode = location.effectiveSSLMode
        guard mode != .disable else { return nil }
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch mode {
        case .verifyFull: configuration.certificateVerification = .fullVerification
        case .verifyCA: configuration.certificateVerification = .noHostnameVerification
        case .require where location.sslRootCertificatePath != nil: configuration.certificateVerification = .noHostnameVerification
        default: configuration.certificateVerification = .none
        }
        if let path = location.sslRootCertificatePath, path != "system" { configuration.trustRoots = .file(path) }
        return configuration
    }

    /// The TLS of a connection to `location` (the pool's and the direct ones at start).
    static func connectionTLS(_ location: PostgresLocation) throws(PostgresStorageError) -> PostgresConnection.Configuration.TLS {
        guard let configuration = tlsConfiguration(location) else { return .disable }
        let context: NIOSSLContext
        do { context = try NIOSSLContext(configuration: configuration) } catch {
            throw PostgresStorageError(location: location.redacted, problem: "cannot set up TLS (sslrootcert "
                + "\(location.sslRootCertificatePath ?? "-")): \(String(reflecting: error)); give a PEM file of CA certificates")
        }
        return location.effectiveSSLMode.requiresTLS ? .require(context) : .prefer(context)
    }


    /// What an error from connecting or migrating means, with what to do: the server's refusal (login, database),
    /// a password the server wants and was not given, TLS the server does not offer, a certificate that does not chain
    /// to the root CA or does not name the host, or a server that cannot be reached.
    static func explain(_ error: any Error, location: PostgresLocation) -> String {
        guard let psql = error as? PSQLError else { return unreachable("\(error)", location) }
        if let message = psql.serverInfo?[.message] {
            let code = psql.serverInfo?[.sqlState] ?? ""
            let hint: String
            switch code {
            case "28P01":
                hint = "the password (from \(location.passwordSource ?? "nowhere")) is wrong for user \(location.username): fix it "
                    + "in PGPASSWORD or the password file (PGPASSFILE, ~/.pgpass)"
            case "28000": hint = "the server's pg_hba.conf refuses this user, host or TLS setting (sslmode=\(location.effectiveSSLMode.rawValue))"
            case "3D000": hint = "create the database first (createdb) or fix its name in --database"
            default: hint = "check the server's log"
            }
            return "\(message) (SQLSTATE \(code)); \(hint)"
        }
        switch psql.code {
        case .authMechanismRequiresPassword:
            return "the server asks for a password for user \(location.username) and none was given: set PGPASSWORD, or add "
                + "a line \(location.host):\(location.port):\(location.database):\(location.username):PASSWORD to the password file "
                + "(PGPASSFILE, default ~/.pgpass, mode 0600); a password in the URL shows in `ps`"
        case .sslUnsupported:
            return "the server does not accept TLS connections, and sslmode=\(location.effectiveSSLMode.rawValue) requires TLS: "
                + "turn ssl on in the server's postgresql.conf (ssl_cert_file, ssl_key_file), or use sslmode=prefer or disable"
        default:
            break
        }
        if let tls = psql.underlying.flatMap(tlsProblem(_:)) {
            return tls + " (sslmode=\(location.effectiveSSLMode.rawValue), sslrootcert=\(location.sslRootCertificatePath ?? "-"))"
        }
        return unreachable("\(psql.code)\(psql.underlying.map { ": \($0)" } ?? "")", location)
    }

    /// A TLS handshake failure in words (nil: `error` is not one).
    static func tlsProblem(_ error: any Error) -> String? {
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return "the server's certificate does not name the host connected to (\(extra)); sslmode=verify-full checks it: "
                + "connect by a name or address its subjectAltName lists, or reissue the certificate"
        }
        if let ssl = error as? NIOSSLError {
            let text = String(describing: ssl)
            if text.contains("CERTIFICATE_VERIFY_FAILED") {
                return "the server's certificate does not chain to a CA in the root CA file (\(text)): give the CA that signed it "
                    + "as sslrootcert, or check the certificate's dates"
            }
            return "the TLS handshake failed (\(text))"
        }
        return nil
    }

    /// A server that did not answer: the cause, and what to check.
    static func unreachable(_ cause: String, _ location: PostgresLocation) -> String {
        "cannot connect (\(cause)); is PostgreSQL running and listening on \(location.host):\(location.port)? "
            + "Start it, or fix host/port in --database"
    }
}
#endif

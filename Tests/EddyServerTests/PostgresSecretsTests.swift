#if Tools
import Foundation
import NIOSSL
import Testing

@testable import EddyServerKit

/// libpq's password and TLS conventions without a server (issue 30, deliverable 4): the password file's format and
/// permission rule, the order URL > `PGPASSWORD` > password file, `sslmode` / `sslrootcert` and their errors.
@Suite struct PostgresSecretsTests {
    static func location(_ url: String) throws -> PostgresLocation {
        guard case .postgres(let location) = try DatabaseLocation(parsing: url) else { throw StorageTestError("not postgres") }
        return location
    }

    /// A file with `text` and `mode` in a folder of its own.
    static func file(_ text: String, mode: mode_t) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("eddy-pgpass-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/pgpass"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, mode)
        return path
    }

    @Test func passFileLinesMatchWithWildcardsAndEscapesFirstMatchWinning() throws {
        let file = try PostgresPassFile(text: """
            # comment
            db.example:5432:fleet:eddy:first
            *:*:fleet:eddy:second
            127.0.0.1:5433:*:eddy:with\\:colon\\\\and:rest
            """, source: "test")
        #expect(file.password(host: "db.example", port: 5432, database: "fleet", user: "eddy") == "first")
        #expect(file.password(host: "other", port: 1, database: "fleet", user: "eddy") == "second")
        #expect(file.password(host: "127.0.0.1", port: 5433, database: "x", user: "eddy") == "with:colon\\and:rest")
        #expect(file.password(host: "127.0.0.1", port: 5433, database: "x", user: "other") == nil)
    }

    @Test func aShortLineIsAnErrorNamingTheLine() {
        #expect(throws: PostgresSecretError.self) { try PostgresPassFile(text: "a:b:c:d:e\nhost:5432:db\n", source: "f") }
        do { _ = try PostgresPassFile(text: "a:b:c:d:e\nhost:5432:db\n", source: "f") } catch {
            #expect(error.source == "f line 2" && error.problem.contains("3 of the 5 fields"), "\(error)")
        }
    }

    @Test func aPassFileOthersCanReadIsRefusedWithTheFix() throws {
        let path = try Self.file("*:*:*:*:pw\n", mode: 0o644)
        do {
            _ = try PostgresEnvironment(variables: ["PGPASSFILE": path], homeDirectory: nil).complete(try Self.location("postgres://u@h/db"))
            Issue.record("a 0644 password file was used")
        } catch {
            #expect("\(error)".contains("group or world access (mode 644)") && "\(error)".contains("chmod 600 \(path)"), "\(error)")
        }
        chmod(path, 0o600)
        let location = try PostgresEnvironment(variables: ["PGPASSFILE": path], homeDirectory: nil).complete(try Self.location("postgres://u@h/db"))
        #expect(location.password == "pw" && location.passwordSource == path)
    }

    @Test func theURLWinsOverPGPASSWORDWhichWinsOverThePassFileWhichWinsOverTheHomeOne() throws {
        let explicit = try Self.file("*:*:*:*:from-file\n", mode: 0o600)
        let home = URL(fileURLWithPath: try Self.file("*:*:*:*:from-home\n", mode: 0o600)).deletingLastPathComponent().path
        try FileManager.default.moveItem(atPath: home + "/pgpass", toPath: home + "/.pgpass")
        func password(_ url: String, _ variables: [String: String]) throws -> String? {
            try PostgresEnvironment(variables: variables, homeDirectory: home).complete(try Self.location(url)).password
        }
        #expect(try password("postgres://u:from-url@h/db", ["PGPASSWORD": "env", "PGPASSFILE": explicit]) == "from-url")
        #expect(try password("postgres://u@h/db", ["PGPASSWORD": "env", "PGPASSFILE": explicit]) == "env")
        #expect(try password("postgres://u@h/db", ["PGPASSFILE": explicit]) == "from-file")
        #expect(try password("postgres://u@h/db", [:]) == "from-home")
        #expect(throws: PostgresSecretError.self) { try password("postgres://u@h/db", ["PGPASSFILE": home + "/missing"]) }
    }

    @Test func sslModesParseAndVerifyNeedsARootCertificate() throws {
        #expect(try Self.location("postgres://u@h/db").effectiveSSLMode == .prefer)
        #expect(try Self.location("postgres://u@h/db?sslmode=verify-full&sslrootcert=/ca.pem").sslRootCertificatePath == "/ca.pem")
        #expect(throws: DatabaseLocationError.self) { try Self.location("postgres://u@h/db?sslmode=verify") }
        let environment = PostgresEnvironment(variables: ["PGSSLMODE": "verify-full"], homeDirectory: nil)
        do {
            _ = try environment.complete(try Self.location("postgres://u@h/db"))
            Issue.record("verify-full without a root CA file was accepted")
        } catch {
            #expect("\(error)".contains("sslmode=verify-full") && "\(error)".contains("sslrootcert"), "\(error)")
        }
        #expect(throws: PostgresSecretError.self) {
            try PostgresEnvironment(variables: ["PGSSLMODE": "sometimes"], homeDirectory: nil).complete(try Self.location("postgres://u@h/db"))
        }
        let missing = try Self.location("postgres://u@h/db?sslmode=verify-ca&sslrootcert=/no/such/ca.pem")
        #expect(throws: PostgresSecretError.self) { try PostgresEnvironment(variables: [:], homeDirectory: nil).complete(missing) }
        #expect(PostgresConnectionSettings.tlsConfiguration(try Self.location("postgres://u@h/db?sslmode=disable")) == nil)
        #expect(PostgresConnectionSettings.tlsConfiguration(try Self.location("postgres://u@h/db?sslmode=prefer"))?.certificateVerification == CertificateVerification.none)
    }
}
#endif

#if Tools
import Foundation
import Logging
import PostgresNIO
import Testing

@testable import EddyServerKit

/// Database TLS and secrets against a real PostgreSQL (issue 30, deliverable 4): a cluster of the suite's own with TLS
/// on (a CA and server certificate made here with openssl), a role that must log in over TLS with a SCRAM password,
/// and the password given the libpq ways (`PGPASSWORD`, a password file). `verify-full` succeeds with the right CA and
/// host, and fails naming the real cause otherwise.
@Suite(.serialized) struct PostgresTLSTests {
    /// The role the server logs in as: TLS and a password required (pg_hba.conf below).
    static let role = "eddy_app"
    static let password = "tls s3cret:with colon"

    /// A TLS cluster with its certificates; made once for the suite, removed at process exit.
    final class TLSCluster: Sendable {
        let directory: String
        /// 127.0.0.1 and the cluster's port.
        let port: Int
        /// The CA that signed the server's certificate, and another one.
        let caPath: String, otherCAPath: String

        init(directory: String, port: Int, caPath: String, otherCAPath: String) {
            (self.directory, self.port, self.caPath, self.otherCAPath) = (directory, port, caPath, otherCAPath)
        }

        /// The cluster, or the test cancelled as skipped where PostgreSQL cannot run.
        static func shared() async throws -> TLSCluster {
            let environment = ProcessInfo.processInfo.environment
            guard environment["EDDY_TEST_POSTGRES_URL"].map({ !$0.isEmpty }) == true else {
                if environment["CI"] == "true" { throw StorageTestError("EDDY_TEST_POSTGRES_URL is unset under CI=true") }
                try Test.cancel("EDDY_TEST_POSTGRES_URL is unset: PostgreSQL TLS case skipped")
            }
            return try await made.value
        }

        static let made = Task { try await make() }

        /// Makes the certificates (a CA, a server certificate for DNS localhost only, signed by it, another CA), the
        /// cluster with ssl on, and the role.
        static func make() async throws -> TLSCluster {
            let directory = tlsClusterFolder
            atexit { _ = try? PostgresFaultCluster.runBlocking(["bash", "scripts/pg_cluster.sh", "destroy"], environment: ["EDDY_PG_DIR": tlsClusterFolder]) }
            let tls = directory + "/tls"
            try FileManager.default.createDirectory(atPath: tls, withIntermediateDirectories: true)
            let script = """
                set -euo pipefail
                bash scripts/make_tls_certs.sh '\(tls)'
                cd '\(tls)'
                cat > hba.conf <<'HBA'
                local all all trust
                host all eddy 127.0.0.1/32 trust
                host all eddy ::1/128 trust
                hostssl all \(role) 127.0.0.1/32 scram-sha-256
                hostssl all \(role) ::1/128 scram-sha-256
                hostnossl all \(role) 127.0.0.1/32 reject
                HBA
                """
            _ = try await PostgresFaultCluster.run(["bash", "-c", script], environment: [:])
            let url = try await PostgresFaultCluster.run(["bash", "scripts/pg_cluster.sh", "start"], environment: [
                "EDDY_PG_DIR": directory, "EDDY_PG_FAST": "1", "EDDY_PG_HBA": tls + "/hba.conf",
                "EDDY_PG_OPTIONS": "-c ssl=on -c ssl_cert_file=\(tls)/server.crt -c ssl_key_file=\(tls)/server.key",
            ]).trimmingCharacters(in: .whitespacesAndNewlines)
            guard case .postgres(let admin) = try DatabaseLocation(parsing: url) else { throw StorageTestError("pg_cluster.sh printed \(url)") }
            let connection = try await PostgresConnection.connect(
                on: PostgresClient.defaultEventLoopGroup.next(),
                configuration: .init(host: admin.host, port: admin.port, username: admin.username, password: nil,
                                     database: admin.database, tls: .disable), id: 1, logger: quiet).get()
            try await connection.query(PostgresQuery(unsafeSQL:
                "CREATE ROLE \(role) LOGIN SUPERUSER PASSWORD '\(password.replacingOccurrences(of: "'", with: "''"))'"), logger: quiet)
            try await connection.close()
            return TLSCluster(directory: directory, port: admin.port, caPath: tls + "/ca.crt", otherCAPath: tls + "/other.crt")
        }

        /// A URL of the role on this cluster.
        func url(host: String = "127.0.0.1", query: String) -> String { "postgres://\(role)@\(host):\(port)/postgres?\(query)" }
    }

    static let quiet = Logger(label: "tls-test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A password file of mode 0600 holding the role's line.
    static func passFile(_ cluster: TLSCluster) throws -> String {
        let path = cluster.directory + "/pgpass-\(UUID().uuidString.prefix(6))"
        let escaped = password.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ":", with: "\\:")
        try "# host:port:database:user:password\n*:*:other:*:nope\nlocalhost:\(cluster.port):*:\(role):\(escaped)\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
        return path
    }

    /// Opens the storage of `url` with `variables` as the environment: the storage, or the start-up error's text.
    static func open(_ url: String, _ variables: [String: String]) async throws -> Result<PostgresServerStorage, any Error> {
        guard case .postgres(let parsed) = try DatabaseLocation(parsing: url) else { throw StorageTestError("not postgres") }
        do {
            let location = try PostgresEnvironment(variables: variables, homeDirectory: nil).complete(parsed)
            var timeouts = DatabaseTimeouts()
            timeouts.connectSeconds = 10
            return .success(try await PostgresServerStorage.open(location, now: Date().timeIntervalSince1970, logger: quiet,
                                                                 maximumConnections: 2, timeouts: timeouts))
        } catch {
            return .failure(error)
        }
    }

    /// Whether the storage's pooled connections are encrypted (pg_stat_ssl of the connection's own backend).
    static func usesTLS(_ storage: PostgresServerStorage) async throws -> Bool {
        try await storage.read("ssl") { connection in
            let rows = try await connection.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", logger: quiet)
            for try await ssl in rows.decode(Bool.self) { return ssl }
            return false
        }
    }

    @Test func verifyFullWithTheRightCAAndHostConnectsOverTLSWithThePasswordFromAPassFile() async throws {
        let cluster = try await TLSCluster.shared()
        let result = try await Self.open(cluster.url(host: "localhost", query: "sslmode=verify-full&sslrootcert=\(cluster.caPath)"),
                                         ["PGPASSFILE": try Self.passFile(cluster)])
        let storage = try result.get()
        #expect(try await Self.usesTLS(storage))
        _ = try await storage.addKey(airline: "DAL", label: "tls", now: 0)
        await storage.shutdown()
    }

    @Test func verifyFullWithAnotherCAFailsNamingTheCertificateChain() async throws {
        let cluster = try await TLSCluster.shared()
        let result = try await Self.open(cluster.url(host: "localhost", query: "sslmode=verify-full&sslrootcert=\(cluster.otherCAPath)"),
                                         ["PGPASSWORD": Self.password])
        let message = try #require(result.failureText)
        #expect(message.contains("does not chain to a CA in the root CA file") && message.contains(cluster.otherCAPath), "\(message)")
    }

    @Test func verifyFullByANameTheCertificateDoesNotListFailsNamingTheHost() async throws {
        let cluster = try await TLSCluster.shared()
        // 127.0.0.1 reaches the same server, but the certificate names localhost only (no IP subjectAltName).
        let url = cluster.url(host: "127.0.0.1", query: "sslmode=verify-full&sslrootcert=\(cluster.caPath)")
        let message = try #require(try await Self.open(url, ["PGPASSWORD": Self.password]).failureText)
        #expect(message.contains("does not name the host connected to") && message.contains("verify-full"), "\(message)")
        // verify-ca checks the chain only: the same connection succeeds.
        let verifyCA = try await Self.open(cluster.url(host: "127.0.0.1", query: "sslmode=verify-ca&sslrootcert=\(cluster.caPath)"),
                                           ["PGPASSWORD": Self.password])
        let storage = try verifyCA.get()
        #expect(try await Self.usesTLS(storage))
        await storage.shutdown()
    }

    @Test func preferUsesTLSWhenTheServerOffersIt() async throws {
        let cluster = try await TLSCluster.shared()
        let storage = try await Self.open(cluster.url(query: "sslmode=prefer"), ["PGPASSWORD": Self.password]).get()
        #expect(try await Self.usesTLS(storage))
        await storage.shutdown()
    }

    @Test func aMissingOrWrongPasswordAndAPlainConnectionAreNamedAsSuch() async throws {
        let cluster = try await TLSCluster.shared()
        let url = cluster.url(query: "sslmode=require")
        let missing = try #require(try await Self.open(url, [:]).failureText)
        #expect(missing.contains("asks for a password") && missing.contains("PGPASSWORD"), "\(missing)")
        #expect(!missing.contains("is PostgreSQL running"), "\(missing)")
        let wrong = try #require(try await Self.open(url, ["PGPASSWORD": "wrong"]).failureText)
        #expect(wrong.contains("28P01") && wrong.contains("from PGPASSWORD"), "\(wrong)")
        let plain = try #require(try await Self.open(cluster.url(query: "sslmode=disable"), ["PGPASSWORD": Self.password]).failureText)
        #expect(plain.contains("28000") && plain.contains("pg_hba.conf") && plain.contains("sslmode=disable"), "\(plain)")
    }

    @Test func requireAgainstAServerWithoutTLSSaysSo() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let url = environment["EDDY_TEST_POSTGRES_URL"], !url.isEmpty else {
            if environment["CI"] == "true" { throw StorageTestError("EDDY_TEST_POSTGRES_URL is unset under CI=true") }
            try Test.cancel("EDDY_TEST_POSTGRES_URL is unset")
        }
        // The shared test cluster runs without ssl.
        let message = try #require(try await Self.open(url + "?sslmode=require", [:]).failureText)
        #expect(message.contains("does not accept TLS") && message.contains("sslmode=require"), "\(message)")
    }
}

/// The TLS cluster's folder (removed with the cluster when the test process exits).
let tlsClusterFolder = PostgresFaultCluster.root.path + "/.build/pg-tls-\(UUID().uuidString.prefix(8))"

extension Result {
    /// The failure's description (nil: success).
    var failureText: String? {
        if case .failure(let error) = self { return String(describing: error) }
        return nil
    }
}
#endif

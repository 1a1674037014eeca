import Foundation
import Postgres
import ReconSchema
import Synchronization

/// A fresh database for one test, on the test process's PostgreSQL server.
///
/// The server is `RECON_TEST_DATABASE_URL` when set; otherwise one throwaway cluster started for the
/// whole test process (`ScratchCluster`) and deleted when the process exits, also after a failure.
/// Each database is a copy of a template migrated once per process (`CREATE DATABASE … TEMPLATE`),
/// so a test starts from the real schema in milliseconds.
///
/// Database tests never skip: when no server can be found or started, `TestDatabase.create()` throws
/// an error that says what to install, and the test fails with it.
public struct TestDatabase: Sendable {
    /// The database's name on the server.
    public let name: String
    /// A conninfo string for this database (no password unless the server URL had one).
    public let conninfo: String

    /// Opens a new connection to this database.
    public func connect() throws -> PostgresConnection {
        try PostgresConnection(conninfo: conninfo, applicationName: "receipt-recon-tests")
    }

    /// Creates a database for one test.
    /// - Parameter migrated: a copy of the migrated template (default), or an empty database when false
    ///   (for tests of `migrate` itself).
    public static func create(migrated: Bool = true) throws -> TestDatabase {
        try TestServer.shared.get().createDatabase(migrated: migrated)
    }

    /// Creates a database, runs `body`, and drops the database afterwards (its connections are closed first).
    public static func with<T>(migrated: Bool = true, _ body: (TestDatabase) throws -> T) throws -> T {
        let database = try create(migrated: migrated)
        defer { database.drop() }
        return try body(database)
    }

    /// Drops the database, closing anything still connected to it.
    public func drop() {
        guard let server = try? TestServer.shared.get() else { return }
        server.dropDatabase(name)
    }
}

/// The server behind every `TestDatabase` of this process.
final class TestServer: Sendable {
    /// Started on first use. A failure is remembered so every test reports the same clear reason.
    static let shared: Result<TestServer, TestServerFailure> = {
        do {
            let server = try TestServer()
            atexit { TestServer.shutdownAtExit() }
            return .success(server)
        } catch let failure as TestServerFailure {
            return .failure(failure)
        } catch {
            return .failure(TestServerFailure(message: "\(error)"))
        }
    }()

    private let cluster: ScratchCluster?
    private let base: ConnectionString
    private let template: String
    private let prefix: String
    private let counter = Mutex(0)
    /// CREATE DATABASE … TEMPLATE needs the template to have no other session; one at a time is enough.
    private let creation = Mutex(())

    private init() throws {
        prefix = "recon_test_\(getpid())"
        template = prefix + "_template"
        if let url = ProcessInfo.processInfo.environment["RECON_TEST_DATABASE_URL"], !url.isEmpty {
            cluster = nil
            base = try ConnectionString(url)
        } else {
            do {
                // Durability is pointless for a cluster deleted at exit; turning it off makes
                // CREATE DATABASE and commits fast. (The benchmark keeps the defaults.)
                cluster = try ScratchCluster(settings: [
                    "fsync": "off", "synchronous_commit": "off",
                    "full_page_writes": "off",
                ])
            } catch {
                throw TestServerFailure(
                    message: "database tests need PostgreSQL and could not start a throwaway "
                        + "cluster: \(error). Install it with 'apt-get install -y postgresql libpq-dev', or point "
                        + "RECON_TEST_DATABASE_URL at a server where this user may CREATE DATABASE.")
            }
            base = try ConnectionString(cluster!.conninfo)
        }
        let admin = try PostgresConnection(conninfo: base.rendered, applicationName: "receipt-recon-tests")
        try admin.execute(PostgresQuery(unsafeSQL: "CREATE DATABASE \(template)"))
        let templateConnection = try PostgresConnection(conninfo: base.replacingDatabase(with: template).rendered)
        _ = try Migrator().apply(on: templateConnection)
    }

    func createDatabase(migrated: Bool) throws -> TestDatabase {
        let number = counter.withLock { value in
            value += 1
            return value
        }
        let name = "\(prefix)_\(number)"
        let source = migrated ? template : "template0"
        try creation.withLock { _ in
            let admin = try PostgresConnection(conninfo: base.rendered, applicationName: "receipt-recon-tests")
            try admin.execute(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name) TEMPLATE \(source)"))
        }
        return TestDatabase(name: name, conninfo: base.replacingDatabase(with: name).rendered)
    }

    func dropDatabase(_ name: String) {
        guard let admin = try? PostgresConnection(conninfo: base.rendered, applicationName: "receipt-recon-tests")
        else {
            return
        }
        _ = try? admin.execute(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"))
    }

    /// On an external server, removes this process's databases; a throwaway cluster is deleted whole.
    private func shutdown() {
        if let cluster {
            cluster.stop()
            return
        }
        guard let admin = try? PostgresConnection(conninfo: base.rendered) else { return }
        let names = (try? admin.databaseNames(like: prefix + "\\_%")) ?? []
        for name in names {
            _ = try? admin.execute(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"))
        }
    }

    private static func shutdownAtExit() {
        if case .success(let server) = shared { server.shutdown() }
    }
}

public struct TestServerFailure: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { message }
}

extension PostgresConnection {
    /// Waits (up to `timeout`) until no session holds an advisory lock: PostgreSQL frees a SIGKILLed
    /// run's locks only once it notices the dead connection, and on a loaded machine that takes a moment;
    /// a run started before then would find the nightly lock held and exit 75.
    public func waitUntilAdvisoryLocksAreFree(timeout: TimeInterval = 15) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try advisoryLockCount() == 0 { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}

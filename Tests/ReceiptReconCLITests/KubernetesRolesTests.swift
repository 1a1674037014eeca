import Foundation
import Postgres
import ReconSchema
import TestSupport
import Testing

/// The Kubernetes example with the documented roles, through the built binary and a real PostgreSQL:
/// the owner role migrates (the migrate Job's container), the job role runs (the CronJob's pod, its
/// script run by /bin/sh) and cannot migrate. Whatever the run's end, the sidecar pushes its metrics.
@Suite struct KubernetesRolesTests {
    typealias Object = KubernetesCronJobTests.Object

    /// The CronJob pod's run script, with `receipt-recon` the built binary, as the job role; then the
    /// sidecar's script stopped as the kubelet stops it. Returns the script's exit and what was pushed.
    static func nightlyPod(conninfo: String, shard: Int) throws -> (status: Int32, pushed: String?, output: String) {
        let run = try KubernetesCronJobTests.container("receipt-recon")
        let sidecar = try KubernetesCronJobTests.container("push-metrics")
        let directory = try KubernetesCronJobTests.standIns([
            "curl": """
            #!/bin/sh
            for argument in "$@"; do
              case "$argument" in @*) cat "${argument#@}" > "$STANDIN_DIR/pushed";; esac
            done
            """,
            "sleep": "#!/bin/sh\ntouch \"$STANDIN_DIR/sleeping\"\nexec /bin/sleep \"$@\"\n",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createSymbolicLink(
            atPath: directory.appendingPathComponent("bin/receipt-recon").path,
            withDestinationPath: ReceiptReconBinary.url.path)
        var environment = KubernetesCronJobTests.environment(run)
        // The Secret receipt-recon-env: the job role's connection. The verifyReceipt backend here (no key
        // file: the key's own container is tested apart); an empty night asks Apple nothing.
        environment["DATABASE_URL"] = conninfo
        environment["APPLE_API_KEY_FILE"] = nil
        environment["PATH"] = directory.appendingPathComponent("bin").path + ":/usr/bin:/bin"
        environment["METRICS_DIR"] = directory.path
        environment["JOB_COMPLETION_INDEX"] = String(shard)
        environment["STANDIN_DIR"] = directory.path
        let result = try ChildProcess.run(
            "/bin/sh", ["-c", try KubernetesCronJobTests.script(run)], environment: environment, timeout: 120)

        var sidecarEnvironment = KubernetesCronJobTests.environment(sidecar)
        sidecarEnvironment["PATH"] = environment["PATH"]
        sidecarEnvironment["METRICS_DIR"] = directory.path
        sidecarEnvironment["JOB_COMPLETION_INDEX"] = String(shard)
        sidecarEnvironment["STANDIN_DIR"] = directory.path
        let pusher = try ChildProcess.start(
            "/bin/sh", ["-c", try KubernetesCronJobTests.script(sidecar)], environment: sidecarEnvironment)
        try KubernetesCronJobTests.waitFor(directory.appendingPathComponent("sleeping").path)
        pusher.signal(SIGTERM)
        _ = try pusher.wait(timeout: 60)
        let pushed = try? String(contentsOfFile: directory.path + "/pushed", encoding: .utf8)
        return (result.status, pushed, result.stdoutText + result.stderrText)
    }

    static func exitCode(in metrics: String?) -> String? {
        metrics?.split(separator: "\n").first { $0.hasPrefix("receipt_recon_last_run_exit_code{") }?
            .split(separator: " ").last.map(String.init)
    }

    @Test func theOwnerMigratesTheJobRoleRunsAndCannotMigrate() throws {
        try TestDatabase.with(migrated: false) { database in
            let admin = try database.connect()
            let owner = database.name + "_owner"
            let job = database.name + "_job"
            defer {
                for role in [job, owner] {
                    _ = try? admin.execute(PostgresQuery(unsafeSQL: "DROP OWNED BY \(role)"))
                    _ = try? admin.execute(PostgresQuery(unsafeSQL: "DROP ROLE IF EXISTS \(role)"))
                }
            }
            // docs/integration.md's roles: the owner owns the job's schema, the job role only uses it.
            try admin.executeScript(
                """
                CREATE ROLE \(owner) LOGIN;
                CREATE ROLE \(job) LOGIN;
                CREATE SCHEMA recon AUTHORIZATION \(owner);
                ALTER ROLE \(owner) IN DATABASE \(database.name) SET search_path = recon;
                ALTER ROLE \(job) IN DATABASE \(database.name) SET search_path = recon;
                """)
            let ownerURL = database.conninfo + " user=\(owner)"
            let jobURL = database.conninfo + " user=\(job)"

            // A release not migrated yet: the pod's run refuses it (78, which fails the Job), and the
            // refusal still reaches the Pushgateway.
            let early = try Self.nightlyPod(conninfo: jobURL, shard: 1)
            #expect(early.status == 78, "\(early.output)")
            #expect(early.output.contains("migrate"), "says what to do: \(early.output)")
            #expect(Self.exitCode(in: early.pushed) == "78", "\(early.pushed ?? "nothing pushed")")

            // The job role cannot migrate (what the pods would have run before): it changes nothing.
            let byJob = try ReceiptReconBinary.run(["migrate"], environment: ["DATABASE_URL": jobURL])
            #expect(byJob.status != 0, "\(byJob.output)")
            let tables: Int = try admin.query(
                "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'recon'"
            ).first!.decode("n")
            #expect(tables == 0)

            // The migrate Job's container, as the owner from its own Secret.
            let migrateJob = try KubernetesCronJobTests.load(KubernetesCronJobTests.migrateJobPath)
            let migratePod = try #require(KubernetesCronJobTests.object(migrateJob, "spec", "template", "spec"))
            let migrate = try #require(KubernetesCronJobTests.containers(migratePod).first)
            let byOwner = try ReceiptReconBinary.run(
                try #require(migrate["args"] as? [String]), environment: ["DATABASE_URL": ownerURL])
            #expect(byOwner.status == 0, "\(byOwner.output)")

            // The owner grants the job role what the nightly job needs (docs/integration.md, step 6).
            let ownerConnection = try PostgresConnection(conninfo: ownerURL)
            try ownerConnection.execute(PostgresQuery(unsafeSQL: "GRANT USAGE ON SCHEMA recon TO \(job)"))
            for (table, privileges) in JobPrivileges.tables {
                try ownerConnection.execute(
                    PostgresQuery(unsafeSQL: "GRANT \(privileges.joined(separator: ", ")) ON recon.\(table) TO \(job)"))
            }
            for sequence in JobPrivileges.sequences {
                try ownerConnection.execute(
                    PostgresQuery(unsafeSQL: "GRANT USAGE ON SEQUENCE recon.\(sequence) TO \(job)"))
            }

            let night = try Self.nightlyPod(conninfo: jobURL, shard: 1)
            #expect(night.status == 0, "\(night.output)")
            #expect(Self.exitCode(in: night.pushed) == "0", "\(night.pushed ?? "nothing pushed")")
            #expect(night.pushed?.contains("shard=\"1/4\"") == true, "\(night.pushed ?? "")")
        }
    }
}

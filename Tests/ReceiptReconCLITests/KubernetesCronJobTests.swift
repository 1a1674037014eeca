import Foundation
import TestSupport
import Testing

/// `cron/kubernetes-cronjob.yaml` read as Kubernetes reads it (python3-yaml), its properties checked one
/// by one, and its shell scripts run by /bin/sh around stand-ins: the run's (exit 1 is a normal night,
/// SIGTERM reaches the job), the metrics sidecar's (pushes once the run ended) and the key container's
/// (the job's own copy of the key, mode 0400).
@Suite struct KubernetesCronJobTests {
    typealias Object = [String: Any]

    static let path = CronWrapperTests.wrapper.replacingOccurrences(
        of: "receipt-recon-nightly.sh", with: "kubernetes-cronjob.yaml")

    /// The Job that migrates as the schema's owner, once per release.
    static let migrateJobPath = path.replacingOccurrences(
        of: "kubernetes-cronjob.yaml", with: "kubernetes-migrate-job.yaml")

    static func load(_ path: String = path) throws -> Object {
        let script = "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))"
        let result = try ChildProcess.run("/usr/bin/python3", ["-c", script, path], timeout: 60)
        try #require(result.status == 0, "python3-yaml could not read it: \(result.stderrText)")
        return try #require(try JSONSerialization.jsonObject(with: result.stdout) as? Object)
    }

    static func object(_ value: Any?, _ keys: String...) -> Object? {
        var current = value
        for key in keys { current = (current as? Object)?[key] }
        return current as? Object
    }

    static func job() throws -> Object { try #require(object(try load(), "spec", "jobTemplate", "spec")) }
    static func pod() throws -> Object { try #require(object(try job(), "template", "spec")) }

    static func containers(_ pod: Object, _ key: String = "containers") -> [Object] {
        pod[key] as? [Object] ?? []
    }

    static func container(_ name: String) throws -> Object {
        let pod = try pod()
        return try #require(
            (containers(pod) + containers(pod, "initContainers")).first { $0["name"] as? String == name })
    }

    /// The script of a `["/bin/sh", "-c"]` container.
    static func script(_ container: Object) throws -> String {
        try #require(container["command"] as? [String] == ["/bin/sh", "-c"])
        return try #require((container["args"] as? [String])?.first)
    }

    static func environment(_ container: Object) -> [String: String] {
        var values: [String: String] = [:]
        for entry in container["env"] as? [Object] ?? [] {
            if let name = entry["name"] as? String, let value = entry["value"] as? String { values[name] = value }
        }
        return values
    }

    /// A directory of stand-in commands, installed by a child process (see CronWrapperStandInTests).
    static func standIns(_ scripts: [String: String]) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("k8s-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("bin"), withIntermediateDirectories: true)
        for (name, text) in scripts {
            let source = directory.appendingPathComponent("\(name).source")
            try text.write(to: source, atomically: true, encoding: .utf8)
            let installed = try ChildProcess.run(
                "/usr/bin/install", ["-m", "0755", source.path, directory.appendingPathComponent("bin/\(name)").path],
                timeout: 60)
            try #require(installed.status == 0)
        }
        return directory
    }

    /// `container`'s environment run over the stand-ins in `directory` (first on PATH, metrics and
    /// stand-in files there) as the pod with completion index `index`.
    static func environment(_ container: Object, standIns directory: URL, index: String) -> [String: String] {
        var values = environment(container)
        values["PATH"] = directory.appendingPathComponent("bin").path + ":/usr/bin:/bin"
        values["METRICS_DIR"] = directory.path
        values["JOB_COMPLETION_INDEX"] = index
        values["STANDIN_DIR"] = directory.path
        return values
    }

    static func waitFor(_ path: String) throws {
        for _ in 0..<600 where !FileManager.default.fileExists(atPath: path) { usleep(50_000) }
        try #require(FileManager.default.fileExists(atPath: path), "\(path) never appeared")
    }

    @Test func podFailurePolicyFailsOnlyWhatAPersonMustFixAndRetriesTheLock() throws {
        let job = try Self.job()
        let rules = try #require(Self.object(job, "podFailurePolicy")?["rules"] as? [Object])
        func codes(_ action: String) -> Set<Int> {
            Set(
                rules.filter { $0["action"] as? String == action }.flatMap {
                    (Self.object($0, "onExitCodes")?["values"] as? [Int]) ?? []
                })
        }
        #expect(codes("FailJob") == [64, 65, 77, 78])
        #expect(codes("Ignore") == [75])
        let failJob = try #require(rules.first { $0["action"] as? String == "FailJob" })
        #expect(Self.object(failJob, "onExitCodes")?["containerName"] == nil, "migrate's 77 and 78 fail the Job too")
        #expect(rules.allSatisfy { (Self.object($0, "onExitCodes")?["values"] as? [Int])?.contains(1) != true })
        #expect(try Self.pod()["restartPolicy"] as? String == "Never", "podFailurePolicy needs it")
    }

    /// Each shard its own failure budget: no budget shared by the shards, and a failed shard never
    /// stops the others (maxFailedIndexes is reached only when every shard has failed).
    @Test func eachShardHasItsOwnFailureBudget() throws {
        let job = try Self.job()
        let shards = try #require(job["completions"] as? Int)
        #expect(job["backoffLimit"] == nil, "a backoffLimit is shared by every shard")
        let perIndex = try #require(job["backoffLimitPerIndex"] as? Int)
        #expect(perIndex >= 1, "a transient failure is retried")
        #expect(job["maxFailedIndexes"] as? Int == shards - 1)
    }

    /// The Job's deadline outlasts a night that waited out the default budget (read from the binary),
    /// with half an hour at least to finish.
    @Test func theDeadlineOutlastsTheDefaultBudget() throws {
        let deadline = try #require(try Self.job()["activeDeadlineSeconds"] as? Int)
        let budget = try SystemdUnitTests.defaultBudgetSeconds()
        #expect(Double(deadline) >= budget + 1800, "activeDeadlineSeconds \(deadline), budget \(budget) s")
    }

    /// The run's script as the container runs it, around a stand-in `receipt-recon` exiting with `code`.
    @Test(arguments: [(Int32(0), Int32(0)), (1, 0), (69, 69), (70, 70), (75, 75), (77, 77), (78, 78)])
    func aNormalNightIsSuccessAndEveryOtherExitIsPassedOn(code: Int32, podExit: Int32) throws {
        let container = try Self.container("receipt-recon")
        let directory = try Self.standIns([
            "receipt-recon": "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$STANDIN_DIR/args\"\nexit \"$STANDIN_EXIT\"\n"
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        var environment = Self.environment(container, standIns: directory, index: "2")
        environment["STANDIN_EXIT"] = String(code)
        let result = try ChildProcess.run(
            "/bin/sh", ["-c", try Self.script(container)], environment: environment, timeout: 60)
        #expect(result.status == podExit, "\(result.stderrText)")
        let arguments = try String(contentsOf: directory.appendingPathComponent("args"), encoding: .utf8)
        #expect(
            arguments.split(separator: "\n")
                == ["run", "--json", "--shard", "2/4", "--metrics-file", "\(directory.path)/receipt_recon.prom"])
    }

    /// The shell is the container's PID 1: the pod's SIGTERM must reach the run, which then stops
    /// cleanly with 75 (a shell without the trap would die at once and leave the run to be killed).
    @Test func sigtermReachesTheRun() throws {
        let container = try Self.container("receipt-recon")
        let directory = try Self.standIns([
            "receipt-recon": """
            #!/bin/sh
            trap 'touch "$STANDIN_DIR/interrupted"; exit 75' TERM
            touch "$STANDIN_DIR/started"
            while :; do sleep 1; done
            """
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = Self.environment(container, standIns: directory, index: "0")
        let shell = try ChildProcess.start("/bin/sh", ["-c", try Self.script(container)], environment: environment)
        try Self.waitFor(directory.appendingPathComponent("started").path)
        shell.signal(SIGTERM)
        let result = try shell.wait(timeout: 60)
        #expect(result.status == 75)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("interrupted").path))
    }

    @Test(arguments: [true, false])
    func theSidecarPushesTheMetricsOnceTheRunEnded(fileWritten: Bool) throws {
        let sidecar = try Self.container("push-metrics")
        #expect(sidecar["restartPolicy"] as? String == "Always", "a sidecar, stopped after the run")
        let directory = try Self.standIns([
            "curl": "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$STANDIN_DIR/curl-args\"\n",
            "sleep": "#!/bin/sh\ntouch \"$STANDIN_DIR/sleeping\"\nexec /bin/sleep \"$@\"\n",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        if fileWritten {
            try "receipt_recon_build_info 1\n".write(
                toFile: directory.path + "/receipt_recon.prom", atomically: true, encoding: .utf8)
        }
        let environment = Self.environment(sidecar, standIns: directory, index: "3")
        let shell = try ChildProcess.start("/bin/sh", ["-c", try Self.script(sidecar)], environment: environment)
        try Self.waitFor(directory.appendingPathComponent("sleeping").path)
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/curl-args"), "nothing pushed while running")
        shell.signal(SIGTERM)
        let result = try shell.wait(timeout: 60)
        #expect(result.status == 0)
        let pushed = try? String(contentsOfFile: directory.path + "/curl-args", encoding: .utf8)
        if fileWritten {
            let arguments = try #require(pushed).split(separator: "\n")
            #expect(arguments.contains("PUT"))
            #expect(arguments.contains("@\(directory.path)/receipt_recon.prom"))
            #expect(
                arguments.last == "http://pushgateway.monitoring.svc:9091/metrics/job/receipt-recon/instance/shard-3")
        } else {
            #expect(pushed == nil)
            #expect(result.stdoutText.contains("no metrics file to push"))
        }
    }

    /// The Secret's file is root's and group-readable (fsGroup); the key container's script, run here,
    /// leaves the job a file of its own that nobody else may read, where the run looks for it.
    @Test func theAPIKeyIsAFileFromASecretReadableByItsOwnerOnly() throws {
        let pod = try Self.pod()
        let run = try Self.container("receipt-recon")
        let copy = try Self.container("apple-key")
        let secret = try #require((pod["volumes"] as? [Object])?.first { Self.object($0, "secret") != nil })
        #expect(Self.object(secret, "secret")?["defaultMode"] as? Int == 0o400)
        func mount(_ container: Object, _ volume: String) -> Object? {
            (container["volumeMounts"] as? [Object])?.first { $0["name"] as? String == volume }
        }
        let secretMount = try #require(mount(copy, secret["name"] as? String ?? "?"))
        #expect(secretMount["readOnly"] as? Bool == true)
        #expect(mount(run, secret["name"] as? String ?? "?") == nil, "the run never reads the group-readable file")
        let keyFile = try #require(Self.environment(run)["APPLE_API_KEY_FILE"])
        #expect(Self.environment(copy)["APPLE_API_KEY_FILE"] == keyFile)
        #expect(
            Self.environment(copy)["KEY_SOURCE"]?.hasPrefix((secretMount["mountPath"] as? String ?? "?") + "/") == true)
        let keyVolume = try #require(
            (pod["volumes"] as? [Object])?.first { volume in
                [run, copy].allSatisfy { container in
                    mount(container, volume["name"] as? String ?? "?").map {
                        keyFile.hasPrefix(($0["mountPath"] as? String ?? "?") + "/")
                    } ?? false
                }
            })
        #expect(Self.object(keyVolume, "emptyDir")?["medium"] as? String == "Memory")

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("k8s-key-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("SubscriptionKey.p8")
        try Data("not a real key\n".utf8).write(to: source)
        try FileManager.default.setAttributes([.posixPermissions: 0o440], ofItemAtPath: source.path)
        let target = directory.appendingPathComponent("copied.p8").path
        let result = try ChildProcess.run(
            "/bin/sh", ["-c", try Self.script(copy)],
            environment: ["PATH": "/usr/bin:/bin", "KEY_SOURCE": source.path, "APPLE_API_KEY_FILE": target],
            timeout: 30)
        #expect(result.status == 0, "\(result.stderrText)")
        let mode = try FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? Int
        #expect(mode == 0o400)
    }

    /// Every command a container of the nightly pod runs: its args, or its script.
    static func commands(_ container: Object) -> String {
        ((container["command"] as? [String] ?? []) + (container["args"] as? [String] ?? [])).joined(separator: " ")
    }

    /// The nightly pods run as the job's role, which cannot migrate: none of them runs `migrate` (but
    /// for `--check`); the migrate Job runs it with the same image from the owner's own Secret.
    @Test func theNightlyPodsNeverMigrateTheOwnersJobDoes() throws {
        let pod = try Self.pod()
        for container in Self.containers(pod) + Self.containers(pod, "initContainers") {
            let text = Self.commands(container)
            let migrates = text.range(of: #"(^|[\s"])migrate(?![\w-])(?!\s+--check)"#, options: .regularExpression)
            #expect(migrates == nil, "\(container["name"] ?? "?") migrates: \(text)")
        }
        let migrateJob = try Self.load(Self.migrateJobPath)
        #expect(migrateJob["kind"] as? String == "Job")
        let migratePod = try #require(Self.object(migrateJob, "spec", "template", "spec"))
        let migrate = try #require(Self.containers(migratePod).first)
        #expect(migrate["args"] as? [String] == ["migrate"])
        #expect(migrate["image"] as? String == (try Self.container("receipt-recon"))["image"] as? String)
        func secrets(_ container: Object) -> [String] {
            (container["envFrom"] as? [Object] ?? []).compactMap { Self.object($0, "secretRef")?["name"] as? String }
        }
        let ownerSecrets = secrets(migrate)
        let jobSecrets = secrets(try Self.container("receipt-recon"))
        #expect(!ownerSecrets.isEmpty && !jobSecrets.isEmpty)
        #expect(Set(ownerSecrets).isDisjoint(with: jobSecrets), "the owner's credentials are not the pods'")

        // The documented Secrets name the documented roles.
        func documentedUser(_ file: String, _ secret: String) throws -> String? {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            let start = try #require(text.range(of: "kubectl create secret generic \(secret)"), "\(file): \(secret)")
            let url = try #require(text[start.upperBound...].range(of: "DATABASE_URL='"))
            let conninfo = text[url.upperBound...].prefix { $0 != "'" }
            return conninfo.split(separator: " ").first { $0.hasPrefix("user=") }.map { String($0.dropFirst(5)) }
        }
        #expect(try documentedUser(Self.path, jobSecrets[0]) == "recon_job")
        #expect(try documentedUser(Self.migrateJobPath, ownerSecrets[0]) == "recon_owner")
    }

    /// The metrics sidecar is the first container to start, so nothing that fails before the run (the
    /// key's container) or the run's own refusal keeps it from pushing.
    @Test func theSidecarStartsBeforeAnythingThatCanFail() throws {
        let first = try #require(Self.containers(try Self.pod(), "initContainers").first)
        #expect(first["name"] as? String == "push-metrics")
        #expect(first["restartPolicy"] as? String == "Always")
    }

    /// A key Secret created under another key name: the key's container fails with 78 (which fails the
    /// Job at once) and says which keys the Secret holds, instead of a failed `install` retried.
    @Test func aKeyUnderTheWrongNameIsAConfigurationErrorNamingWhatIsThere() throws {
        let copy = try Self.container("apple-key")
        #expect(copy["terminationMessagePolicy"] as? String == "FallbackToLogsOnError")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("k8s-key-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("-----BEGIN PRIVATE KEY-----\nsecret\n".utf8).write(
            to: directory.appendingPathComponent("SubscriptionKey_ABC123DEFG.p8"))
        let expected = try #require(Self.environment(copy)["KEY_SOURCE"]).split(separator: "/").last.map(String.init)
        let result = try ChildProcess.run(
            "/bin/sh", ["-c", try Self.script(copy)],
            environment: [
                "PATH": "/usr/bin:/bin", "KEY_SOURCE": directory.appendingPathComponent(expected ?? "?").path,
                "APPLE_API_KEY_FILE": directory.appendingPathComponent("copied.p8").path,
            ], timeout: 30)
        #expect(result.status == 78)
        #expect(result.stderrText.contains("has no key \(expected ?? "?")"), "\(result.stderrText)")
        #expect(result.stderrText.contains("SubscriptionKey_ABC123DEFG.p8"), "names what it holds")
        #expect(!result.stderrText.contains("secret\n") && !result.stderrText.contains("BEGIN"), "never the key")
        let rules = try #require(Self.object(try Self.job(), "podFailurePolicy")?["rules"] as? [Object])
        let failJob = rules.filter { $0["action"] as? String == "FailJob" }
        #expect(failJob.contains { (Self.object($0, "onExitCodes")?["values"] as? [Int])?.contains(78) == true })
        #expect(failJob.allSatisfy { Self.object($0, "onExitCodes")?["containerName"] == nil }, "any container's 78")
    }

    @Test func everyImageIsPinnedByDigestAndEveryContainerIsBoundedAndUnprivileged() throws {
        let pod = try Self.pod()
        let migratePod = try #require(Self.object(try Self.load(Self.migrateJobPath), "spec", "template", "spec"))
        let all = Self.containers(pod) + Self.containers(pod, "initContainers") + Self.containers(migratePod)
        #expect(all.count == 4)
        for container in all {
            let name = container["name"] as? String ?? "?"
            let image = container["image"] as? String ?? ""
            #expect(image.range(of: "@sha256:[0-9a-f]{64}$", options: .regularExpression) != nil, "\(name): \(image)")
            #expect(Self.object(container, "resources", "requests")?["memory"] != nil, "\(name)")
            #expect(Self.object(container, "resources", "limits")?["memory"] != nil, "\(name)")
            let security = try #require(Self.object(container, "securityContext"), "\(name)")
            #expect(security["readOnlyRootFilesystem"] as? Bool == true, "\(name)")
            #expect(security["allowPrivilegeEscalation"] as? Bool == false, "\(name)")
            #expect(Self.object(security, "capabilities")?["drop"] as? [String] == ["ALL"], "\(name)")
        }
        for pod in [pod, migratePod] {
            let security = try #require(Self.object(pod, "securityContext"))
            #expect(security["runAsNonRoot"] as? Bool == true)
            #expect(security["runAsUser"] as? Int == 10001)
            #expect(Self.object(security, "seccompProfile")?["type"] as? String == "RuntimeDefault")
            #expect(pod["automountServiceAccountToken"] as? Bool == false)
        }
    }

    /// As many pods as shards, and the shard count the run is given is the Job's.
    @Test func everyShardHasItsPod() throws {
        let job = try Self.job()
        let shards = try #require(Int(Self.environment(try Self.container("receipt-recon"))["SHARDS"] ?? ""))
        #expect(job["completionMode"] as? String == "Indexed")
        #expect(job["completions"] as? Int == shards)
        #expect(job["parallelism"] as? Int == shards)
        #expect(
            try Self.script(try Self.container("receipt-recon")).contains("--shard \"$JOB_COMPLETION_INDEX/$SHARDS\""))
        #expect(
            try !Self.script(try Self.container("receipt-recon")).contains("--rate"), "shards share the default rate")
    }
}

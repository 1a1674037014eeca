import Foundation

/// The figures the bench reads from `receipt-recon run --json` (the job's `RunSummary`).
///
/// Read leniently by key, not through the job's own type: the bench measures whichever build of
/// `receipt-recon` it is given, and a key that build does not print is reported missing, never guessed.
struct JobSummary: Sendable {
    var status: String?
    var receiptsSelected: Int?
    var receiptsProcessed: Int?
    var usersProcessed: Int?
    var appleRequests: Int?
    var appleRetries: Int?
    var appleThrottled: Int?
    var corrections: Int?
    /// Seconds the job spent waiting on PostgreSQL across its connections (`databaseSeconds`).
    var databaseSeconds: Double?
    /// Requests per endpoint (`appleRequestsByEndpoint`).
    var requestsByEndpoint: [String: Int] = [:]
    /// Requests per reason the run took its users for (`requestsByReason`: notified, new, sweep,
    /// older_than); empty from a build that does not print it.
    var requestsByReason: [String: Int] = [:]
    /// Seconds per phase of the run (`phaseSeconds`: `historyRead`, `queueFill`, `verification`,
    /// `write`, `finish`); empty from a build that does not measure them.
    var phaseSeconds: [String: Double] = [:]

    /// The last line of `stdout` that is a JSON object; nil when there is none.
    init?(stdout: String) {
        guard let line = stdout.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else { return nil }
        func integer(_ key: String) -> Int? { (object[key] as? NSNumber)?.intValue }
        status = object["status"] as? String
        receiptsSelected = integer("receiptsSelected")
        receiptsProcessed = integer("receiptsProcessed")
        usersProcessed = integer("usersProcessed")
        appleRequests = integer("appleRequests")
        appleRetries = integer("appleRetries")
        appleThrottled = integer("appleThrottled")
        databaseSeconds = (object["databaseSeconds"] as? NSNumber)?.doubleValue
        for (endpoint, count) in object["appleRequestsByEndpoint"] as? [String: Any] ?? [:] {
            if let count = (count as? NSNumber)?.intValue { requestsByEndpoint[endpoint] = count }
        }
        for (reason, count) in object["requestsByReason"] as? [String: Any] ?? [:] {
            if let count = (count as? NSNumber)?.intValue { requestsByReason[reason] = count }
        }
        for (phase, seconds) in object["phaseSeconds"] as? [String: Any] ?? [:] {
            if let seconds = (seconds as? NSNumber)?.doubleValue { phaseSeconds[phase] = seconds }
        }
        if let byAction = object["corrections"] as? [String: [String: Any]] {
            corrections = byAction.values.reduce(0) { total, reasons in
                total + reasons.values.reduce(0) { $0 + (($1 as? NSNumber)?.intValue ?? 0) }
            }
        }
    }
}

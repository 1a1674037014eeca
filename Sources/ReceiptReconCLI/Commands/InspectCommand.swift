import AppStoreReceipts
import CommandLineOptions
import Foundation
import Reconciliation

/// `receipt-recon inspect FILE|-`: decode one receipt, or verify one piece of Apple's signed data
/// (a compact JWS), locally, and print it as JSON; no network.
struct InspectCommand: Command {
    static let spec = CommandSpec(
        name: "inspect",
        usage: "inspect FILE|- [options]",
        summary:
            "Decode one receipt (base64 app receipt or iOS 6 transaction receipt), or verify Apple's signed data "
            + "(a JWS: StoreKit 2 transaction, renewal info, notification, app transaction), and print it as JSON.",
        discussion: """
            Reads FILE, or stdin with '-'; surrounding whitespace is ignored. No network. Signed data is verified \
            as the job verifies it (ES256, x5c chain to Apple Root CA - G3 with Apple's OIDs, checked at the \
            payload's signedDate) and printed with the verdict; it exits 65 when the verdict is invalid. The \
            bundle id and environment are checked only when given (flags or APPLE_BUNDLE_IDS, RECON_ENVIRONMENT). \
            An app receipt's PKCS#7 signature is verified as '--backend server-api' verifies it (signer chain to \
            Apple Inc. Root CA, checked at the receipt's creation date) and printed as 'signature' (verified, \
            failed with a 'reason', or not_applicable for an iOS 6 receipt) with 'checked_at' and the signer \
            'chain'; it exits 65 after printing when the signature failed. --apple-root-certificate replaces \
            both built-in roots. The output is described in docs/signed-data.md.
            """,
        options: SettingsTable.options(InspectSettings.all),
        environment: ["APPLE_ROOT_CERTIFICATES", "APPLE_BUNDLE_IDS", "RECON_ENVIRONMENT"],
        exitCodes: [.success, .usage, .dataError, .internalError, .configuration]
    )

    let path: String
    let verifier: SignedDataVerifier
    let receiptSignatures: ReceiptSignatureVerifier

    init(_ arguments: ParsedArguments, environment variables: [String: String]) throws(CommandError) {
        path = try arguments.onePositional("FILE", missing: " (or '-' for stdin)")
        // The job's settings, read by its rule; here an absent environment means no check.
        let settings = SettingResolver(arguments, environment: variables)
        let bundleIDs = try settings.value(InspectSettings.bundleIDs)
        let environment = try settings.given(InspectSettings.environment)
        let roots = try settings.value(AppleSettings.rootCertificates)
        do {
            verifier = try SignedDataVerifier.make(
                rootCertificateFiles: roots, acceptedBundleIDs: Set(bundleIDs), environment: environment)
            receiptSignatures = try ReceiptSignatureVerifier.make(rootCertificateFiles: roots)
        } catch {
            throw .configuration(error.description)
        }
    }

    func run(_ console: Console) throws -> ExitCode {
        let input: Data
        if path == "-" {
            input = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CommandError(
                    .dataError, "inspect: cannot read '\(path)': check that the file exists and is readable")
            }
            input = data
        }
        let bytes = Array(input)
        if SignedDataVerifier.looksLikeJWS(bytes) { return try inspectSigned(bytes, console) }
        // The decoder bounds size, depth and every length itself; it never echoes the bytes.
        let receipt: LocalReceipt
        do {
            receipt = try LocalReceiptDecoder.decode(base64Text: input)
        } catch {
            throw CommandError(.dataError, "inspect: not a receipt: \(error)")
        }
        // Like signed data: the object is printed whatever the verdict, and a failed signature is a
        // data error (65) with its reason on stderr.
        let signature = receiptSignatures.verify(base64: String(decoding: input, as: UTF8.self))
        console.print(receipt.inspectJSON(signature: signature))
        guard let failure = signature.failure else { return .success }
        throw CommandError(.dataError, "inspect: the app receipt's signature is not valid: \(failure)")
    }

    /// Verifies signed data and prints the verdict with the payload. Data whose payload cannot even be
    /// read gets a one-line reason only, like any other input that is not a receipt.
    private func inspectSigned(_ bytes: [UInt8], _ console: Console) throws -> ExitCode {
        let verification = verifier.verify(bytes)
        guard verification.payload != nil else {
            throw CommandError(
                .dataError, "inspect: not valid signed data: \(verification.failure.map { "\($0)" } ?? "")")
        }
        console.print(verification.inspectObject.rendered(pretty: true))
        guard let failure = verification.failure else { return .success }
        throw CommandError(.dataError, "inspect: signed data is not valid: \(failure)")
    }
}

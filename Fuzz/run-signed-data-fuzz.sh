#!/usr/bin/env bash
# Fuzzes the signed data verifier (compact JWS, x5c certificates, payloads) with libFuzzer +
# AddressSanitizer.
#
#   Fuzz/run-signed-data-fuzz.sh [RUNS] [extra libFuzzer flags...]
#
# Not part of `swift build` / `swift test` (`.ci/fuzz-smoke` runs it briefly): it compiles
# Sources/AppStoreReceipts (over the CivilTime module and OpenSSL's libcrypto) together with
# Fuzz/SignedDataFuzz/fuzz_entry.swift straight with swiftc (Fuzz/fuzz-build.sh), seeds a corpus from the conformance signed data, certificates and
# models and a few hand-written documents, and runs RUNS inputs (default 1,000,000). Build
# products go to Fuzz/.build, the corpus to fuzz-corpus/ (both ignored by git); crashing inputs
# are saved to Fuzz/.build/signed-artifacts/.
# Env: RECON_CONFORMANCE_DIR (default ../shared/conformance beside the repository); FUZZ_CORPUS_DIR
# (default fuzz-corpus/NAME).
set -euo pipefail

runs="${1:-1000000}"
shift || true

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
build="$here/.build"
corpus="${FUZZ_CORPUS_DIR:-$root/fuzz-corpus/signed-data}"
seeds="$build/signed-seeds"
artifacts="$build/signed-artifacts"
conformance="${RECON_CONFORMANCE_DIR:-$root/../shared/conformance}"
mkdir -p "$build" "$corpus" "$seeds" "$artifacts"

# shellcheck source=Fuzz/fuzz-build.sh
source "$here/fuzz-build.sh"
build_fuzzer SignedDataFuzz "$build/signed-data-fuzz" "$here/SignedDataFuzz/fuzz_entry.swift"

echo "== seeding $seeds"
b64url() { base64 -w0 | tr '+/' '-_' | tr -d '='; }
header='{"alg":"ES256","x5c":["MIIB","MIIC","MIID"]}'
# A minimal valid-looking JWS: the right header shape, a transaction payload, a 64-byte signature.
printf '%s.%s.%s' "$(printf '%s' "$header" | b64url)" \
    "$(printf '%s' '{"transactionId":"1","bundleId":"com.example.recon","environment":"Sandbox","signedDate":1700000000000}' | b64url)" \
    "$(head -c 64 /dev/zero | b64url)" > "$seeds/minimal.jws"
printf '%s' "$header" > "$seeds/header.json"
printf '%s' '{"alg":"none"}' > "$seeds/header-none.json"
# A notification whose nested data are JWS-looking strings (the wrapped runs sign it properly).
printf '%s' '{"notificationType":"DID_RENEW","subtype":"BILLING_RECOVERY","notificationUUID":"u","version":"2.0","signedDate":1700000000000,"data":{"appAppleId":1234,"bundleId":"com.example.recon","environment":"Sandbox","signedTransactionInfo":"eyJhbGciOiJFUzI1NiJ9.eyJ9.AA","signedRenewalInfo":"eyJ.eyJ.","status":1}}' > "$seeds/notification.json"
printf '%s' '{"notificationType":"RESCIND_CONSENT","signedDate":1700000000000,"appData":{"appAppleId":"1234","bundleId":"com.example.recon","environment":"Sandbox","signedAppTransactionInfo":"a.b.c"}}' > "$seeds/rescind.json"
printf '%s' '{"notificationType":"RENEWAL_EXTENSION","summary":{"requestIdentifier":"r","environment":"Production","appAppleId":1,"bundleId":"com.example.recon","productId":"p","storefrontCountryCodes":["USA","FRA",1],"failedCount":0,"succeededCount":1e3}}' > "$seeds/summary.json"
printf '%s' '{"originalTransactionId":"1","autoRenewStatus":1,"environment":"Xcode","signedDate":1697680122257.447,"renewalPrice":9990,"currency":"USD"}' > "$seeds/renewal.json"
colliding_keys_json 450 > "$seeds/colliding-keys.json"
printf '%s' '{"receiptType":"LocalTesting","bundleId":"com.example.recon","receiptCreationDate":-62135769600000,"originalPurchaseDate":"1700000000000"}' > "$seeds/app-transaction.json"
if [ -d "$conformance/server-api" ]; then
    api="$conformance/server-api"
    for file in "$api"/signed/*/*; do
        [ -f "$file" ] && cp "$file" "$seeds/signed-$(basename "$(dirname "$file")")-$(basename "$file")"
    done
    for file in "$api"/certs/*.der "$api"/chains/*.der "$api"/models/*.json; do
        [ -f "$file" ] && cp "$file" "$seeds/"
    done
    echo "conformance signed data: $(find "$api/signed" -type f | wc -l), certificates: $(ls "$api"/certs/*.der "$api"/chains/*.der 2>/dev/null | wc -l), models: $(ls "$api"/models/*.json 2>/dev/null | wc -l)"
else
    echo "NOTICE: conformance corpus not found at $conformance; seeding from hand-written documents only"
fi

echo "== fuzzing: $runs inputs"
# Swift's own crash backtracer stalls under ASan; let libFuzzer report crashes.
export SWIFT_BACKTRACE=enable=no
# Shallow allocation stacks: recording full ones costs a third of the run time under ASan.
export ASAN_OPTIONS="${ASAN_OPTIONS:-malloc_context_size=2}"
# One worker (the machine is shared). -malloc_limit_mb flags any single allocation above 64 MB,
# -rss_limit_mb runaway memory, -timeout a hang. max_len covers a notification with nested data
# (about 15 KB).
set +e
"$build/signed-data-fuzz" \
    -runs="$runs" \
    -max_len=16384 \
    -timeout=10 \
    -rss_limit_mb=2048 \
    -malloc_limit_mb=64 \
    -dict="$here/SignedDataFuzz/signed.dict" \
    -artifact_prefix="$artifacts/" \
    -print_final_stats=1 \
    "$@" \
    "$corpus" "$seeds" 2>&1 | tee "$build/signed-last-run.log" | grep -vE '^#[0-9]+\s+(NEW|REDUCE|pulse)'
status=${PIPESTATUS[0]}
set -e

echo "== summary"
grep -E 'stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb' "$build/signed-last-run.log" || true
crashes=$(ls "$artifacts" | wc -l)
echo "crash/leak/timeout artifacts: $crashes (in $artifacts)"
if [ "$status" -ne 0 ]; then
    echo "FUZZER FOUND A PROBLEM (exit $status); see $build/signed-last-run.log"
    exit "$status"
fi
echo "no crashes"

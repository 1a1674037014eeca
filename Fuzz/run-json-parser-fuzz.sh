#!/usr/bin/env bash
# Fuzzes the verifyReceipt JSON parser and response decoder with libFuzzer + AddressSanitizer.
#
#   Fuzz/run-json-parser-fuzz.sh [RUNS] [extra libFuzzer flags...]
#
# Not part of `swift build` / `swift test` (`.ci/fuzz-smoke` runs it briefly): it compiles
# Sources/AppStoreReceipts together with Fuzz/JSONParserFuzz/fuzz_entry.swift straight with swiftc
# (Fuzz/fuzz-build.sh), seeds a corpus from the conformance
# responses and a few hand-written documents, and runs RUNS inputs (default 500,000). Build
# products go to Fuzz/.build, the corpus to fuzz-corpus/ (both ignored by git); crashing inputs
# are saved to Fuzz/.build/json-artifacts/.
# Env: RECON_CONFORMANCE_DIR (default ../shared/conformance beside the repository); FUZZ_CORPUS_DIR
# (default fuzz-corpus/NAME).
set -euo pipefail

runs="${1:-500000}"
shift || true

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
build="$here/.build"
corpus="${FUZZ_CORPUS_DIR:-$root/fuzz-corpus/json-parser}"
seeds="$build/json-seeds"
artifacts="$build/json-artifacts"
conformance="${RECON_CONFORMANCE_DIR:-$root/../shared/conformance}"
mkdir -p "$build" "$corpus" "$seeds" "$artifacts"

# shellcheck source=Fuzz/fuzz-build.sh
source "$here/fuzz-build.sh"
build_fuzzer JSONParserFuzz "$build/json-parser-fuzz" "$here/JSONParserFuzz/fuzz_entry.swift"

echo "== seeding $seeds"
printf '%s' '{"status":0,"receipt":{"bid":"b","transaction_id":"7","expires_date":"1550386188000"},"auto_renew_status":0}' > "$seeds/ios6.json"
printf '%s' '{"status":"21007","is-retryable":"1","latest_receipt_info":{"transaction_id":1e3,"quantity":"1.0"}}' > "$seeds/lenient.json"
printf '%s' '{"s":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00","n":[-0,1.5e-3,12345678901234567890123],"o":{"a":1,"a":2},"e":[],"z":null}' > "$seeds/escapes.json"
printf '%s' '[[[[[[[[[[{"a":[true,false,null]}]]]]]]]]]]' > "$seeds/nested.json"
colliding_keys_json 900 > "$seeds/colliding-keys.json"
printf '{"a":%s,"a":%s}' "$(colliding_keys_json 100)" "$(colliding_keys_json 100)" > "$seeds/colliding-duplicates.json"
if [ -d "$conformance/responses" ]; then
    find "$conformance/responses" -name '*.json' -exec cp {} "$seeds/" \;
    echo "conformance responses: $(find "$conformance/responses" -name '*.json' | wc -l)"
else
    echo "NOTICE: conformance corpus not found at $conformance; seeding from hand-written documents only"
fi

echo "== fuzzing: $runs inputs"
# Swift's own crash backtracer stalls under ASan; let libFuzzer report crashes.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-malloc_context_size=2}"
# One worker (the machine is shared). max_len covers real answers with a latest_receipt.
set +e
"$build/json-parser-fuzz" \
    -runs="$runs" \
    -max_len=32768 \
    -timeout=10 \
    -rss_limit_mb=2048 \
    -malloc_limit_mb=64 \
    -dict="$here/JSONParserFuzz/json.dict" \
    -artifact_prefix="$artifacts/" \
    -print_final_stats=1 \
    "$@" \
    "$corpus" "$seeds" 2>&1 | tee "$build/json-last-run.log" | grep -vE '^#[0-9]+\s+(NEW|REDUCE|pulse)'
status=${PIPESTATUS[0]}
set -e

echo "== summary"
grep -E 'stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb' "$build/json-last-run.log" || true
crashes=$(ls "$artifacts" | wc -l)
echo "crash/leak/timeout artifacts: $crashes (in $artifacts)"
if [ "$status" -ne 0 ]; then
    echo "FUZZER FOUND A PROBLEM (exit $status); see $build/json-last-run.log"
    exit "$status"
fi
echo "no crashes"

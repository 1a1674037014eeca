#!/usr/bin/env bash
# Fuzzes the local receipt decoder with libFuzzer + AddressSanitizer.
#
#   Fuzz/run-receipt-decoder-fuzz.sh [RUNS] [extra libFuzzer flags...]
#
# Not part of `swift build` / `swift test` (`.ci/fuzz-smoke` runs it briefly): it compiles
# Sources/AppStoreReceipts (over the CivilTime module and OpenSSL's libcrypto) together with
# Fuzz/ReceiptDecoderFuzz/*.swift straight with swiftc (Fuzz/fuzz-build.sh), seeds a corpus from the conformance receipts (base64 text and decoded DER) and
# from encoder output, and runs RUNS inputs (default 1,000,000). Build products go to
# Fuzz/.build, the corpus to fuzz-corpus/ (both ignored by git); crashing inputs are saved to
# Fuzz/.build/artifacts/.
# Env: RECON_CONFORMANCE_DIR (default ../shared/conformance beside the repository); FUZZ_CORPUS_DIR
# (default fuzz-corpus/NAME).
set -euo pipefail

runs="${1:-1000000}"
shift || true

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
build="$here/.build"
corpus="${FUZZ_CORPUS_DIR:-$root/fuzz-corpus/receipt-decoder}"
seeds="$build/seeds"
artifacts="$build/artifacts"
conformance="${RECON_CONFORMANCE_DIR:-$root/../shared/conformance}"
mkdir -p "$build" "$corpus" "$seeds" "$artifacts"

# shellcheck source=Fuzz/fuzz-build.sh
source "$here/fuzz-build.sh"
build_fuzzer ReceiptDecoderFuzz "$build/receipt-decoder-fuzz" \
    "$here/ReceiptDecoderFuzz/fuzz_entry.swift" "$here/ReceiptDecoderFuzz/make_seeds.swift"

echo "== seeding $seeds"
# The fuzzer writes the encoder-made seeds itself (make_seeds.swift) when asked, then exits.
# It exits from within libFuzzer's start-up, with objects still live: not leaks worth a report.
RECEIPT_FUZZ_WRITE_SEEDS="$seeds" SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 "$build/receipt-decoder-fuzz"
# An iOS 6 receipt's plist and a JSON document with the colliding-key pattern (issue 35).
colliding_keys_json 450 > "$seeds/colliding-keys.json"
colliding_keys_json 300 | tr ':,' '=;' | sed 's/}$/;}/' > "$seeds/colliding-keys.ios6.txt"
if [ -d "$conformance/receipts" ]; then
    for file in "$conformance"/receipts/*.b64; do
        name="$(basename "$file" .b64)"
        cp "$file" "$seeds/$name.b64"
        base64 -d "$file" > "$seeds/$name.bin"
    done
    echo "conformance receipts: $(ls "$conformance"/receipts/*.b64 | wc -l) (as base64 and decoded)"
else
    echo "NOTICE: conformance corpus not found at $conformance; seeding from encoder output only"
fi

echo "== fuzzing: $runs inputs"
# Swift's own crash backtracer stalls under ASan; let libFuzzer report crashes.
export SWIFT_BACKTRACE=enable=no
# Shallow allocation stacks: recording full ones costs a third of the run time under ASan.
export ASAN_OPTIONS="${ASAN_OPTIONS:-malloc_context_size=2}"
# One worker (the machine is shared). -malloc_limit_mb flags any single allocation above 64 MB,
# -rss_limit_mb runaway memory, -timeout a hang. max_len covers the largest real receipts.
set +e
"$build/receipt-decoder-fuzz" \
    -runs="$runs" \
    -max_len=16384 \
    -timeout=10 \
    -rss_limit_mb=2048 \
    -malloc_limit_mb=64 \
    -dict="$here/ReceiptDecoderFuzz/receipt.dict" \
    -artifact_prefix="$artifacts/" \
    -print_final_stats=1 \
    "$@" \
    "$corpus" "$seeds" 2>&1 | tee "$build/last-run.log" | grep -vE '^#[0-9]+\s+(NEW|REDUCE|pulse)' 
status=${PIPESTATUS[0]}
set -e

echo "== summary"
grep -E 'stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb' "$build/last-run.log" || true
crashes=$(ls "$artifacts" | wc -l)
echo "crash/leak/timeout artifacts: $crashes (in $artifacts)"
if [ "$status" -ne 0 ]; then
    echo "FUZZER FOUND A PROBLEM (exit $status); see $build/last-run.log"
    exit "$status"
fi
echo "no crashes"

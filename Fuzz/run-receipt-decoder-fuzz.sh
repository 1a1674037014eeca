#!/usr/bin/env bash
# Fuzzes the local receipt decoder with libFuzzer + AddressSanitizer.
#
#   Fuzz/run-receipt-decoder-fuzz.sh [RUNS] [extra libFuzzer flags...]
#
# Not part of `swift build` / `swift test`: it compiles Sources/AppStoreReceipts/LocalReceipt
# (over the CivilTime module) together with Fuzz/ReceiptDecoderFuzz/fuzz_entry.swift straight
# with swiftc, seeds a corpus from the conformance receipts (base64 text and decoded DER) and
# from encoder output, and runs RUNS inputs (default 1,000,000). Build products go to
# Fuzz/.build, the corpus to fuzz-corpus/ (both ignored by git); crashing inputs are saved to
# Fuzz/.build/artifacts/.
# Env: RECON_CONFORMANCE_DIR (default ../shared/conformance beside the repository).
set -euo pipefail

runs="${1:-1000000}"
shift || true

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
build="$here/.build"
corpus="$root/fuzz-corpus/receipt-decoder"
seeds="$build/seeds"
artifacts="$build/artifacts"
conformance="${RECON_CONFORMANCE_DIR:-$root/../shared/conformance}"
mkdir -p "$build" "$corpus" "$seeds" "$artifacts"

sources=("$root"/Sources/AppStoreReceipts/LocalReceipt/*.swift)
# The decoder imports the CivilTime module: built first, once instrumented for the fuzzer and once plain.
civil_sources=("$root"/Sources/CivilTime/*.swift)
civil_fuzz="$build/civil-time-fuzz"
civil_plain="$build/civil-time"
mkdir -p "$civil_fuzz" "$civil_plain"

echo "== building fuzzer (swiftc -sanitize=fuzzer,address)"
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 \
    -module-name CivilTime -emit-module -emit-module-path "$civil_fuzz/CivilTime.swiftmodule" \
    -emit-library -static -o "$civil_fuzz/libCivilTime.a" "${civil_sources[@]}"
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 \
    -module-name ReceiptDecoderFuzz -I "$civil_fuzz" -L "$civil_fuzz" -lCivilTime \
    "${sources[@]}" "$here/ReceiptDecoderFuzz/fuzz_entry.swift" \
    -o "$build/receipt-decoder-fuzz" 2>&1 | { grep -v 'Cannot export local symbol' || true; }

echo "== building seed generator"
swiftc -O -swift-version 6 -parse-as-library \
    -module-name CivilTime -emit-module -emit-module-path "$civil_plain/CivilTime.swiftmodule" \
    -emit-library -static -o "$civil_plain/libCivilTime.a" "${civil_sources[@]}"
swiftc -O -swift-version 6 -parse-as-library -module-name ReceiptDecoderSeeds \
    -I "$civil_plain" -L "$civil_plain" -lCivilTime \
    "${sources[@]}" "$here/ReceiptDecoderFuzz/make_seeds.swift" \
    -o "$build/make-seeds"

echo "== seeding $seeds"
"$build/make-seeds" "$seeds"
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

#!/usr/bin/env bash
# Compares the golden command lines' outputs of two receipt-recon binaries:
#   Tests/ReceiptReconCLITests/Golden/compare.sh BINARY_A BINARY_B
# records commands.txt with each binary into a temporary directory (RECON_GOLDEN_RECORD=1,
# RECON_GOLDEN_DIR, RECON_GOLDEN_BINARY) and prints `diff -ru` of the two: nothing and exit 0 when
# every exit code, stdout and stderr is the same. With one argument, compares BINARY_A with the
# committed records in expected/ instead (the test's normal mode).
# Needs the test bundle built: swift build --build-tests.
set -euo pipefail
[[ $# == 1 || $# == 2 ]] || { echo "usage: $0 BINARY_A [BINARY_B]" >&2; exit 64; }
cd "$(dirname "$0")/../../.."
filter='GoldenOutputTests'
if [[ $# == 1 ]]; then
    RECON_GOLDEN_BINARY=$(realpath "$1") swift test --skip-build --filter "$filter"
    exit
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for side in a b; do
    binary=$([[ $side == a ]] && echo "$1" || echo "$2")
    RECON_GOLDEN_RECORD=1 RECON_GOLDEN_DIR="$out/$side" RECON_GOLDEN_BINARY=$(realpath "$binary") \
        swift test --skip-build --filter "$filter" >"$out/$side.log" 2>&1 \
        || { echo "recording with $binary failed:" >&2; tail -50 "$out/$side.log" >&2; exit 1; }
done
diff -ru "$out/a" "$out/b" && echo "same output: $(find "$out/a" -name '*.txt' | wc -l) records"

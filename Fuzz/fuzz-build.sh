# Sourced by Fuzz/run-*-fuzz.sh: builds one libFuzzer + AddressSanitizer executable from the whole
# Sources/AppStoreReceipts module and a fuzz entry, the way SwiftPM builds the module (over CivilTime,
# CLibCurl and CLibCrypto), so that no fuzzer depends on which of the module's files import what.
#
#   build_fuzzer MODULE OUTPUT ENTRY.swift...
#
# Needs only the Swift toolchain (its clang runtime provides libFuzzer) and the README's libssl-dev
# and libcurl4-openssl-dev. Expects `root` and `build` set by the caller.

build_fuzzer() {
    local module="$1" output="$2"
    shift 2
    local civil="$build/civil-time-fuzz"
    local sources
    mapfile -t sources < <(find "$root/Sources/AppStoreReceipts" -name '*.swift' | sort)
    mkdir -p "$civil"
    echo "== building $(basename "$output") (swiftc -sanitize=fuzzer,address)"
    # CivilTime first, instrumented like the rest.
    swiftc -sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 \
        -module-name CivilTime -emit-module -emit-module-path "$civil/CivilTime.swiftmodule" \
        -emit-library -static -o "$civil/libCivilTime.a" "$root"/Sources/CivilTime/*.swift
    # In the same module as the sources, so that internal types are reachable; the package name
    # makes `package` symbols visible too. The module maps link libcurl and libcrypto.
    swiftc -sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 \
        -module-name "$module" -package-name receipt_recon \
        -I "$civil" -L "$civil" -lCivilTime -I "$root/Sources/CLibCurl" -I "$root/Sources/CLibCrypto" \
        "${sources[@]}" "$@" \
        -o "$output" 2>&1 | { grep -v 'Cannot export local symbol' || true; }
}

# The colliding-key pattern (issue 35): a JSON object of COUNT members whose keys have one length
# and share their first and last eight bytes, differing only in the middle. Once made the parser
# quadratic; a seed, so that mutations start from it.
colliding_keys_json() {
    local count="$1"
    awk -v n="$count" 'BEGIN {
        printf "{";
        for (i = 0; i < n; i++) printf "%s\"transact%06dion_date\":%d", (i ? "," : ""), i, i;
        printf "}";
    }'
}

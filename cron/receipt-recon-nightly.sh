#!/usr/bin/env bash
# Nightly wrapper for cron and systemd: reads the env file (as data, never as shell), checks that the
# paths it needs are usable, takes a flock as a second guard (the job's own PostgreSQL advisory lock is
# the first), runs the job with a metrics file and a JSON summary, keeps one dated log per day, and ends
# with one line saying what the exit code means, the run's reason when it did not succeed (read from
# its JSON), and whether a human is needed. Extra arguments go to
# `receipt-recon run` (e.g. --shard 0/4).
#
# Its own exit codes, beside the job's: 72 the binary is missing or not executable, 73 a log directory,
# metrics directory or lock file it cannot write, 78 an env file it cannot read or understand. Each is
# a failure to systemd (the unit counts only 0, 1 and 75 as success) and needs a human.
set -uo pipefail

stamp() { date -u +%Y-%m-%dT%H:%M:%SZ; }

log=""
# The verdict: one line on stdout (cron mails it, journald keeps it) and in the dated log when there is one.
verdict() {
    local line
    line="$(stamp) receipt-recon exit $1: $2; needs a human: $3"
    echo "$line"
    if [ -n "$log" ]; then echo "$line" >>"$log" 2>/dev/null; fi
}

# An install or configuration problem of the wrapper's own: the job never started.
refuse() {
    verdict "$1" "$2" "YES: $3"
    exit "$1"
}

# Reads KEY=VALUE lines into the environment, with the meaning systemd's EnvironmentFile= gives them:
# blank lines and lines starting with # or ; are skipped; whitespace around KEY and before VALUE is
# ignored; VALUE is taken as it is to the end of the line (trailing whitespace dropped), or is one
# '…' (literal) or "…" (\" \\ \$ \` escaped) quoted string. Nothing is expanded or executed. What the
# two readers could take differently (a backslash outside quotes or before another character in double
# quotes, text after a closing quote, a quote left open, a comment line ending in a backslash, a line
# without '=') is refused with its line number; values never appear in a message.
read_env_file() {
    local file=$1 number=0 line key value rest quote char i
    while IFS= read -r line || [ -n "$line" ]; do
        number=$((number + 1))
        line=${line%$'\r'}
        rest=${line#"${line%%[![:space:]]*}"}
        case "$rest" in
            '' ) continue ;;
            '#'* | ';'*)
                case "$rest" in *\\) env_error "$file" "$number" "a comment line ends in a backslash" ;; esac
                continue ;;
        esac
        case "$rest" in
            *=*) ;;
            *) env_error "$file" "$number" "not KEY=VALUE" ;;
        esac
        key=${rest%%=*}
        key=${key%"${key##*[![:space:]]}"}
        [[ "$key" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || env_error "$file" "$number" "not a variable name before '='"
        rest=${rest#*=}
        rest=${rest#"${rest%%[![:space:]]*}"}
        value=""
        case "$rest" in
            "'"*)
                rest=${rest:1}
                case "$rest" in *"'"*) ;; *) env_error "$file" "$number" "a ' quote is not closed on its line" ;; esac
                value=${rest%%"'"*}
                rest=${rest#*"'"} ;;
            '"'*)
                quote=open
                i=1
                while [ "$i" -lt "${#rest}" ]; do
                    char=${rest:i:1}
                    if [ "$char" = '\' ]; then
                        i=$((i + 1))
                        char=${rest:i:1}
                        case "$char" in
                            '"' | '\' | '$' | '`') value+=$char ;;
                            *) env_error "$file" "$number" "a backslash in double quotes escapes only \" \\ \$ \`" ;;
                        esac
                    elif [ "$char" = '"' ]; then
                        quote=closed
                        break
                    else
                        value+=$char
                    fi
                    i=$((i + 1))
                done
                [ "$quote" = closed ] || env_error "$file" "$number" "a \" quote is not closed on its line"
                rest=${rest:i+1} ;;
            *)
                case "$rest" in *\\*) env_error "$file" "$number" "a backslash outside quotes (quote the value)" ;; esac
                value=${rest%"${rest##*[![:space:]]}"}
                rest="" ;;
        esac
        [[ "$rest" =~ ^[[:space:]]*$ ]] || env_error "$file" "$number" "text after the closing quote"
        export "$key=$value"
    done <"$file"
}

# The top-level "reason" of the one JSON object `run --json` printed (every exit but 0 and 64 has one:
# the abort reason, or why the run never started), on one line and at most 1000 bytes, cut before a
# UTF-8 character rather than inside it; nothing when there is none. awk, not a JSON tool: every cron
# host has awk.
json_reason() {
    awk '
        function hex(text,    value, k) {
            value = 0
            for (k = 1; k <= length(text); k++) value = value * 16 + index("0123456789abcdef", tolower(substr(text, k, 1))) - 1
            return value
        }
        { text = text $0 "\n" }
        END {
            n = length(text); depth = 0; key = ""; i = 1
            while (i <= n) {
                c = substr(text, i, 1)
                if (c == "{" || c == "[") depth++
                else if (c == "}" || c == "]") depth--
                if (c != "\"") { i++; continue }
                value = ""; i++
                while (i <= n) {
                    c = substr(text, i, 1)
                    if (c == "\"") { i++; break }
                    if (c == "\\") {
                        e = substr(text, i + 1, 1); i += 2
                        if (e == "u") { code = hex(substr(text, i, 4)); i += 4; value = value (code >= 32 && code < 127 ? sprintf("%c", code) : " ") }
                        else if (e ~ /[bfnrt]/) value = value " "
                        else value = value e
                        continue
                    }
                    value = value c; i++
                }
                if (depth != 1) continue
                while (substr(text, i, 1) ~ /[ \t\r\n]/) i++
                if (substr(text, i, 1) == ":") { key = value; continue }
                if (key == "reason") {
                    gsub(/[\001-\037\177]/, " ", value)
                    if (length(value) > 1000) {
                        value = substr(value, 1, 1000)
                        while (value ~ /[\200-\277]$/) value = substr(value, 1, length(value) - 1)
                        sub(/[\300-\377]$/, "", value)
                        value = value "..."
                    }
                    print value
                    exit
                }
            }
        }'
}

env_error() {
    refuse 78 "env file $1 line $2: $3; nothing was run" "fix the env file (format: docs/operations.md, Env file)"
}

env_file="${RECEIPT_RECON_ENV-/etc/receipt-recon/env}"
if [ -n "$env_file" ]; then
    [ -r "$env_file" ] && [ -f "$env_file" ] \
        || refuse 78 "env file $env_file missing or unreadable; nothing was run" \
            "create it or fix its owner and mode (RECEIPT_RECON_ENV= empty means none)"
    read_env_file "$env_file"
fi

# One lock and one metrics file per shard, so shards on one host neither block each other nor share a file.
shard=""
previous=""
for argument in "$@"; do
    if [ "$previous" = "--shard" ]; then shard=$argument; fi
    case "$argument" in --shard=*) shard=${argument#--shard=} ;; esac
    previous=$argument
done
case "$shard" in
    '' | 0/1) shard_suffix="" ;;
    *) shard_suffix="-shard-${shard//[^0-9]/-}" ;;
esac

bin="${RECEIPT_RECON_BIN:-/usr/local/bin/receipt-recon}"
log_dir="${RECEIPT_RECON_LOG_DIR:-/var/log/receipt-recon}"
lock_file="${RECEIPT_RECON_LOCK_FILE:-${RECEIPT_RECON_LOCK_DIR:-/run/lock}/receipt-recon$shard_suffix.lock}"
metrics_dir="${RECEIPT_RECON_METRICS_DIR:-/var/lib/node_exporter/textfile_collector}"
metrics_file="${RECEIPT_RECON_METRICS_FILE:-$metrics_dir/receipt_recon$shard_suffix.prom}"
keep_days="${RECEIPT_RECON_KEEP_LOG_DAYS:-30}"

[ -d "$log_dir" ] && [ -w "$log_dir" ] && [ -x "$log_dir" ] \
    || refuse 73 "log directory $log_dir missing or not writable; nothing was run" \
        "create it, writable by the job's user (or set RECEIPT_RECON_LOG_DIR)"
log="$log_dir/receipt-recon-$(date -u +%Y-%m-%d)$shard_suffix.log"
{ : >>"$log"; } 2>/dev/null || {
    log=""
    refuse 73 "log file in $log_dir not writable; nothing was run" "fix the log directory's owner and mode"
}
[ -f "$bin" ] && [ -x "$bin" ] \
    || refuse 72 "$bin missing or not executable; nothing was run" "install the binary (or set RECEIPT_RECON_BIN)"
metrics_dir=$(dirname -- "$metrics_file")
[ -d "$metrics_dir" ] && [ -w "$metrics_dir" ] && [ -x "$metrics_dir" ] \
    || refuse 73 "metrics directory $metrics_dir missing or not writable; nothing was run" \
        "create it, writable by the job's user (or set RECEIPT_RECON_METRICS_DIR)"
{ exec 9>>"$lock_file"; } 2>/dev/null \
    || refuse 73 "lock file $lock_file not writable; nothing was run" \
        "make it writable by the job's user, or remove it (or set RECEIPT_RECON_LOCK_DIR)"

reason=""
if flock -n 9; then
    echo "$(stamp) starting: $bin run $*" >>"$log"
    # stdout (the JSON summary) apart from the logs, so that the verdict can carry the run's reason.
    summary=$("$bin" run --json --metrics-file "$metrics_file" "$@" 2>>"$log")
    status=$?
    if [ -n "$summary" ]; then printf '%s\n' "$summary" >>"$log"; fi
    if [ "$status" -ne 0 ]; then reason=$(printf '%s\n' "$summary" | json_reason); fi
else
    echo "$(stamp) another wrapper holds $lock_file" >>"$log"
    status=75
    reason="another wrapper holds $lock_file"
fi

case "$status" in
    0) meaning="completed; every selected receipt answered (permanently unverified ones flagged)"; human="no" ;;
    1) meaning="completed; some receipts stayed transiently unverified and are retried tomorrow"; human="no, unless it repeats" ;;
    64) meaning="usage error in the cron line or wrapper arguments"; human="YES: fix the command" ;;
    65) meaning="data error"; human="YES: read the log" ;;
    69) meaning="database or Apple unavailable, or a circuit breaker stopped the run (nothing taken away unjudged)"; human="YES: rerun once Apple or the database answers; a breaker: fix what the reason names (docs/operations.md, Circuit breakers)" ;;
    70) meaning="internal error"; human="YES: read the log and report it" ;;
    75) meaning="another run holds the lock, or the run was interrupted; nothing more was done"; human="no, unless it repeats" ;;
    77) meaning="the database refused the job's role a permission"; human="YES: grant what the log names, see docs/integration.md" ;;
    78) meaning="configuration error (shared secret or API key rejected by Apple, 21004/21000/401, bad settings, schema not migrated, products mapping refused)"; human="YES: check the env file and the log" ;;
    *) meaning="unexpected exit status"; human="YES: read the log" ;;
esac
verdict "$status" "$meaning${reason:+; reason: $reason}" "$human"

find "$log_dir" -name 'receipt-recon-*.log' -mtime +"$keep_days" -delete 2>/dev/null || true
exit "$status"

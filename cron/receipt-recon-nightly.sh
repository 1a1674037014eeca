#!/usr/bin/env bash
# Nightly wrapper for cron and systemd: reads the env file, takes a flock as a second guard (the job's
# own PostgreSQL advisory lock is the first), runs the job with a metrics file and a JSON summary,
# keeps one dated log per day, and ends with one line saying what the exit code means and whether a
# human is needed. Extra arguments go to `receipt-recon run` (e.g. --shard 0/4).
set -uo pipefail

env_file="${RECEIPT_RECON_ENV:-/etc/receipt-recon/env}"
if [ -r "$env_file" ]; then
    set -a
    # shellcheck disable=SC1090
    . "$env_file"
    set +a
fi
bin="${RECEIPT_RECON_BIN:-/usr/local/bin/receipt-recon}"
log_dir="${RECEIPT_RECON_LOG_DIR:-/var/log/receipt-recon}"
lock_file="${RECEIPT_RECON_LOCK_FILE:-/run/lock/receipt-recon.lock}"
metrics_file="${RECEIPT_RECON_METRICS_FILE:-/var/lib/node_exporter/textfile_collector/receipt_recon.prom}"
keep_days="${RECEIPT_RECON_KEEP_LOG_DAYS:-30}"

mkdir -p "$log_dir"
log="$log_dir/receipt-recon-$(date -u +%Y-%m-%d).log"

exec 9>"$lock_file"
if flock -n 9; then
    echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) starting: $bin run $*" >>"$log"
    "$bin" run --json --metrics-file "$metrics_file" "$@" >>"$log" 2>&1
    status=$?
else
    echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) another wrapper holds $lock_file" >>"$log"
    status=75
fi

case "$status" in
    0) meaning="completed; every selected receipt verified"; human="no" ;;
    1) meaning="completed; some receipts stayed unverified and are retried tomorrow"; human="no, unless it repeats" ;;
    64) meaning="usage error in the cron line or wrapper arguments"; human="YES: fix the command" ;;
    65) meaning="data error"; human="YES: read the log" ;;
    69) meaning="database or Apple unavailable, or a circuit breaker stopped the run (nothing mass-revoked)"; human="YES: read abort_reason in the log" ;;
    70) meaning="internal error"; human="YES: read the log and report it" ;;
    75) meaning="another run holds the lock, or the run was interrupted; nothing more was done"; human="no, unless it repeats" ;;
    78) meaning="configuration error (shared secret rejected by Apple, 21004/21000, or bad settings)"; human="YES: check APPLE_SHARED_SECRET and the env file" ;;
    *) meaning="unexpected exit status"; human="YES" ;;
esac
echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) receipt-recon exit $status: $meaning; needs a human: $human" | tee -a "$log"

find "$log_dir" -name 'receipt-recon-*.log' -mtime +"$keep_days" -delete 2>/dev/null || true
exit "$status"

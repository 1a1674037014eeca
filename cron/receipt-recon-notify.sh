#!/usr/bin/env bash
# OnFailure= of receipt-recon.service (through receipt-recon-notify@.service): tells a human that the
# night failed. It mails the wrapper's verdict line of the failed start (exit code, meaning, the run's
# reason, whether a human is needed) to RECEIPT_RECON_MAILTO through sendmail, or, when the wrapper
# never got to say it (killed by TimeoutStartSec=, say), systemd's own result for the unit. The line
# goes to the journal too, at priority err.
set -uo pipefail

unit=${1:?usage: receipt-recon-notify.sh UNIT}
invocation=$(systemctl show --property=InvocationID --value "$unit" 2>/dev/null)
line=""
if [ -n "$invocation" ]; then
    line=$(journalctl --no-pager --output=cat "_SYSTEMD_INVOCATION_ID=$invocation" 2>/dev/null \
        | grep ' receipt-recon exit ' | tail -n 1)
fi
if [ -z "$line" ]; then
    result=$(systemctl show --property=Result --value "$unit" 2>/dev/null)
    status=$(systemctl show --property=ExecMainStatus --value "$unit" 2>/dev/null)
    line="$unit failed (systemd result: ${result:-unknown}, exit status ${status:-unknown}) without the wrapper's verdict; needs a human: YES: journalctl -u $unit"
fi
echo "<3>$line"

mailto=${RECEIPT_RECON_MAILTO:-}
[ -n "$mailto" ] || exit 0
sendmail=${RECEIPT_RECON_SENDMAIL:-/usr/sbin/sendmail}
if [ ! -x "$sendmail" ]; then
    echo "<3>cannot mail $mailto: $sendmail missing (install an MTA, or set RECEIPT_RECON_MAILTO= empty)"
    exit 1
fi
printf 'To: %s\nSubject: %s failed on %s\n\n%s\n' "$mailto" "$unit" "$(hostname)" "$line" | "$sendmail" -t

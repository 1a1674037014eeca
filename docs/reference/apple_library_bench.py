#!/usr/bin/env python3
"""The reference side of receipt-recon's CPU comparison (issue 38, point 3).

Plays the night `receipt-recon run` plays against a seeded world, with Apple's own Python library
instead of the job: the same stored receipts, the same requests to the same loopback simulator, the
same concurrency, and every signed item Apple's answers carry verified. It prints key=value lines like
`receipt-recon-bench` (receipts, wall_seconds, cpu_ms_per_1k_receipts, requests, ...), CPU read with
resource.getrusage of this process only. See docs/reference/README.md for the commands.

  --backend server-api      app-store-server-library: AsyncAppStoreServerAPIClient (httpx) and
                            SignedDataVerifier (root = the pki dir's apple-root.der, online checks off,
                            the world's bundle ids, app apple ids and environments). Per user, as
                            Sources/Reconciliation/Backends/ServerAPIUserWalk.swift: each stored row's
                            ids (a JWS row verified and read; an app receipt's in-app ids read with the
                            library's ASN.1 decoding); Get Transaction History v2 of the first id no
                            history holds yet, every page, the other environment once when the id is
                            not there; Get All Subscription Statuses when a chain of the history may be
                            in billing retry at --as-of; every signedTransaction / signedTransactionInfo
                            / signedRenewalInfo verified once (a repeat of identical text is not
                            verified again, as the job's VerifiedAnswerMemo does).
  --backend verify-receipt  itunes-iap's aioverify (aiohttp), production then sandbox on 21007, each
                            stored receipt, with --shared-secret when the world has one.

What the reference does NOT do that the job does: PostgreSQL reads beyond one SELECT (done by psql,
outside this process's CPU), the rules, the database writes, the app receipts' PKCS#7 signature
check (Apple's library has none). Its CPU is therefore a floor for a full job written with the
library, which makes the job-to-reference ratio conservative.

stdlib + app-store-server-library[async] (httpx) + itunes-iap (aiohttp) only.
"""

import argparse
import asyncio
import base64
import datetime
import json
import os
import resource
import subprocess
import sys
import time
import urllib.request

_import_clock = time.process_time()

from appstoreserverlibrary.api_client import (  # noqa: E402
    APIException,
    AsyncAppStoreServerAPIClient,
    GetTransactionHistoryVersion,
)
from appstoreserverlibrary.models.Environment import Environment  # noqa: E402
from appstoreserverlibrary.models.NotificationHistoryRequest import NotificationHistoryRequest  # noqa: E402
from appstoreserverlibrary.models.TransactionHistoryRequest import (  # noqa: E402
    Order,
    TransactionHistoryRequest,
)
from appstoreserverlibrary.receipt_utility import ReceiptUtility  # noqa: E402
from appstoreserverlibrary.signed_data_verifier import (  # noqa: E402
    SignedDataVerifier,
    VerificationException,
)

BILLING_RETRY_WINDOW = 60 * 86400
CURRENT_STATE_WINDOW = 3600
# Apple's "not here" codes: the other environment is asked once (TransactionHistoryWalk).
NOT_HERE = {4040010, 4040005, 4040001, 4040003, 4040019}


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def parse_instant(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def read_receipts(database_url):
    """(user_id, receipt id, receipt_data) in the job's order: users by user_id, receipts by id."""
    query = "SELECT user_id, id, receipt_data FROM receipts ORDER BY user_id, id"
    output = subprocess.run(
        ["psql", "-X", "-q", "-A", "-t", "-F", "\x1f", "-v", "ON_ERROR_STOP=1", "-d", database_url, "-c", query],
        check=True, capture_output=True, text=True).stdout
    users = {}
    order = []
    for line in output.split("\n"):
        if not line:
            continue
        user_id, receipt_id, data = line.split("\x1f", 2)
        if user_id not in users:
            users[user_id] = []
            order.append(user_id)
        users[user_id].append((int(receipt_id), data))
    return [(user, users[user]) for user in order]


def read_expected(path):
    """bundle_ids and app_apple_ids from the seeder's expected file (two lines near its top)."""
    bundle_ids, app_apple_ids = [], {}
    with open(path, encoding="utf-8") as handle:
        for _ in range(200):
            line = handle.readline()
            if not line:
                break
            if '"bundle_ids": ' in line:
                bundle_ids = json.loads(line.split(":", 1)[1].strip().rstrip(","))
            elif '"app_apple_ids": ' in line:
                text = line.split(":", 1)[1].strip().rstrip(",")
                if text == "{":  # spread over lines
                    text = "{"
                    while True:
                        more = handle.readline()
                        text += more
                        if more.strip().startswith("}"):
                            break
                    text = text.strip().rstrip(",")
                app_apple_ids = {key: int(value) for key, value in json.loads(text).items()}
    return bundle_ids, app_apple_ids


def simulator_stats(simulator_url):
    with urllib.request.urlopen(simulator_url.rstrip("/") + "/stats", timeout=10) as response:
        return json.loads(response.read())


def unverified_payload(jws):
    try:
        segment = jws.split(".")[1]
        return json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))
    except Exception:
        return None


def looks_like_jws(data):
    return data.startswith("eyJ") and data.count(".") == 2


# MARK: app receipts, with the library's own ASN.1 decoding

IN_APP, BUNDLE_ID, RECEIPT_TYPE, TRANSACTION_ID, ORIGINAL_TRANSACTION_ID = 17, 2, 0, 1703, 1705
SANDBOX_TYPES = {"ProductionSandbox", "ProductionVPPSandbox", "Sandbox"}


def read_app_receipt(utility, data):
    """(ids, bundle id, environment or None) of an app receipt, as ReceiptUtility reads one (it
    stops at the first id; the job asks about each in-app purchase's, so every one is collected)."""
    value = utility._decode_octet_string(base64.b64decode(data, validate=True))
    if value[0] != "1.2.840.113549.1.7.2":
        raise ValueError("not PKCS#7")
    payload = utility._decode_octet_string(value[1][0][2][1][0])
    ids, bundle_id, environment = [], None, None
    for attribute in payload:
        kind = attribute[0]
        if kind == IN_APP:
            transaction_id = original_id = None
            for field in utility._decode_octet_string(attribute[2]):
                if field[0] == TRANSACTION_ID:
                    transaction_id = utility._decode_octet_string(field[2])
                elif field[0] == ORIGINAL_TRANSACTION_ID:
                    original_id = utility._decode_octet_string(field[2])
            chosen = transaction_id or original_id
            if chosen and chosen not in ids:
                ids.append(chosen)
        elif kind == BUNDLE_ID:
            bundle_id = utility._decode_octet_string(attribute[2])
        elif kind == RECEIPT_TYPE:
            kind_text = utility._decode_octet_string(attribute[2])
            environment = "sandbox" if kind_text in SANDBOX_TYPES else (
                "production" if kind_text in ("Production", "ProductionVPP") else (
                    "xcode" if kind_text == "Xcode" else None))
    return ids, bundle_id, environment


# MARK: Server API


class ServerAPIReference:
    def __init__(self, args, bundle_ids, app_apple_ids):
        self.args = args
        self.bundle_ids = bundle_ids
        self.default_bundle = bundle_ids[0]
        self.app_apple_ids = app_apple_ids
        pki = args.pki_dir
        self.key = open(os.path.join(pki, "api-key.p8"), "rb").read()
        self.key_id = open(os.path.join(pki, "api-key-id"), encoding="utf-8").read().strip()
        self.issuer_id = open(os.path.join(pki, "api-issuer-id"), encoding="utf-8").read().strip()
        self.root = open(os.path.join(pki, "apple-root.der"), "rb").read()
        self.as_of = parse_instant(args.as_of)
        self.utility = ReceiptUtility()
        self.clients = {}
        self.verifiers = {}
        self.memo = {}
        self.verified = 0
        self.verify_failures = 0
        self.requests = {}
        self.receipts = 0
        self.notifications = 0

    def client(self, bundle_id, environment):
        key = (bundle_id, environment)
        if key not in self.clients:
            client = AsyncAppStoreServerAPIClient(
                self.key, self.key_id, self.issuer_id, bundle_id,
                Environment.PRODUCTION if environment == "production" else Environment.SANDBOX)
            client._base_url = self.args.simulator_url.rstrip("/") + "/" + environment
            self.clients[key] = client
        return self.clients[key]

    def verifier(self, bundle_id, environment):
        key = (bundle_id, environment)
        if key not in self.verifiers:
            self.verifiers[key] = SignedDataVerifier(
                [self.root], False, Environment.PRODUCTION if environment == "production" else Environment.SANDBOX,
                bundle_id, self.app_apple_ids.get(bundle_id))
        return self.verifiers[key]

    def verify(self, jws, bundle_id, environment, renewal=False):
        """The decoded payload, verified once per distinct text; None when it does not verify."""
        known = self.memo.get(jws)
        if known is not None:
            return known
        verifier = self.verifier(bundle_id, environment)
        self.verified += 1
        try:
            if renewal:
                decoded = verifier.verify_and_decode_renewal_info(jws)
            else:
                decoded = verifier.verify_and_decode_signed_transaction(jws)
        except VerificationException:
            self.verify_failures += 1
            return None
        self.memo[jws] = decoded
        return decoded

    def count(self, endpoint, environment):
        name = environment + "/" + endpoint
        self.requests[name] = self.requests.get(name, 0) + 1

    def row_question(self, data):
        """(ids, environment hint, bundle id) to ask about, or None when the job decides it locally."""
        if looks_like_jws(data):
            claimed = unverified_payload(data) or {}
            bundle_id = claimed.get("bundleId")
            environment = {"Production": "production", "Sandbox": "sandbox"}.get(claimed.get("environment"))
            accepted = bundle_id in self.bundle_ids
            self.verify(data, bundle_id if accepted else self.default_bundle, environment or "production")
            transaction_id = claimed.get("transactionId")
            if not accepted or not transaction_id or not str(transaction_id).isdigit():
                return None
            return [str(transaction_id)], environment, bundle_id
        try:
            ids, bundle_id, environment = read_app_receipt(self.utility, data)
        except Exception:
            try:  # an iOS 6 transaction receipt
                transaction_id = self.utility.extract_transaction_id_from_transaction_receipt(data)
            except Exception:
                return None
            return ([transaction_id], None, None) if transaction_id else None
        if not ids or environment == "xcode" or (bundle_id is not None and bundle_id not in self.bundle_ids):
            return None
        if any(not i.isdigit() for i in ids):
            return None
        return ids, environment, bundle_id

    async def history(self, transaction_id, bundle_id, environment):
        """The verified transactions of the id's history, hopping once; None when nowhere."""
        for hop in (False, True):
            client = self.client(bundle_id, environment)
            revision, transactions, holds, failed = None, [], False, False
            while True:
                self.count("transaction_history", environment)
                try:
                    page = await client.get_transaction_history(
                        transaction_id, revision, TransactionHistoryRequest(sort=Order.ASCENDING),
                        GetTransactionHistoryVersion.V2)
                except APIException as error:
                    if error.raw_api_error in NOT_HERE:
                        failed = True
                        break
                    return None
                for jws in page.signedTransactions or []:
                    decoded = self.verify(jws, bundle_id, environment)
                    if decoded is None:
                        return None
                    transactions.append(decoded)
                    if transaction_id in (decoded.transactionId, decoded.originalTransactionId):
                        holds = True
                if not page.hasMore:
                    break
                revision = page.revision
            if holds and not failed:
                return transactions, environment
            if hop:
                return None
            environment = "sandbox" if environment == "production" else "production"
        return None

    def needs_statuses(self, transactions):
        signed = [t.signedDate for t in transactions if t.signedDate is not None]
        answered = max(signed) / 1000 if signed else time.time()
        if abs(answered - self.as_of) > CURRENT_STATE_WINDOW:
            return False
        latest = {}
        for t in transactions:
            if t.revocationDate is not None and t.revocationDate / 1000 <= self.as_of:
                continue
            if t.expiresDate is None:
                continue
            chain = t.originalTransactionId or t.transactionId or ""
            latest[chain] = max(latest.get(chain, 0), t.expiresDate / 1000)
        return any(end <= self.as_of and self.as_of - end <= BILLING_RETRY_WINDOW for end in latest.values())

    async def statuses(self, transaction_id, bundle_id, environment):
        self.count("subscription_statuses", environment)
        try:
            response = await self.client(bundle_id, environment).get_all_subscription_statuses(transaction_id)
        except APIException:
            return
        for group in response.data or []:
            for last in group.lastTransactions or []:
                if last.signedTransactionInfo:
                    self.verify(last.signedTransactionInfo, bundle_id, environment)
                if last.signedRenewalInfo:
                    self.verify(last.signedRenewalInfo, bundle_id, environment, renewal=True)

    async def user(self, rows):
        questions = []
        for _, data in rows:
            self.receipts += 1
            question = self.row_question(data)
            if question is not None:
                questions.append(question)
        resolved = set()
        for ids, hint, bundle_id in questions:
            bid = bundle_id if bundle_id in self.bundle_ids else self.default_bundle
            for transaction_id in ids:
                if transaction_id in resolved:
                    continue
                resolved.add(transaction_id)
                found = await self.history(transaction_id, bid, hint or self.args.served_environment)
                if found is None:
                    continue
                transactions, environment = found
                for t in transactions:
                    resolved.update(i for i in (t.transactionId, t.originalTransactionId) if i)
                if self.needs_statuses(transactions):
                    await self.statuses(transaction_id, bid, environment)

    async def notification_piece(self, bundle_id, environment, start, end):
        """One piece of the notification history, every page; every signedPayload and the signed
        transaction and renewal info inside verified (NotificationHistoryWalk)."""
        client = self.client(bundle_id, environment)
        verifier = self.verifier(bundle_id, environment)
        token = None
        while True:
            self.count("notification_history", environment)
            try:
                page = await client.get_notification_history(
                    token, NotificationHistoryRequest(startDate=int(start * 1000), endDate=int(end * 1000)))
            except APIException:
                return
            for item in page.notificationHistory or []:
                self.verified += 1
                try:
                    notification = verifier.verify_and_decode_notification(item.signedPayload)
                except VerificationException:
                    self.verify_failures += 1
                    continue
                self.notifications += 1
                data = notification.data
                if data is not None and data.signedTransactionInfo:
                    self.verify(data.signedTransactionInfo, bundle_id, environment)
                if data is not None and data.signedRenewalInfo:
                    self.verify(data.signedRenewalInfo, bundle_id, environment, renewal=True)
            if not page.hasMore or not page.paginationToken:
                return
            token = page.paginationToken

    async def notification_history(self):
        """The first night's read (NotificationIntake): from --notification-days before the night's
        instant (less a minute) to it, in pieces of an hour, eight at once, before any user."""
        days = self.args.notification_days
        if days <= 0:
            return
        end = min(self.as_of, time.time()) - 60
        start = end - days * 86400
        for bundle_id in self.bundle_ids:
            pieces = []
            while (pieces[-1][1] if pieces else start) < end:
                since = pieces[-1][1] if pieces else start
                pieces.append((since, min(end, since + 3600)))
            queue = iter(pieces)

            async def worker():
                for piece in queue:
                    await self.notification_piece(bundle_id, self.args.served_environment, *piece)

            await asyncio.gather(*(worker() for _ in range(8)))

    async def close(self):
        for client in self.clients.values():
            await client.async_close()


# MARK: verifyReceipt


class VerifyReceiptReference:
    def __init__(self, args):
        import itunesiap
        from itunesiap.request import Request

        self.itunesiap = itunesiap
        base = args.simulator_url.rstrip("/")
        Request.PRODUCTION_VALIDATION_URL = base + "/production/verifyReceipt"
        Request.SANDBOX_VALIDATION_URL = base + "/sandbox/verifyReceipt"
        self.password = args.shared_secret
        self.receipts = 0
        self.outcomes = {}

    async def user(self, rows):
        for _, data in rows:
            self.receipts += 1
            try:
                await self.itunesiap.aioverify(data, password=self.password, env=self.itunesiap.env.review)
                outcome = "valid"
            except self.itunesiap.exc.InvalidReceipt as error:
                outcome = "status_%s" % error.status
            except Exception as error:  # noqa: BLE001
                outcome = type(error).__name__
            self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1

    async def close(self):
        pass


async def play(reference, users, concurrency):
    """`concurrency` users in flight, each asked about one request at a time: the job's C requests."""
    if hasattr(reference, "notification_history"):
        await reference.notification_history()
    queue = iter(users)

    async def worker():
        for _, rows in queue:
            await reference.user(rows)

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    await reference.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=["server-api", "verify-receipt"], required=True)
    parser.add_argument("--database-url", required=True, help="libpq conninfo or URL of the seeded world")
    parser.add_argument("--simulator-url", required=True, help="http://127.0.0.1:PORT of 'simulator serve'")
    parser.add_argument("--pki-dir", help="server-api: the --pki-dir of 'simulator seed'")
    parser.add_argument("--expected", help="server-api: the seeder's --expected file (bundle_ids, app_apple_ids)")
    parser.add_argument("--bundle-id", action="append", default=[], help="instead of --expected (repeatable)")
    parser.add_argument("--as-of", default="2026-11-01T00:00:00Z")
    parser.add_argument("--served-environment", default="production", choices=["production", "sandbox"])
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument(
        "--notification-days", type=float, default=3,
        help="server-api: days of notification history read first (a first night: 3; 0: none)")
    parser.add_argument("--shared-secret", help="verify-receipt: the world's shared secret, if it has one")
    args = parser.parse_args()

    before = simulator_stats(args.simulator_url)
    cpu_start = cpu_seconds()
    users = read_receipts(args.database_url)
    if args.backend == "server-api":
        if not args.pki_dir:
            parser.error("--backend server-api needs --pki-dir")
        bundle_ids, app_apple_ids = read_expected(args.expected) if args.expected else ([], {})
        bundle_ids = args.bundle_id or bundle_ids
        if not bundle_ids:
            parser.error("--backend server-api needs --expected or --bundle-id")
        reference = ServerAPIReference(args, bundle_ids, app_apple_ids)
    else:
        reference = VerifyReceiptReference(args)
    wall_start = time.monotonic()
    asyncio.run(play(reference, users, args.concurrency))
    wall = time.monotonic() - wall_start
    cpu = cpu_seconds() - cpu_start
    after = simulator_stats(args.simulator_url)

    by_endpoint = {}
    for name, count in (after.get("requestsByEndpoint") or {}).items():
        delta = count - (before.get("requestsByEndpoint") or {}).get(name, 0)
        if delta:
            by_endpoint[name] = delta
    requests = after.get("requests", 0) - before.get("requests", 0)
    receipts = reference.receipts
    lines = [
        ("receipts", receipts),
        ("users", len(users)),
        ("receipts_per_second", "%.1f" % (receipts / wall if wall else 0)),
        ("cpu_ms_per_1k_receipts", "%.1f" % (cpu * 1000 * 1000 / receipts if receipts else 0)),
        ("cpu_seconds", "%.3f" % cpu),
        ("cpu_seconds_imports", "%.3f" % _import_clock),
        ("wall_seconds", "%.2f" % wall),
        ("requests", requests),
        ("over_limit_429", after.get("rateLimited", 0) - before.get("rateLimited", 0)),
        ("requests_by_endpoint", json.dumps(by_endpoint, sort_keys=True, separators=(",", ":"))),
        ("concurrency", args.concurrency),
        ("library", args.backend == "server-api" and "app-store-server-library" or "itunes-iap"),
    ]
    if args.backend == "server-api":
        lines += [
            ("jws_verified", reference.verified),
            ("jws_verify_failures", reference.verify_failures),
            ("notifications_verified", reference.notifications),
            ("requests_counted_here", json.dumps(reference.requests, sort_keys=True, separators=(",", ":"))),
        ]
    else:
        lines += [("outcomes", json.dumps(reference.outcomes, sort_keys=True, separators=(",", ":")))]
    for key, value in lines:
        print("%s=%s" % (key, value))
    return 0


if __name__ == "__main__":
    sys.exit(main())

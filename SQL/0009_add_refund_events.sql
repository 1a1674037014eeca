-- Refunds and their reversals, one row per run that recorded either (CONTRACT §9 "Refunds and money";
-- docs/operations.md, "Refunded amount"). A run's `refundedAmount` sums its 'refund' rows and its
-- `reversedRefundAmount` its 'reversal' rows, so the figures of every past run can be checked against
-- this table however the transaction changed since, and summed over runs they leave the refunds that
-- still stand.
--
-- Each row keeps the money fields as they were counted: a refund's as Apple reported it, a reversal's
-- copied from the refund it reverses (Apple's answer after a reversal carries no revocation).
CREATE TABLE IF NOT EXISTS recon_refund_events (
    run_id                bigint NOT NULL REFERENCES recon_runs (id) ON DELETE CASCADE,
    transaction_id        text NOT NULL,
    kind                  text NOT NULL CHECK (kind IN ('refund', 'reversal')),
    -- the run whose refund a reversal reverses; NULL for a refund
    refund_run_id         bigint,
    price                 numeric,
    currency              text,
    environment           text CHECK (environment IN ('production', 'sandbox')),
    is_upgraded           boolean,
    ownership_type        text,
    revocation_type       text,
    revocation_percentage numeric,
    recorded_at           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run_id, transaction_id, kind)
);
CREATE INDEX IF NOT EXISTS recon_refund_events_transaction_idx ON recon_refund_events (transaction_id, run_id);

-- Not in the contract: the run that recorded the reversal of the refund `refund_run_id` recorded.
-- A reversal now keeps `refund_run_id` (it named the run whose figure counted the refund) and sets
-- this; a later refund sets `refund_run_id` anew and clears it.
ALTER TABLE recon_transactions ADD COLUMN IF NOT EXISTS refund_reversed_run_id bigint;

-- The refunds that stand were each counted by the run in `refund_run_id`. Refunds reversed before
-- this migration had that run cleared: they cannot be told back, and those runs' figures are not
-- reproduced by this table (docs/operations.md says so).
INSERT INTO recon_refund_events (run_id, transaction_id, kind, price, currency, environment, is_upgraded,
                                 ownership_type, revocation_type, revocation_percentage)
SELECT t.refund_run_id, t.transaction_id, 'refund', t.price, t.currency, t.environment, t.is_upgraded,
       t.ownership_type, t.revocation_type, t.revocation_percentage
FROM recon_transactions t
WHERE t.refund_run_id IS NOT NULL AND t.cancelled_at IS NOT NULL
  AND EXISTS (SELECT 1 FROM recon_runs r WHERE r.id = t.refund_run_id)
ON CONFLICT DO NOTHING;

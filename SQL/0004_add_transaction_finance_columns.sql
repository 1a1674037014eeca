-- Finance fields of a transaction (CONTRACT §4, §9): what the signed data says it cost, where and
-- why. verifyReceipt never sends them, so they stay NULL for its rows.
ALTER TABLE recon_transactions
    ADD COLUMN IF NOT EXISTS price               numeric,   -- in currency units, exact (Apple's milliunits / 1000)
    ADD COLUMN IF NOT EXISTS currency            text,      -- ISO 4217
    ADD COLUMN IF NOT EXISTS storefront          text,      -- ISO 3166-1 alpha-3
    ADD COLUMN IF NOT EXISTS offer_type          int,
    ADD COLUMN IF NOT EXISTS offer_discount_type text,
    ADD COLUMN IF NOT EXISTS transaction_reason  text,
    ADD COLUMN IF NOT EXISTS revocation_type     text,
    ADD COLUMN IF NOT EXISTS source              text CHECK (source IN ('verify_receipt', 'server_api', 'signed_row')),
    -- Not in the contract: the run that first recorded the transaction refunded, so each refund is
    -- counted in one run's refunded revenue, not again by every run that re-verifies the receipt.
    ADD COLUMN IF NOT EXISTS refund_run_id       bigint;

-- Every row so far was written by the verifyReceipt backend, the only one before this migration
-- (the job refuses to run before it applies), so its source is known exactly now and never again:
-- a row whose receipt is a compact JWS ('eyJ…' with two dots, SignedDataVerifier.looksLikeJWS) came
-- from a StoreKit 2 row, any other from verifyReceipt. Rows whose receipt is gone stay NULL.
UPDATE recon_transactions t
SET source = CASE
        WHEN ltrim(r.receipt_data, E' \t\r\n') LIKE 'eyJ%'
             AND length(r.receipt_data) - length(replace(r.receipt_data, '.', '')) = 2
        THEN 'signed_row' ELSE 'verify_receipt' END
FROM receipts r
WHERE r.id = t.receipt_id AND t.source IS NULL;

-- Refunds recorded before this migration belong to the run that last saw them: no later run
-- counts them again.
UPDATE recon_transactions SET refund_run_id = last_run_id
WHERE cancelled_at IS NOT NULL AND refund_run_id IS NULL;

CREATE INDEX IF NOT EXISTS recon_transactions_refund_run_idx ON recon_transactions (refund_run_id)
    WHERE refund_run_id IS NOT NULL;

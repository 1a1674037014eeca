-- How much of a revoked transaction's price Apple gave back (CONTRACT §8, §9 "Refunds and money"):
-- Apple's revocationPercentage as a percentage (its milliunits / 1000: 25000 is 25), 100 for a full
-- refund and for a verifyReceipt cancellation that is not an upgrade. NULL when not revoked, and for
-- upgrades and family revocations, which refund nothing of their own.
ALTER TABLE recon_transactions
    ADD COLUMN IF NOT EXISTS revocation_percentage numeric;

-- Rows written before this migration never kept Apple's percentage: their refunds are taken as
-- full (100), what the runs that recorded them counted. Those runs' figures are not recomputed
-- (each refund belongs to the run that first recorded it, refund_run_id). Upgrades and family
-- revocations stay NULL, as the writer leaves them.
UPDATE recon_transactions SET revocation_percentage = 100
WHERE cancelled_at IS NOT NULL AND revocation_percentage IS NULL
  AND NOT coalesce(is_upgraded, false)
  AND coalesce(revocation_type, '') <> 'FAMILY_REVOKE'
  AND coalesce(ownership_type, '') <> 'FAMILY_SHARED';

-- Why and undo (CONTRACT §4, §6): each correction and flag records the Apple fact that proved it
-- (`evidence`), and `revert --run ID` writes runs of its own kind whose corrections (reason
-- `reverted`) name the correction they undo.
ALTER TABLE recon_corrections ADD COLUMN IF NOT EXISTS evidence jsonb;
ALTER TABLE recon_flags ADD COLUMN IF NOT EXISTS evidence jsonb;

-- The correction a `reverted` row undoes; NULL for every other reason. A correction is undone at
-- most once by an applied revert (a dry run's rows are applied = false).
ALTER TABLE recon_corrections ADD COLUMN IF NOT EXISTS reverts_correction_id bigint
    REFERENCES recon_corrections (id) ON DELETE SET NULL;
CREATE UNIQUE INDEX IF NOT EXISTS recon_corrections_reverted_once_idx
    ON recon_corrections (reverts_correction_id) WHERE reverts_correction_id IS NOT NULL AND applied;

ALTER TABLE recon_corrections DROP CONSTRAINT IF EXISTS recon_corrections_reason_check;
ALTER TABLE recon_corrections ADD CONSTRAINT recon_corrections_reason_check CHECK (reason IN (
    'purchase_not_granted', 'renewal', 'grace_period', 'expired', 'refund', 'family_revoke',
    'refund_reversed', 'invalid_receipt', 'wrong_environment', 'bundle_mismatch', 'no_purchase',
    'reverted'));

ALTER TABLE recon_runs DROP CONSTRAINT IF EXISTS recon_runs_kind_check;
ALTER TABLE recon_runs ADD CONSTRAINT recon_runs_kind_check CHECK (kind IN ('nightly', 'user', 'revert'));
-- The run a revert undoes.
ALTER TABLE recon_runs ADD COLUMN IF NOT EXISTS reverts_run_id bigint REFERENCES recon_runs (id);

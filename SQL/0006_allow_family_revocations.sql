-- Family Sharing revocations are told from refunds (CONTRACT §4, §9 "Refunds and money"): correction
-- reason `family_revoke`, flag `family_revoked`. The vocabularies' CHECK constraints grow by one each.
ALTER TABLE recon_flags DROP CONSTRAINT IF EXISTS recon_flags_kind_check;
ALTER TABLE recon_flags ADD CONSTRAINT recon_flags_kind_check CHECK (kind IN (
    'invalid_receipt', 'sandbox_in_production', 'production_in_sandbox', 'bundle_mismatch',
    'shared_transaction', 'refunded', 'family_revoked', 'unknown_product', 'unverified',
    'entitlement_without_receipt'));

ALTER TABLE recon_corrections DROP CONSTRAINT IF EXISTS recon_corrections_reason_check;
ALTER TABLE recon_corrections ADD CONSTRAINT recon_corrections_reason_check CHECK (reason IN (
    'purchase_not_granted', 'renewal', 'grace_period', 'expired', 'refund', 'family_revoke',
    'refund_reversed', 'invalid_receipt', 'wrong_environment', 'bundle_mismatch', 'no_purchase'));

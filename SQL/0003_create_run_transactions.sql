-- Scratch rows for one run's shared_transaction scan: which original transactions each user's
-- receipts carried in this run. Written in dry runs too (recon_transactions is not), read once at the
-- end of the run, then deleted. Not part of the contract.
CREATE TABLE recon_run_transactions (
    run_id                  bigint NOT NULL REFERENCES recon_runs (id) ON DELETE CASCADE,
    user_id                 text NOT NULL,
    receipt_id              bigint NOT NULL,
    original_transaction_id text NOT NULL,
    PRIMARY KEY (run_id, original_transaction_id, user_id, receipt_id)
);

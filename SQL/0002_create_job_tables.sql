-- The job's own tables (CONTRACT §4). Column names and vocabularies are part of the contract; the
-- CHECK constraints keep every writer to them.

CREATE TABLE recon_runs (
    id                 bigserial PRIMARY KEY,
    kind               text NOT NULL CHECK (kind IN ('nightly', 'user')),
    status             text NOT NULL
                       CHECK (status IN ('running', 'completed', 'partial', 'aborted', 'failed', 'interrupted')),
    dry_run            boolean NOT NULL,
    as_of              timestamptz NOT NULL,
    started_at         timestamptz NOT NULL DEFAULT now(),
    finished_at        timestamptz,
    options            jsonb NOT NULL DEFAULT '{}',
    shard              text NOT NULL DEFAULT '0/1',     -- 'I/N' of `run --shard`
    subject_user_id    text,                            -- verify-user's user
    receipts_selected  int NOT NULL DEFAULT 0,
    receipts_processed int NOT NULL DEFAULT 0,
    users_processed    int NOT NULL DEFAULT 0,
    valid              int NOT NULL DEFAULT 0,
    misrouted          int NOT NULL DEFAULT 0,
    invalid            int NOT NULL DEFAULT 0,
    unverified         int NOT NULL DEFAULT 0,
    corrections        int NOT NULL DEFAULT 0,
    revoked_users      int NOT NULL DEFAULT 0,
    flags              int NOT NULL DEFAULT 0,
    apple_requests     int NOT NULL DEFAULT 0,
    apple_retries      int NOT NULL DEFAULT 0,
    apple_throttled    int NOT NULL DEFAULT 0,          -- HTTP 429 answers
    exit_code          int,
    abort_reason       text,
    summary            jsonb,                           -- the end-of-run summary, for `report`
    host               text,                            -- who ran it: a `running` row whose process is gone
    pid                int,                             --   is marked 'interrupted' by the next run
    CHECK (finished_at IS NULL OR finished_at >= started_at)
);
CREATE INDEX recon_runs_kind_started_idx ON recon_runs (kind, started_at DESC);
CREATE INDEX recon_runs_running_idx ON recon_runs (status) WHERE status = 'running';

CREATE TABLE recon_receipt_state (
    receipt_id        bigint PRIMARY KEY,
    last_verified_at  timestamptz NOT NULL,
    last_outcome      text NOT NULL CHECK (last_outcome IN ('valid', 'misrouted', 'invalid', 'unverified')),
    last_apple_status int,
    last_environment  text CHECK (last_environment IN ('production', 'sandbox')),
    last_run_id       bigint REFERENCES recon_runs (id) ON DELETE SET NULL,
    bundle_id         text,
    first_verified_at timestamptz NOT NULL DEFAULT now()
);
-- Nightly selection: receipts never verified, or verified before now() - --older-than.
CREATE INDEX recon_receipt_state_last_verified_idx ON recon_receipt_state (last_verified_at);
-- A receipt's state goes with it. A foreign key can only reference a table: when receipts is a view
-- over the app's own table, the state of a deleted receipt stays behind, unread (the job looks
-- states up from receipts).
DO $$
BEGIN
    IF (SELECT relkind FROM pg_class WHERE oid = to_regclass('receipts')) IN ('r', 'p') THEN
        ALTER TABLE recon_receipt_state ADD CONSTRAINT recon_receipt_state_receipt_id_fkey
            FOREIGN KEY (receipt_id) REFERENCES receipts (id) ON DELETE CASCADE;
    END IF;
END
$$;

CREATE TABLE recon_results (
    run_id       bigint NOT NULL REFERENCES recon_runs (id) ON DELETE CASCADE,
    receipt_id   bigint NOT NULL,
    user_id      text NOT NULL,
    outcome      text NOT NULL CHECK (outcome IN ('valid', 'misrouted', 'invalid', 'unverified')),
    apple_status int,
    environment  text CHECK (environment IN ('production', 'sandbox')),
    attempts     int NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    verified_at  timestamptz NOT NULL DEFAULT now(),
    detail       text,
    PRIMARY KEY (run_id, receipt_id)
);
CREATE INDEX recon_results_user_idx ON recon_results (user_id, verified_at);
CREATE INDEX recon_results_receipt_idx ON recon_results (receipt_id, verified_at);

CREATE TABLE recon_transactions (
    transaction_id          text PRIMARY KEY,
    original_transaction_id text NOT NULL,
    product_id              text NOT NULL,
    user_id                 text NOT NULL,
    receipt_id              bigint,
    environment             text CHECK (environment IN ('production', 'sandbox')),
    purchased_at            timestamptz,
    original_purchased_at   timestamptz,
    expires_at              timestamptz,
    cancelled_at            timestamptz,
    cancellation_reason     int,
    is_trial                boolean,
    is_intro_offer          boolean,
    is_upgraded             boolean,
    ownership_type          text,            -- Apple's raw value: PURCHASED, FAMILY_SHARED, …
    quantity                int,
    web_order_line_item_id  text,
    first_run_id            bigint,
    last_run_id             bigint,
    updated_at              timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX recon_transactions_user_idx ON recon_transactions (user_id);
-- shared_transaction: one original transaction on receipts of two or more users.
CREATE INDEX recon_transactions_original_idx ON recon_transactions (original_transaction_id, user_id);
-- Finance export: date range per environment.
CREATE INDEX recon_transactions_purchased_idx ON recon_transactions (environment, purchased_at, transaction_id);

CREATE TABLE recon_flags (
    id         bigserial PRIMARY KEY,
    run_id     bigint NOT NULL REFERENCES recon_runs (id) ON DELETE CASCADE,
    receipt_id bigint,                        -- NULL where no receipt applies (entitlement_without_receipt)
    user_id    text NOT NULL,
    kind       text NOT NULL CHECK (kind IN (
                   'invalid_receipt', 'sandbox_in_production', 'production_in_sandbox', 'bundle_mismatch',
                   'shared_transaction', 'refunded', 'unknown_product', 'unverified',
                   'entitlement_without_receipt')),
    detail     text,
    created_at timestamptz NOT NULL DEFAULT now()
);
-- One row per receipt (or per user where no receipt applies) and kind, per run.
CREATE UNIQUE INDEX recon_flags_once_per_run_idx ON recon_flags (run_id, user_id, kind, coalesce(receipt_id, -1));
CREATE INDEX recon_flags_created_idx ON recon_flags (created_at, id);
CREATE INDEX recon_flags_user_idx ON recon_flags (user_id, created_at);

CREATE TABLE recon_corrections (
    id                      bigserial PRIMARY KEY,
    run_id                  bigint NOT NULL REFERENCES recon_runs (id) ON DELETE CASCADE,
    user_id                 text NOT NULL,
    entitlement             text NOT NULL,
    action                  text NOT NULL CHECK (action IN ('grant', 'revoke', 'extend', 'shorten')),
    reason                  text NOT NULL CHECK (reason IN (
                                'purchase_not_granted', 'renewal', 'grace_period', 'expired', 'refund',
                                'refund_reversed', 'invalid_receipt', 'wrong_environment', 'bundle_mismatch',
                                'no_purchase')),
    before_active           boolean,
    before_expires_at       timestamptz,
    after_active            boolean NOT NULL,
    after_expires_at        timestamptz,
    product_id              text,
    original_transaction_id text,
    applied                 boolean NOT NULL,
    created_at              timestamptz NOT NULL DEFAULT now()
);
-- A run corrects one entitlement of one user at most once.
CREATE UNIQUE INDEX recon_corrections_once_per_run_idx ON recon_corrections (run_id, user_id, entitlement);
CREATE INDEX recon_corrections_created_idx ON recon_corrections (created_at, id);
CREATE INDEX recon_corrections_user_idx ON recon_corrections (user_id, entitlement, created_at);

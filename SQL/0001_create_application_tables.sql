-- The application's own tables (CONTRACT §4). They usually exist already, created by the app with
-- rows in them: every statement here only creates what is missing and never rewrites data.
-- The job reads products, receipts and sandbox_testers, and writes only entitlements.

CREATE TABLE IF NOT EXISTS products (
    product_id  text PRIMARY KEY,
    kind        text NOT NULL
                CHECK (kind IN ('consumable', 'non_consumable', 'auto_renewable', 'non_renewing')),
    entitlement text,       -- what the product unlocks; NULL for consumables
    duration    interval    -- non_renewing only: access length from purchase
);

CREATE TABLE IF NOT EXISTS receipts (
    id           bigserial PRIMARY KEY,
    user_id      text NOT NULL,
    receipt_data text NOT NULL,              -- base64, as the device sent it
    created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS entitlements (
    user_id                 text NOT NULL,
    entitlement             text NOT NULL,
    active                  boolean NOT NULL,
    expires_at              timestamptz,     -- NULL: does not expire
    product_id              text,
    original_transaction_id text,
    source                  text NOT NULL DEFAULT 'app_store',  -- the job touches only 'app_store' rows
    updated_at              timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, entitlement)
);

CREATE TABLE IF NOT EXISTS sandbox_testers (
    user_id text PRIMARY KEY,                -- App Review / TestFlight accounts exempt from sandbox revocation
    note    text
);

-- Per-user reads (verify-user, the nightly unit of work) and the nightly selection, which walks
-- users in user_id order and their receipts in id order. Only on a table: when receipts is a view
-- over the app's own table, that table needs the index on the view's expressions instead
-- (docs/integration.md).
DO $$
BEGIN
    IF (SELECT relkind FROM pg_class WHERE oid = to_regclass('receipts')) IN ('r', 'p') THEN
        CREATE INDEX IF NOT EXISTS receipts_user_id_id_idx ON receipts (user_id, id);
    END IF;
END
$$;

-- Nights driven by Apple's notification history, a sweep that covers everyone, and one request budget
-- for every shard (CONTRACT §9 "Notification history"). All of these are the job's own tables.

-- Where the last run of a shard set stopped reading Get Notification History, per environment and app.
-- A run reads from read_through minus a small overlap; the cursor moves only after every record of
-- the span it covers is stored (a crash rereads the span; notification_uuid absorbs the repeats).
CREATE TABLE recon_notification_cursor (
    shard_count  int NOT NULL CHECK (shard_count >= 1),      -- N of --shard I/N: one reader per shard set
    environment  text NOT NULL CHECK (environment IN ('production', 'sandbox')),
    bundle_id    text NOT NULL,
    read_through timestamptz NOT NULL,                       -- end of the last span read whole
    last_run_id  bigint REFERENCES recon_runs (id) ON DELETE SET NULL,
    updated_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (shard_count, environment, bundle_id)
);

-- Every verified notification the job has read, once (Apple's notificationUUID).
CREATE TABLE recon_notifications (
    notification_uuid       text PRIMARY KEY,
    notification_type       text NOT NULL,               -- Apple's raw value, unknown types included
    subtype                 text,
    signed_at               timestamptz NOT NULL,
    environment             text NOT NULL CHECK (environment IN ('production', 'sandbox')),
    bundle_id               text,
    delivery_failed         boolean NOT NULL,            -- every send attempt to the app's webhook failed
    transaction_id          text,
    original_transaction_id text,
    product_id              text,
    user_id                 text,                        -- one holder; NULL when no stored row holds it
    run_id                  bigint REFERENCES recon_runs (id) ON DELETE SET NULL,  -- the run that read it first
    received_at             timestamptz NOT NULL DEFAULT now()                     -- the export's filter
);
CREATE INDEX recon_notifications_unmatched_idx ON recon_notifications (received_at, notification_uuid)
    WHERE user_id IS NULL;
CREATE INDEX recon_notifications_signed_idx ON recon_notifications (signed_at);

-- The users a notification names (every holder of its transaction: a shared transaction names several),
-- each handled once: by the run whose committed write of that user covered it.
CREATE TABLE recon_notification_users (
    notification_uuid text NOT NULL REFERENCES recon_notifications (notification_uuid) ON DELETE CASCADE,
    user_id           text NOT NULL,
    handled_run_id    bigint,
    PRIMARY KEY (notification_uuid, user_id)
);
CREATE INDEX recon_notification_users_pending_idx ON recon_notification_users (user_id)
    WHERE handled_run_id IS NULL;

-- When each user was last verified whole: the sweep takes the oldest.
CREATE TABLE recon_user_state (
    user_id     text PRIMARY KEY,
    verified_at timestamptz NOT NULL,
    last_run_id bigint
);
CREATE INDEX recon_user_state_verified_idx ON recon_user_state (verified_at, user_id);
-- A user counts as verified when the oldest of their receipts was.
INSERT INTO recon_user_state (user_id, verified_at, last_run_id)
SELECT r.user_id, min(s.last_verified_at), max(s.last_run_id)
FROM receipts r JOIN recon_receipt_state s ON s.receipt_id = r.id
GROUP BY r.user_id;

-- Requests granted per Apple endpoint per clock hour, for every shard together (--max-requests-per-hour).
CREATE TABLE recon_request_budget (
    endpoint     text NOT NULL,
    window_start timestamptz NOT NULL,
    granted      int NOT NULL DEFAULT 0 CHECK (granted >= 0),
    PRIMARY KEY (endpoint, window_start)
);

-- Scratch rows for one run's selection: the users it will take and why, paged by the run. Written in
-- dry runs too, deleted at the end of the run. Not part of the contract.
CREATE TABLE recon_run_queue (
    run_id  bigint NOT NULL REFERENCES recon_runs (id) ON DELETE CASCADE,
    user_id text NOT NULL,
    reason  text NOT NULL CHECK (reason IN ('notified', 'new', 'sweep', 'older_than')),
    PRIMARY KEY (run_id, user_id)
);

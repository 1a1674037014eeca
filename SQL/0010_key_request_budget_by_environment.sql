-- The sandbox's requests are budgeted apart from production's (CONTRACT §9 "Limits per environment"):
-- Apple limits the sandbox at a tenth of production, so the hourly windows of
-- --sandbox-max-requests-per-hour are rows of their own. Rows written before this migration counted
-- every request as one endpoint's whatever its environment; they are production's, and the table keeps
-- about a day of rows, so any miscount ends within a day.
ALTER TABLE recon_request_budget ADD COLUMN IF NOT EXISTS environment text NOT NULL DEFAULT 'production'
    CHECK (environment IN ('production', 'sandbox'));
ALTER TABLE recon_request_budget DROP CONSTRAINT IF EXISTS recon_request_budget_pkey;
ALTER TABLE recon_request_budget ADD PRIMARY KEY (environment, endpoint, window_start);

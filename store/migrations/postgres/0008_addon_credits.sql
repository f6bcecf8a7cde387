-- The part of a request's cost that paid for add-ons (rendering in the browser, screenshots), so
-- usage can show it apart. Rows before this migration had none.
ALTER TABLE request_log ADD COLUMN addon_credits INTEGER NOT NULL DEFAULT 0 CHECK (addon_credits >= 0);

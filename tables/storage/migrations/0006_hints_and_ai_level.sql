-- Hints (/hint) shown to each person in a finished game, for /stats ("3 with hints"), and a table's
-- default AI level (the table option ai=strong; NULL: normal).
ALTER TABLE results ADD COLUMN hints INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tables ADD COLUMN ai_level TEXT;

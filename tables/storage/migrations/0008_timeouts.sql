-- A move the clock made for a person whose time ran out is marked in the log, so a game read back
-- from the database (after a restart, or once the table left memory) reviews and replays it as
-- "time ran out", the same as live.  Rows logged before this migration count as not timed out.
ALTER TABLE actions ADD COLUMN timed_out INTEGER NOT NULL DEFAULT 0;

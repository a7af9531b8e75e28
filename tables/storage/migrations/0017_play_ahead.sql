-- Play ahead (issue 34, tables/ahead.py): whether people at a trick game may choose their card before
-- their turn.  On by default; the table option ahead=off turns it off.  The cards chosen are never
-- stored (a restart drops them).  Rows from before: on.
ALTER TABLE tables ADD COLUMN play_ahead INTEGER NOT NULL DEFAULT 1;

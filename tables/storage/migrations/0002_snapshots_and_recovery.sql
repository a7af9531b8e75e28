-- Faster, safer recovery: a periodic state snapshot (replay starts there), when each acting seat's
-- decision began (so a pass menu opened before a restart stays valid), and tables that could not be
-- restored.
ALTER TABLE tables ADD COLUMN snapshot TEXT;                            -- JSON Game.to_dict(), or NULL
ALTER TABLE tables ADD COLUMN snapshot_version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tables ADD COLUMN since TEXT NOT NULL DEFAULT '{}';         -- JSON {seat: version}
ALTER TABLE tables ADD COLUMN broken TEXT;                              -- why it could not be restored
CREATE INDEX tables_by_finish ON tables (finished_at);

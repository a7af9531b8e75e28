-- PostgreSQL version of ../0002_snapshots_and_recovery.sql.
ALTER TABLE tables ADD COLUMN snapshot TEXT;
ALTER TABLE tables ADD COLUMN snapshot_version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tables ADD COLUMN since TEXT NOT NULL DEFAULT '{}';
ALTER TABLE tables ADD COLUMN broken TEXT;
CREATE INDEX tables_by_finish ON tables (finished_at);

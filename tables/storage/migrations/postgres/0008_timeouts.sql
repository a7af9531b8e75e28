-- PostgreSQL version of ../0008_timeouts.sql.
ALTER TABLE actions ADD COLUMN timed_out INTEGER NOT NULL DEFAULT 0;

-- PostgreSQL version of ../0001_tables_and_log.sql (same columns; Discord ids are BIGINT, times
-- DOUBLE PRECISION, JSON kept as TEXT so both backends hand the runtime the same strings).
CREATE TABLE tables (
    id          TEXT PRIMARY KEY,
    game        TEXT NOT NULL,
    options     TEXT NOT NULL,
    speed       TEXT NOT NULL,
    guild_id    BIGINT NOT NULL,
    channel_id  BIGINT NOT NULL,
    thread_id   BIGINT,
    message_id  BIGINT,
    host_id     BIGINT NOT NULL,
    seats       TEXT NOT NULL,
    phase       TEXT NOT NULL,
    seed        BIGINT,
    version     INTEGER NOT NULL DEFAULT 0,
    rev         INTEGER NOT NULL DEFAULT 0,
    deadlines   TEXT NOT NULL DEFAULT '{}',
    created_at  DOUBLE PRECISION NOT NULL,
    finished_at DOUBLE PRECISION,
    ended_early INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX tables_by_phase ON tables (phase);

CREATE TABLE actions (
    table_id TEXT NOT NULL,
    seq      INTEGER NOT NULL,
    seat     INTEGER NOT NULL,
    code     TEXT NOT NULL,
    time     DOUBLE PRECISION NOT NULL,
    auto     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (table_id, seq)
);

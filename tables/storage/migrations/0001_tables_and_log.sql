-- Tables and their action logs: everything needed to rebuild a table after a restart.
CREATE TABLE tables (
    id          TEXT PRIMARY KEY,           -- the 6-character game id people type
    game        TEXT NOT NULL,              -- engine name (hearts, ...)
    options     TEXT NOT NULL,              -- JSON object: the validated table options
    speed       TEXT NOT NULL,
    guild_id    INTEGER NOT NULL,
    channel_id  INTEGER NOT NULL,
    thread_id   INTEGER,
    message_id  INTEGER,
    host_id     INTEGER NOT NULL,
    seats       TEXT NOT NULL,              -- JSON list of {user_id, name, is_ai, away, missed, left}
    phase       TEXT NOT NULL,              -- lobby | running | finished
    seed        INTEGER,
    version     INTEGER NOT NULL DEFAULT 0, -- the state version: the seq of the last logged action
    rev         INTEGER NOT NULL DEFAULT 0, -- counts every write of the row (lobby changes too)
    deadlines   TEXT NOT NULL DEFAULT '{}', -- JSON {seat: absolute time in seconds since the epoch}
    created_at  REAL NOT NULL,
    finished_at REAL,
    ended_early INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX tables_by_phase ON tables (phase);

CREATE TABLE actions (
    table_id TEXT NOT NULL,
    seq      INTEGER NOT NULL,              -- 1, 2, 3, ...: the table version right after it
    seat     INTEGER NOT NULL,              -- -1 for a step the rules make on a timer
    code     TEXT NOT NULL,                 -- the action code (play QS, pass 2C 3D 4H)
    time     REAL NOT NULL,
    auto     INTEGER NOT NULL DEFAULT 0,    -- made by the AI or at a deadline
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;

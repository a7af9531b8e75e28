-- PostgreSQL version of ../0009_rematches_and_pings.sql.
CREATE TABLE rematches (
    old_id     TEXT PRIMARY KEY,
    new_id     TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL
);
CREATE TABLE pings (
    table_id   TEXT NOT NULL,
    message_id BIGINT NOT NULL,
    channel_id BIGINT NOT NULL,
    due        TEXT NOT NULL,
    PRIMARY KEY (table_id, message_id)
);

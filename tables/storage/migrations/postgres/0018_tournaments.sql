-- PostgreSQL version of ../0018_tournaments.sql.
CREATE TABLE tournaments (
    id         TEXT PRIMARY KEY,
    guild_id   BIGINT NOT NULL,
    channel_id BIGINT NOT NULL,
    message_id BIGINT,
    data       TEXT NOT NULL,
    finished   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX tournaments_unfinished ON tournaments (finished);

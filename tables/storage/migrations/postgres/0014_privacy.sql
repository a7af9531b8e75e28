-- PostgreSQL version of ../0014_privacy.sql.
CREATE TABLE former_results (
    table_id    TEXT NOT NULL,
    seat        INTEGER NOT NULL,
    guild_id    BIGINT NOT NULL,
    game        TEXT NOT NULL,
    place       INTEGER NOT NULL,
    finished_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (table_id, seat)
);

CREATE TABLE departures (
    guild_id BIGINT PRIMARY KEY,
    left_at  DOUBLE PRECISION NOT NULL
);

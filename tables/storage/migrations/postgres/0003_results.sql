-- PostgreSQL version of ../0003_results.sql.
CREATE TABLE results (
    table_id    TEXT NOT NULL,
    seat        INTEGER NOT NULL,
    guild_id    BIGINT NOT NULL,
    game        TEXT NOT NULL,
    user_id     BIGINT NOT NULL,
    name        TEXT NOT NULL,
    players     INTEGER NOT NULL,
    place       INTEGER NOT NULL,
    score       INTEGER NOT NULL,
    won         INTEGER NOT NULL,
    figures     TEXT NOT NULL DEFAULT '{}',
    finished_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (table_id, seat)
);
CREATE INDEX results_by_player ON results (guild_id, user_id);
CREATE INDEX results_by_game ON results (guild_id, game);

-- PostgreSQL version of ../0004_ratings.sql (ratings per server, game and player; the AI is user 0).
CREATE TABLE ratings (
    guild_id BIGINT NOT NULL,
    game     TEXT NOT NULL,
    user_id  BIGINT NOT NULL,
    mu       DOUBLE PRECISION NOT NULL,
    sigma    DOUBLE PRECISION NOT NULL,
    games    INTEGER NOT NULL,
    PRIMARY KEY (guild_id, game, user_id)
);
CREATE INDEX ratings_by_player ON ratings (guild_id, user_id);

CREATE TABLE ai_results (
    table_id    TEXT NOT NULL,
    seat        INTEGER NOT NULL,
    guild_id    BIGINT NOT NULL,
    game        TEXT NOT NULL,
    place       INTEGER NOT NULL,
    finished_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (table_id, seat)
);

CREATE TABLE rated_tables (
    table_id TEXT PRIMARY KEY
);

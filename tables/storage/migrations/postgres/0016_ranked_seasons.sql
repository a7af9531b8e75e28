-- PostgreSQL version of ../0016_ranked_seasons.sql (ranked and casual tables, seasons).
ALTER TABLE tables ADD COLUMN ranked INTEGER NOT NULL DEFAULT 0;
ALTER TABLE results ADD COLUMN ranked INTEGER NOT NULL DEFAULT 1;
ALTER TABLE results ADD COLUMN absent INTEGER NOT NULL DEFAULT 0;

ALTER TABLE ratings ADD COLUMN season TEXT NOT NULL DEFAULT 'all';
ALTER TABLE ratings ADD COLUMN season_games INTEGER NOT NULL DEFAULT 0;

CREATE TABLE season_boards (
    guild_id BIGINT NOT NULL,
    game     TEXT NOT NULL,
    season   TEXT NOT NULL,
    user_id  BIGINT NOT NULL,
    mu       DOUBLE PRECISION NOT NULL,
    sigma    DOUBLE PRECISION NOT NULL,
    games    INTEGER NOT NULL,
    PRIMARY KEY (guild_id, game, season, user_id)
);
CREATE INDEX season_boards_by_player ON season_boards (user_id);

DELETE FROM rated_tables;

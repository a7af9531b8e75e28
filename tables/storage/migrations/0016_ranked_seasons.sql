-- Ranked and casual tables, and seasons of the leaderboard (tables/history/ratings.py; issue 34).
-- A table is ranked or casual (the host's choice within the server's settings); only ranked games
-- between people change ratings.  Results from before were all rated: they count as ranked.
ALTER TABLE tables ADD COLUMN ranked INTEGER NOT NULL DEFAULT 0;
ALTER TABLE results ADD COLUMN ranked INTEGER NOT NULL DEFAULT 1;
-- 1: the person left the game, or the AI played more than half of their turns; a ranked game then
-- counts as a loss for them (docs/rules.md, "Ranked and casual").
ALTER TABLE results ADD COLUMN absent INTEGER NOT NULL DEFAULT 0;

-- The season of each rating (the season of the person's last ranked game there) and how many
-- ranked games they played in it: the current season's leaderboard lists the ratings of this season.
ALTER TABLE ratings ADD COLUMN season TEXT NOT NULL DEFAULT 'all';
ALTER TABLE ratings ADD COLUMN season_games INTEGER NOT NULL DEFAULT 0;

-- A season's final board, kept when the next season's first ranked game is rated.
CREATE TABLE season_boards (
    guild_id INTEGER NOT NULL,
    game     TEXT NOT NULL,
    season   TEXT NOT NULL,
    user_id  INTEGER NOT NULL,
    mu       REAL NOT NULL,
    sigma    REAL NOT NULL,
    games    INTEGER NOT NULL,          -- ranked games played in that season
    PRIMARY KEY (guild_id, game, season, user_id)
);
CREATE INDEX season_boards_by_player ON season_boards (user_id);

-- Ratings are recomputed with seasons on first use: forget which games they included.
DELETE FROM rated_tables;

-- One row per person per finished game, kept when old tables and logs are pruned: /stats and
-- /leaderboard read only this.
CREATE TABLE results (
    table_id    TEXT NOT NULL,
    seat        INTEGER NOT NULL,
    guild_id    INTEGER NOT NULL,
    game        TEXT NOT NULL,
    user_id     INTEGER NOT NULL,
    name        TEXT NOT NULL,
    players     INTEGER NOT NULL,
    place       INTEGER NOT NULL,           -- 1 = first (shared for ties)
    score       INTEGER NOT NULL,
    won         INTEGER NOT NULL,
    figures     TEXT NOT NULL DEFAULT '{}', -- JSON of game-specific counts (moons shot, ...)
    finished_at REAL NOT NULL,
    PRIMARY KEY (table_id, seat)
);
CREATE INDEX results_by_player ON results (guild_id, user_id);
CREATE INDEX results_by_game ON results (guild_id, game);

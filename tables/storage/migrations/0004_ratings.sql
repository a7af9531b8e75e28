-- Ratings (openskill Plackett-Luce) per server, game and player; the built-in AI is user_id 0.
-- Recomputable at any time from the finishing orders: people's places in results, the AI seats'
-- places in ai_results.  rated_tables says which finished games the ratings include: a stored
-- result whose table is not there (every game finished before this migration, or one whose
-- rating write was lost in a crash) makes Deckhand recompute them all on first use, which is how
-- existing results are backfilled (the model runs in Python, not in SQL).
CREATE TABLE ratings (
    guild_id INTEGER NOT NULL,
    game     TEXT NOT NULL,
    user_id  INTEGER NOT NULL,          -- 0: the built-in AI (rated, never listed)
    mu       REAL NOT NULL,
    sigma    REAL NOT NULL,
    games    INTEGER NOT NULL,
    PRIMARY KEY (guild_id, game, user_id)
);
CREATE INDEX ratings_by_player ON ratings (guild_id, user_id);

CREATE TABLE ai_results (
    table_id    TEXT NOT NULL,
    seat        INTEGER NOT NULL,
    guild_id    INTEGER NOT NULL,
    game        TEXT NOT NULL,
    place       INTEGER NOT NULL,
    finished_at REAL NOT NULL,
    PRIMARY KEY (table_id, seat)
);

CREATE TABLE rated_tables (
    table_id TEXT PRIMARY KEY
);

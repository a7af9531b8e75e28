-- What "forget me" keeps of a person (tables/privacy.py): only where they finished each game, with
-- no id, so that a recomputation of the ratings still sees every game's finishing order and the
-- others' ratings stay what they were.  One row per forgotten seat.
CREATE TABLE former_results (
    table_id    TEXT NOT NULL,
    seat        INTEGER NOT NULL,
    guild_id    INTEGER NOT NULL,
    game        TEXT NOT NULL,
    place       INTEGER NOT NULL,
    finished_at REAL NOT NULL,
    PRIMARY KEY (table_id, seat)
);

-- Servers that removed Deckhand (on_guild_remove): everything kept for them is deleted once the
-- grace period has passed since left_at, unless Deckhand is added back first (the row goes).
CREATE TABLE departures (
    guild_id INTEGER PRIMARY KEY,
    left_at  REAL NOT NULL
);

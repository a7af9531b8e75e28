-- Reviews of a person's play (engine/review.py; tables/reviews.py), paid once per seat of a finished
-- game: the whole review as JSON for the summary, and the sums /stats averages over (the loss over
-- all judged decisions, and how many were judged), by game.  Kept when old tables are pruned.
CREATE TABLE reviews (
    table_id   TEXT NOT NULL,
    seat       INTEGER NOT NULL,
    guild_id   INTEGER NOT NULL,
    user_id    INTEGER NOT NULL,
    game       TEXT NOT NULL,
    review     TEXT NOT NULL,
    judged     INTEGER NOT NULL,
    loss       REAL NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (table_id, seat)
);
CREATE INDEX reviews_by_player ON reviews (guild_id, user_id);

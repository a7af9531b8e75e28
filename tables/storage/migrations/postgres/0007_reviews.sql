-- PostgreSQL version of ../0007_reviews.sql.
CREATE TABLE reviews (
    table_id   TEXT NOT NULL,
    seat       INTEGER NOT NULL,
    guild_id   BIGINT NOT NULL,
    user_id    BIGINT NOT NULL,
    game       TEXT NOT NULL,
    review     TEXT NOT NULL,
    judged     INTEGER NOT NULL,
    loss       DOUBLE PRECISION NOT NULL,
    created_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (table_id, seat)
);
CREATE INDEX reviews_by_player ON reviews (guild_id, user_id);

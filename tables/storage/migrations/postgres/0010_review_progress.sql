-- PostgreSQL version of ../0010_review_progress.sql.
CREATE TABLE review_progress (
    table_id   TEXT NOT NULL,
    seat       INTEGER NOT NULL,
    step       INTEGER NOT NULL,
    judged     TEXT NOT NULL,
    PRIMARY KEY (table_id, seat, step)
);

-- A review's judged decisions, kept one by one as the AI workers finish them (tables/reviews.py):
-- a review cut short (the bot stopped, the workers gave up) resumes from here instead of judging them
-- again.  ``judged``: the decision as JSON (engine.review.Judged).  Deleted once the whole review is
-- stored in ``reviews`` (migration 0007).
CREATE TABLE review_progress (
    table_id   TEXT NOT NULL,
    seat       INTEGER NOT NULL,
    step       INTEGER NOT NULL,
    judged     TEXT NOT NULL,
    PRIMARY KEY (table_id, seat, step)
);

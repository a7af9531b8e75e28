-- What a restart must not forget besides the tables (tables/kept.py): which lobby a finished table's
-- Play again opened (one rematch per finished table), and the turn pings and nudges still standing
-- in a table's thread (deleted once their people moved), each with the deadline per seat it was sent
-- for (JSON: {"seat": deadline}).  Both go when their table is pruned.
CREATE TABLE rematches (
    old_id     TEXT PRIMARY KEY,
    new_id     TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE pings (
    table_id   TEXT NOT NULL,
    message_id INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    due        TEXT NOT NULL,
    PRIMARY KEY (table_id, message_id)
);

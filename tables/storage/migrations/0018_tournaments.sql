-- Tournaments (tables/tournaments.py; issue 34): each one's sign-ups, rounds, tables and results as
-- JSON (tables/nights/tournament.py Tournament.to_dict, with where its tables' seats are), stored
-- after every change so a restart resumes it; message_id: its sign-up and standings message.
CREATE TABLE tournaments (
    id         TEXT PRIMARY KEY,
    guild_id   INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    message_id INTEGER,
    data       TEXT NOT NULL,
    finished   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX tournaments_unfinished ON tournaments (finished);

-- A server's own settings (tables/servers.py, /settings), as JSON: the channels tables may be opened
-- in, the default speed, house rules per game, whether games count for the leaderboard.  Rows from
-- before hold none ('{}': Deckhand's defaults).
ALTER TABLE servers ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';

-- Who changed a server's settings, when, and what (JSON: the setting and its new value).  Deleted
-- with the server's data; a person who asks to be forgotten leaves their changes without their id.
CREATE TABLE server_settings_log (
    guild_id INTEGER NOT NULL,
    user_id  INTEGER NOT NULL,
    at       REAL NOT NULL,
    change   TEXT NOT NULL
);
CREATE INDEX server_settings_log_by_guild ON server_settings_log (guild_id, at);

-- A table opened with its server's house rules (the lobby says so).
ALTER TABLE tables ADD COLUMN house INTEGER NOT NULL DEFAULT 0;

-- A server's own settings (tables/servers.py): so far the language its tables read, chosen by a
-- server manager with /game language (a catalog of words/: "de", "pt_BR"); no row, or a NULL
-- locale, means the server's Discord language (guild_locale).  Kept when tables are pruned.
CREATE TABLE servers (
    guild_id   INTEGER PRIMARY KEY,
    locale     TEXT,
    updated_at REAL NOT NULL
);

-- The language the whole table reads (issue 31): a catalog of words/ ("de", "pt_BR"; "en" is the
-- English of the code), the server's (Discord's guild_locale) when the table was opened, so that a
-- restart keeps it.  Rows from before read back as English.
ALTER TABLE tables ADD COLUMN locale TEXT NOT NULL DEFAULT 'en';

-- Where a table lives (issue 32): 'server', a channel of a server the bot is a member of; 'app', a
-- server that never added the bot, reached through a person's own install of the app; 'private', a
-- DM or group DM (its channel's id stands as guild_id: the place its results belong to).  Outside
-- 'server' the bot may only answer interactions.  Rows from before were all in servers.
ALTER TABLE tables ADD COLUMN place TEXT NOT NULL DEFAULT 'server';

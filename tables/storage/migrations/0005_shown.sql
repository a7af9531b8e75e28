-- What of a finished table its players have been shown: 1 = the closing summary was posted, 2 = the
-- table message shows the end (3 = both).  A table that finished just before the bot stopped is
-- picked up again at the next start until both are done; older finished tables count as shown.
ALTER TABLE tables ADD COLUMN shown INTEGER NOT NULL DEFAULT 0;
UPDATE tables SET shown = 3 WHERE phase = 'finished';

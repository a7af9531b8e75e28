-- PostgreSQL version of ../0015_server_settings.sql.
ALTER TABLE servers ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';

CREATE TABLE server_settings_log (
    guild_id BIGINT NOT NULL,
    user_id  BIGINT NOT NULL,
    at       DOUBLE PRECISION NOT NULL,
    change   TEXT NOT NULL
);
CREATE INDEX server_settings_log_by_guild ON server_settings_log (guild_id, at);

ALTER TABLE tables ADD COLUMN house INTEGER NOT NULL DEFAULT 0;

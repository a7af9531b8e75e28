-- PostgreSQL version of ../0013_server_language.sql.
CREATE TABLE servers (
    guild_id   BIGINT PRIMARY KEY,
    locale     TEXT,
    updated_at DOUBLE PRECISION NOT NULL
);

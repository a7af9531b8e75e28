"""cogs/sync/."""

"""cogs/watch/."""

"""cogs/replay/."""

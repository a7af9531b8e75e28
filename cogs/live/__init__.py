"""cogs/live/."""

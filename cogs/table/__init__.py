"""cogs/table/."""

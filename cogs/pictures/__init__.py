"""cogs/pictures/."""

"""cogs/ops/."""

"""cogs/i18n/."""

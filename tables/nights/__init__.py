"""Game nights that mean something: seasons of the leaderboard, tournaments' pairings and standings,
duplicate scoring.  The modules here are pure (no I/O, no clock, no asyncio): the runtime feeds them
what storage holds and keeps what they return."""

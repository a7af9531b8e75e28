"""The table runtime: lobbies, turns, deadlines and AI seats over the pure engine (no discord here)."""

from tables.clock import Clock, FakeClock, SystemClock
from tables.ids import ALPHABET, new_id, normalise
from tables.runtime import Listener, NullListener, Runtime, SeatView, TableError
from tables.table import SPEEDS, LogEntry, Phase, Seat, Table

__all__ = [
    "ALPHABET",
    "SPEEDS",
    "Clock",
    "FakeClock",
    "Listener",
    "LogEntry",
    "NullListener",
    "Phase",
    "Runtime",
    "Seat",
    "SeatView",
    "SystemClock",
    "Table",
    "TableError",
    "new_id",
    "normalise",
]

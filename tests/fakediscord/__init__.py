"""A fake Discord on 127.0.0.1 for end-to-end tests of the real bot (see ``server.py``), scripted
users that play through it (``users.py``), and the checks run after every test (``privacy.py``)."""

from .botrunner import running_bot
from .privacy import check_privacy
from .server import FakeDiscord, Message
from .users import CannotDoThat, Person, Reply

__all__ = ["CannotDoThat", "FakeDiscord", "Message", "Person", "Reply", "check_privacy", "running_bot"]

"""Card emoji with several bot processes (shards) starting together: each lists the application's
emoji, finds faces missing and uploads them; a name another process took meanwhile is refused, and
the face it uploaded is used instead — every process ends with every face, none uploaded twice."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import discord

from cogs.pictures import emoji


class Refused(discord.HTTPException):
    def __init__(self, status: int) -> None:
        self.status, self.code, self.text = status, 50035, "name taken"
        Exception.__init__(self, "name taken")


class SharedApplication:
    """One application's emoji, as every process of the bot sees them (Discord refuses a name twice)."""

    def __init__(self) -> None:
        self.emoji: dict[str, SimpleNamespace] = {}
        self.created = 0

    def client(self, refuse_status: int = 400) -> SimpleNamespace:
        async def fetch_application_emojis() -> list[SimpleNamespace]:
            await asyncio.sleep(0)
            return list(self.emoji.values())

        async def create_application_emoji(*, name: str, image: bytes) -> SimpleNamespace:
            await asyncio.sleep(0)
            if name in self.emoji:
                raise Refused(refuse_status)
            self.created += 1
            self.emoji[name] = SimpleNamespace(name=name, id=1000 + self.created)
            return self.emoji[name]

        return SimpleNamespace(fetch_application_emojis=fetch_application_emojis,
                               create_application_emoji=create_application_emoji)


FACES = {code: code.encode() for code in ("AS", "KH", "QS", "2C", "JD")}


async def test_processes_starting_together_share_the_uploaded_faces() -> None:
    app = SharedApplication()
    registries = [emoji.EmojiRegistry() for _ in range(3)]
    states = await asyncio.gather(*(emoji.sync_card_emoji(app.client(), r, draw=lambda: FACES)
                                    for r in registries))
    assert states == ["ready"] * 3
    assert app.created == len(FACES)  # each face uploaded once, whoever did it
    ids = {code: registries[0].get(code).id for code in FACES}
    assert all({code: r.get(code).id for code in FACES} == ids for r in registries)
    assert sum(r.calls["list"] for r in registries) > 3  # someone met a taken name and listed again


async def test_another_refusal_still_leaves_the_cards_as_text() -> None:
    """A refusal that is not a taken name (403: no access) is not mistaken for another's upload."""
    client = SharedApplication().client()

    async def refuse(*, name: str, image: bytes) -> None:
        raise Refused(403)

    client.create_application_emoji = refuse
    registry = emoji.EmojiRegistry()
    assert await emoji.sync_card_emoji(client, registry, draw=lambda: FACES) == "refused"
    assert registry.get("AS") is None

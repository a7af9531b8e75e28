"""Card faces as application emoji, through the real bot and the fake Discord: the first start
uploads every face, a second start makes one list call and nothing else, emojis someone else made
are left alone, and a table shows its cards as emoji when they are there and as text when Discord
refused them."""

from __future__ import annotations

import asyncio
import random
import re
from collections import Counter
from typing import Any

import pytest

from cogs.pictures import emoji, faces
from tests.e2e.conftest import GLOBAL_LIMIT, World, make_world
from tests.fakediscord import FakeDiscord, check_privacy, running_bot
from tests.fakediscord.play import open_table, play_seat

EMOJI_ROUTES = ("GET /applications/{application_id}/emojis", "POST /applications/{application_id}/emojis",
                "DELETE /applications/{application_id}/emojis/{emoji_id}")


# The end of the upload is awaited (the sync's task), with a generous bound: 80 faces take ~2 s
# with Discord's real windows, the global limit shared with the tables' own requests.
UPLOAD_WITHIN = 60.0


def emoji_calls(fd: FakeDiscord, since: int = 0) -> Counter[str]:
    return Counter(r.route.split()[0] for r in fd.requests[since:] if r.route in EMOJI_ROUTES)


async def test_first_start_uploads_every_face_second_start_only_lists() -> None:
    fd = FakeDiscord(global_limit=GLOBAL_LIMIT)  # the production setting
    await fd.start()
    try:
        # Someone's own emoji, and a face of ours from older art.
        fd.app_emojis["party_parrot"] = {"id": str(fd.ids.next()), "name": "party_parrot", "image": b"x"}
        fd.app_emojis["dk_qs_000000"] = {"id": str(fd.ids.next()), "name": "dk_qs_000000", "image": b"x"}
        count = len(faces.face_codes())

        async with running_bot(fd) as bot:
            assert await asyncio.wait_for(bot.emoji_task, UPLOAD_WITHIN) == "ready"
            first = emoji_calls(fd)
            assert emoji.card_emoji("QS") is not None and emoji.card_emoji("back") is not None
        assert first == Counter({"GET": 1, "POST": count, "DELETE": 1}), first
        assert "party_parrot" in fd.app_emojis and "dk_qs_000000" not in fd.app_emojis
        assert len(fd.app_emojis) == count + 1

        mark = len(fd.requests)
        # Started again at once (as after a crash): its command sync is the second in Discord's
        # window of two per 20 s, which once held the whole start-up back for ~16 s (issue 25).
        async with running_bot(fd) as bot:
            assert await asyncio.wait_for(bot.emoji_task, UPLOAD_WITHIN) == "ready"
            second = emoji_calls(fd, mark)
            qs = emoji.card_emoji("QS")
        assert second == Counter({"GET": 1}), second
        assert qs is not None and fd.app_emojis[qs.name]["id"] == str(qs.id)
        await fd.settle_clicks()
        fd.assert_clean()
    finally:
        await fd.close()


async def test_a_game_is_played_while_the_faces_upload() -> None:
    """The upload at a first start is never waited on: Discord sits on it here, and a game starts
    and shows its cards as text meanwhile; once the faces are there, the next redraw uses them."""
    fd = FakeDiscord(global_limit=GLOBAL_LIMIT)  # the production setting
    await fd.start()
    try:
        let_through = asyncio.Event()
        fd.hold("POST /applications/{application_id}/emojis", until=let_through)
        ali = fd.add_member("Ali")
        async with running_bot(fd) as bot:
            table_message = await open_table(ali, [], game="tricks")

            def trick_shown() -> bool:
                return "Last trick" in table_message.text or "On the table" in table_message.text

            await play_seat(ali, table_message, rng=random.Random(3), over=trick_shown, timeout=30)
            assert not bot.emoji_task.done() and emoji.card_emoji("QS") is None  # still uploading
            texts, used = _seen(fd)
            assert not used and not any("<:dk_" in t for t in texts)
            assert any(re.search(r"(On the table|Last trick).*(10|[2-9AJQK])[♣♦♥♠]", t) for t in texts)

            let_through.set()
            assert await asyncio.wait_for(bot.emoji_task, UPLOAD_WITHIN) == "ready"
            await play_seat(ali, table_message, rng=random.Random(4), over=lambda: "<:dk_" in table_message.text,
                            timeout=30)
            leaks = check_privacy(fd, list(bot.runtime.tables.values()))
            errors = bot.error_log.lines()
        assert not leaks, leaks[:5]
        assert not errors, errors[:5]
        await fd.settle_clicks()
        fd.assert_clean()
    finally:
        await fd.close()


async def test_a_full_application_is_refused_and_cards_stay_text() -> None:
    fd = FakeDiscord(global_limit=GLOBAL_LIMIT)  # the production setting
    fd.EMOJI_LIMIT = 10  # type: ignore[misc]  # the application has almost no room left
    await fd.start()
    try:
        async with running_bot(fd) as bot:
            assert await asyncio.wait_for(bot.emoji_task, UPLOAD_WITHIN) == "refused"
            assert emoji.card_emoji("QS") is None
            assert emoji_calls(fd)["POST"] == 11  # ten made, the eleventh refused, then it stopped
        await fd.settle_clicks()
        fd.assert_clean()
    finally:
        await fd.close()


def _seen(fd: FakeDiscord) -> tuple[list[str], list[dict[str, Any]]]:
    texts, emojis = [], []
    for m in fd.messages.values():
        for v in m.versions:
            texts.append(v.text)
            for row in v.components:
                for c in row.get("components") or []:
                    found = [c.get("emoji")] + [o.get("emoji") for o in c.get("options") or []]
                    emojis += [e for e in found if e and e.get("id")]  # custom ones, not 🃏
    return texts, emojis


async def _play_until_a_trick(w: World, game: str = "tricks") -> None:
    table_message = await open_table(w.ali, [], game=game)

    def trick_shown() -> bool:
        return "Last trick" in table_message.text or "On the table" in table_message.text

    await play_seat(w.ali, table_message, rng=random.Random(3), over=trick_shown, timeout=30)


async def test_a_table_shows_its_cards_as_emoji() -> None:
    async with make_world() as w:
        assert await asyncio.wait_for(w.bot.emoji_task, UPLOAD_WITHIN) == "ready"
        await _play_until_a_trick(w)
        texts, used = _seen(w.fd)
        ids = {e["id"] for e in w.fd.app_emojis.values()}
        # The fake refuses unknown emoji (a problem at the world's close): these are ours.
        assert used and all(str(e["id"]) in ids for e in used)
        assert any("**On the table:** " in t and "<:dk_" in t for t in texts) or any(
            "Last trick (<:dk_" in t for t in texts)


async def test_refused_emoji_leave_the_text_as_it_was() -> None:
    async with make_world() as w:
        w.fd.emoji_refusal = (403, 50013, "Missing Permissions")
        # The sync may have listed before the switch: restart it against the refusing Discord.
        w.bot.emoji_task.cancel()
        state = await emoji.sync_card_emoji(w.bot)
        assert state == "refused" and emoji.card_emoji("QS") is None
        await _play_until_a_trick(w)
        texts, used = _seen(w.fd)
        assert not used
        assert not any("<:dk_" in t for t in texts)
        assert any("On the table" in t or "Last trick" in t for t in texts)


# ---- the private hand line and Siege's piles, emoji ready and refused ------------------------------
MARK = r"<:dk_[a-z0-9]+_[0-9a-f]{6}:\d+>"
LABEL = r"(?:(?:10|[2-9AJQK])[♣♦♥♠]|blank (?:10|[2-9AJQ]))"
BLANKS = r"blanks? (?:10|[2-9AJQ])(?: (?:10|[2-9AJQ]))*"  # Siege's blanks in a hand line: "blanks 3 8"
# A hand line as each game draws it, with emoji and as text (the text is today's, unchanged).
HAND_LINE = {
    "hearts": (rf"^{MARK}(?: {MARK})*$", rf"^{LABEL}(?: {LABEL})*$"),
    "dalmuti": (rf"^{MARK} ×\d+(?: · {MARK} ×\d+)*$", r"^(?:\d+|Jester) ×\d+(?: · (?:\d+|Jester) ×\d+)*$"),
    "siege": (rf"^{MARK}(?: {MARK})*(?: · {MARK}(?: {MARK})*)*$",
              rf"^(?:{LABEL}(?: {LABEL})*|{BLANKS})(?: · (?:{LABEL}(?: {LABEL})*|{BLANKS}))*$"),
    # by effective suit, trumps first — and looked at once the whole hand of 20 is dealt (below)
    "koth": (rf"^\*\*[^*]+\*\* \(\d+\): {MARK}(?: {MARK})*$", r"^\*\*[^*]+\*\* \(\d+\): [^<]+$"),
}
WHOLE_KOTH_HAND = re.compile(r"^(?:2\d) cards, trumps first:$", re.M)
# King of the Hill deals its 100 cards live: its table's timers 40 times faster (tests/e2e/test_every_game.py).
TABLE_PACE = 0.025
PILE = (rf"[①②③] (?:Queen|Jack|Ace) {MARK}: ", rf"[①②③] (?:Queen|Jack|Ace) {LABEL}: ")


def _hand_views(fd: FakeDiscord, user_id: int) -> list[str]:
    return [v.text for m in fd.messages.values() if m.ephemeral_to == user_id for v in m.versions
            if "**Your hand**" in v.text]


async def _refuse(w: World) -> None:
    w.fd.emoji_refusal = (403, 50013, "Missing Permissions")
    w.bot.emoji_task.cancel()
    assert await emoji.sync_card_emoji(w.bot) == "refused" and emoji.card_emoji("QS") is None


@pytest.mark.parametrize("shown", ["emoji", "text"])
@pytest.mark.parametrize("game", ["hearts", "dalmuti", "siege", "koth"])
async def test_the_hand_line_and_siege_piles(game: str, shown: str) -> None:
    want = 0 if shown == "emoji" else 1
    async with make_world(runtime_options={"table_pace": TABLE_PACE}) as w:
        if shown == "emoji":
            assert await asyncio.wait_for(w.bot.emoji_task, UPLOAD_WITHIN) == "ready"
        else:
            await _refuse(w)
        table_message = await open_table(w.ali, [], game=game)
        hand_line = re.compile(HAND_LINE[game][want], re.M)
        pile = re.compile(PILE[want])

        def seen() -> bool:
            hands = any(hand_line.search(t) and (game != "koth" or WHOLE_KOTH_HAND.search(t))
                        for t in _hand_views(w.fd, w.ali.id))
            return hands and (game != "siege" or bool(pile.search(table_message.text)))

        await play_seat(w.ali, table_message, rng=random.Random(5), over=seen, timeout=40)
        texts, used = _seen(w.fd)
        if shown == "emoji":
            # Every markup is one of ours, whole; the public table's emoji name only public cards
            # (the world's privacy check reads a card's emoji like its label).
            ids = {e["id"] for e in w.fd.app_emojis.values()}
            assert all(i in ids for t in texts for i in re.findall(r"<:\w+:(\d+)>", t))
            assert all(t.count("<:") == len(re.findall(MARK, t)) for t in texts)
        else:
            assert not used and not any("<:" in t for t in texts)

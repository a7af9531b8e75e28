"""Each person reads their own answers in their client's language (issue 31, slice 1): through the
real bot and the fake Discord, which sends each member's ``locale`` and the server's
``guild_locale`` on every interaction.  A German and a French player in the same server ask for
``/game rules``, **How to play** and a hand they do not have: each reads German or French."""

from __future__ import annotations

from tests.e2e.conftest import RestartWorld, World
from tests.fakediscord.play import table_id_of


async def test_each_person_reads_rules_help_and_refusals_in_their_own_language(w: World) -> None:
    w.fd.guild_locale = "pl"  # the server's language is neither's: what one person reads follows them
    w.fd.members[w.ali.id].locale = "de"
    w.fd.members[w.bob.id].locale = "fr"

    german = await w.ali.slash("game rules", game="dalmuti")
    french = await w.bob.slash("game rules", game="dalmuti")
    assert german.ephemeral and french.ephemeral
    assert "Der Große Dalmuti — 4–8 Spieler" in german.text, german.text
    assert "Was der Gastgeber ändern kann" in german.text and "So stellt man es ein" in german.text
    assert "Le Grand Dalmuti — 4 à 8 joueurs" in french.text, french.text
    assert "Ce que l'hôte peut changer" in french.text
    assert "Steuern: Der Große Bauer gibt seine 2 besten Karten" in german.text  # the rules themselves
    assert "Impôts : le Grand Péon donne ses 2 meilleures cartes" in french.text
    assert "What the host can change" not in german.text + french.text

    # A refusal: neither is seated anywhere.
    german = await w.ali.slash("hand")
    french = await w.bob.slash("hand")
    assert german.ephemeral and french.ephemeral
    assert german.text.startswith("Du sitzt auf diesem Server an keinem Tisch."), german.text
    assert french.text.startswith("Tu n'es assis à aucune table sur ce serveur."), french.text

    # How to play, on the lobby the German player opened: each reads the quick start in their language.
    lobby = (await w.ali.slash("game new", game="tricks")).message
    assert w.table(lobby).locale == "pl"  # what the whole table reads: the server's, buttons included
    assert "Jak grać" in [b.get("label") for b in lobby.buttons()]
    german = await w.ali.click(lobby, "Jak grać")
    french = await w.bob.click(lobby, "Jak grać")
    assert german.text.startswith("**So spielt man Stiche**\nZiel: Stiche machen"), german.text
    assert "Es gibt keinen Trumpf." in german.text
    assert french.text.startswith("**Comment jouer à Plis**\nBut : faire des plis"), french.text
    assert "Il n'y a pas d'atout." in french.text
    # A refusal naming a game names it in the refusal's language.
    again = await w.ali.slash("game new", game="hearts")
    assert again.text.startswith("Du sitzt schon am Tisch `") and "(Stiche); verlasse ihn zuerst" in again.text, \
        again.text

    # A client in a language Deckhand does not speak, or a regional one, falls back as promised.
    w.fd.members[w.stranger.id].locale = "ko"
    korean = await w.stranger.slash("hand")
    assert korean.text.startswith("You are not seated at a table in this server."), korean.text
    w.fd.members[w.stranger.id].locale = "es-419"
    latin = await w.stranger.slash("hand")
    assert latin.text.startswith("No estás sentado en ninguna mesa de este servidor."), latin.text


async def test_a_server_manager_chooses_the_language_of_the_servers_tables(w: World) -> None:
    """``/game language`` (Manage Server only): new tables read the chosen language, a table already
    open keeps its own; ``/game new … language:`` opens one in another; the refusal and every answer
    are in the asker's language."""
    w.fd.guild_locale = "de"
    w.fd.members[w.ali.id].locale = "fr"
    w.fd.members[w.bob.id].locale = "ja"
    w.fd.members[w.bob.id].manage_guild = True

    # Anyone may ask what new tables read; only a server manager may change it (refused in French).
    asked = await w.ali.slash("game language")
    assert asked.ephemeral and "langue Discord du serveur (allemand)" in asked.text, asked.text
    refused = await w.ali.slash("game language", language="pl")
    assert refused.ephemeral
    assert refused.text == ("Seul un membre ayant la permission « Gérer le serveur » peut choisir la langue "
                            "des tables de ce serveur."), refused.text

    before = (await w.stranger.slash("game new", game="tricks")).message
    assert w.table(before).locale == "de"  # the server's Discord language: nothing chosen yet
    chosen = await w.bob.slash("game language", language="pl")
    assert chosen.ephemeral and "ポーランド語" in chosen.text, chosen.text  # said in the manager's Japanese
    assert (await w.bob.slash("game language")).text.startswith("このサーバーの新しいテーブルはポーランド語で")
    polish = (await w.ali.slash("game new", game="hearts")).message
    assert w.table(polish).locale == "pl"
    assert w.table(before).locale == "de"  # a table already open keeps its own

    # /game new … language: opens one table in another language.
    await w.ali.slash("game end")
    japanese = (await w.ali.slash("game new", game="hearts", language="ja")).message
    assert w.table(japanese).locale == "ja"

    # Back to the server's Discord language.
    back = await w.bob.slash("game language", language="server")
    assert "ドイツ語" in back.text, back.text
    await w.ali.slash("game end")
    assert w.table((await w.ali.slash("game new", game="hearts")).message).locale == "de"


async def test_the_servers_language_is_kept_across_a_restart(rw: RestartWorld) -> None:
    rw.fd.members[rw.ali.id].manage_guild = True
    await rw.ali.slash("game language", language="es")
    await rw.restart_bot(kill=False)
    lobby = (await rw.bob.slash("game new", game="hearts")).message
    assert rw.row(table_id_of(lobby))["locale"] == "es"


async def test_a_refused_move_reads_in_the_language_of_who_tried_it(w: World) -> None:
    """The rules' own refusals (issue 31): at a German server's Tricks table, a French and a Japanese
    player each read why a move is refused in their own language, cards as their deck names them — and
    the line of their hand view that says why some cards cannot be played."""
    from engine.cards import card
    from tests.e2e.test_refusals_games import _tricks_lead, moved
    from tests.fakediscord.play import open_table

    w.fd.guild_locale = "de"
    w.fd.members[w.ali.id].locale = "fr"
    w.fd.members[w.bob.id].locale = "ja"
    table_message = await open_table(w.ali, [w.bob], game="tricks", options="target=25", ai=False)
    table = w.table(table_message)
    where = w.thread_of(table_message)
    await w.until(lambda: table.to_act() == (0,), what="Ali to lead")
    bobs = table.state.view(1)["hand"][0]

    french = await w.ali.slash("play", cards=bobs, where=where)
    assert french.ephemeral and f"{card(bobs).label} n'est pas dans ta main." in french.text, french.text
    french = await w.ali.slash("play", cards="banana", where=where)
    assert "Je ne reconnais pas 'banana' comme une carte" in french.text, french.text

    lead, off_suit = _tricks_lead(table)
    await moved(w.ali, where, lead)
    await w.until(lambda: table.to_act() == (1,), what="Bob to follow")
    must_follow = f"マストフォローです（リードは{card(lead).label}）。"
    japanese = await w.bob.slash("play", cards=off_suit, where=where)
    assert japanese.ephemeral and must_follow in japanese.text, japanese.text
    hand = await w.bob.slash("hand", where=where)
    assert f"🚫 {must_follow}" in hand.text, hand.text
    assert "follow suit" not in japanese.text + hand.text and "in your hand" not in french.text

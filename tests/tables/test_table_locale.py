"""The language a whole table reads (issue 31): the server's when the table was opened, stored
(migration 0011_table_locale) so a restart keeps it, and handed on to a rematch."""

from __future__ import annotations

from tables import Phase

from .conftest import GUILD, HOST, new_table, run_until

GUEST = 200


async def test_the_tables_language_is_kept_across_a_restart(make_runtime, store):
    rt = make_runtime(storage=await store.open())
    german = await new_table(rt, locale="de")
    plain = await new_table(rt, host=GUEST, name="Bo")
    assert (german.locale, plain.locale) == ("de", "en")
    await rt.close()
    rt2 = make_runtime(storage=await store.open())
    await rt2.recover()
    assert rt2.get(german.id).locale == "de"
    assert rt2.get(plain.id).locale == "en"


async def test_a_rematch_reads_the_language_of_the_table_it_follows(make_runtime, clock):
    rt = make_runtime()
    old = await new_table(rt, locale="pt_BR")
    await rt.join(old.id, GUEST, "Bo")
    await rt.start(old.id, HOST)
    await rt.leave(old.id, HOST)
    await rt.leave(old.id, GUEST)
    await run_until(clock, lambda: old.phase == Phase.FINISHED)
    new = await rt.rematch(old.id, GUEST, "Bo", guild_id=GUILD, channel_id=old.channel_id)
    assert new.table.locale == "pt_BR"

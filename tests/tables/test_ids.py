import random

from tables.ids import ALPHABET, new_id, normalise


def test_alphabet_has_no_lookalikes():
    assert not set("0O1IL") & set(ALPHABET)
    assert len(set(ALPHABET)) == len(ALPHABET)


def test_ids_are_six_characters_of_the_alphabet():
    rng = random.Random(3)
    for _ in range(200):
        i = new_id(rng, set())
        assert len(i) == 6
        assert set(i) <= set(ALPHABET)


def test_new_id_avoids_taken_ids():
    first = new_id(random.Random(11), set())
    again = new_id(random.Random(11), {first})  # the same generator would give `first` again
    assert again != first
    taken: set[str] = set()
    rng = random.Random(12)
    for _ in range(500):
        i = new_id(rng, taken)
        assert i not in taken
        taken.add(i)


def test_normalise_reads_ids_as_people_type_them():
    assert normalise(" #ab c23 ") == "ABC23"
    assert normalise("`xyz789`") == "XYZ789"


async def test_new_tables_take_their_seeds_and_ids_from_secrets(monkeypatch):
    """A seed is printed in every replay: it must not follow from the process's ``random`` state.
    The global generator seeded the same way twice, and every ``random.Random`` made to answer the
    same numbers, still give two tables different ids and different seeds."""
    from tables import FakeClock, Runtime

    monkeypatch.setattr(random.Random, "getrandbits", lambda self, k: 0)
    monkeypatch.setattr(random.Random, "random", lambda self: 0.0)
    made = []
    for _ in range(2):
        random.seed(2029)
        rt = Runtime(clock=FakeClock(), ai_delay=0)  # no generator injected: the bot's own default
        try:
            t = await rt.create(game="hearts", guild_id=1, channel_id=10, host_id=100, host_name="Ann")
            await rt.add_ai(t.id, 100)
            await rt.start(t.id, 100)
            assert t.seed is not None and 0 <= t.seed < 2**63
            made.append((t.id, t.seed))
        finally:
            await rt.close()
    (id1, seed1), (id2, seed2) = made
    assert id1 != id2
    assert seed1 != seed2


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

"""A dict restored from a snapshot reads exactly like the dict it was made from."""

from __future__ import annotations

import copy

from diceledger.domain.session.restored import Restored


def restored() -> Restored[int, list[int]]:
    return Restored([(3, "3"), (1, "1"), (2, "2")], lambda text: [int(text)])


def test_reading_one_key_decodes_that_value_alone_and_keeps_it() -> None:
    values = restored()
    first = values[1]
    assert first == [1] and values[1] is first
    assert values.encoded(1) is None and values.encoded(2) == "2"
    assert values.get(2) == [2] and values.get(9) is None and values.get(9, [0]) == [0]


def test_every_walk_over_the_values_sees_them_decoded_in_their_order() -> None:
    plain = {3: [3], 1: [1], 2: [2]}
    assert list(restored()) == [3, 1, 2]
    assert list(restored().values()) == list(plain.values())
    assert list(restored().items()) == list(plain.items())
    assert restored() == plain and plain == restored() and restored() == restored()
    assert restored().copy() == plain and type(restored().copy()) is dict
    assert copy.deepcopy(restored()) == plain and type(copy.deepcopy(restored())) is dict
    assert repr(restored()) == repr(plain)


def test_writing_a_key_keeps_its_place() -> None:
    values = restored()
    values[1] = [10]
    values[4] = [4]
    assert list(values.items()) == [(3, [3]), (1, [10]), (2, [2]), (4, [4])]
    assert values.pop(2) == [2] and 2 not in values

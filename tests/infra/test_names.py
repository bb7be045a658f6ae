"""Member names: normalised, and no two members that look alike (Unicode confusables)."""

from __future__ import annotations

import pytest

from diceledger.domain.dice.request import RollKind
from diceledger.domain.errors import CommandRefusedError, InvalidInputError
from diceledger.domain.session import commands as cmd
from diceledger.infra.access.names import looks_alike
from tests.infra.support import MemoryServices, memory_services


@pytest.mark.parametrize(
    ("name", "other"),
    [
        ("mir\u0430", "mira"),  # Cyrillic a
        ("\u03b1nn", "ann"),  # Greek alpha
        ("rnira", "mira"),  # r n reads as m
        ("Mira", "mira"),  # case alone
        ("Ian", "lan"),  # capital I and small l
        ("\uff4dira", "mira"),  # fullwidth m
    ],
)
def test_names_that_read_the_same_look_alike(name: str, other: str) -> None:
    assert looks_alike(name, other) and looks_alike(other, name)


@pytest.mark.parametrize(
    ("name", "other"), [("ann", "anne"), ("zoë", "zoe"), ("bob", "rob"), ("mira", "myra")]
)
def test_different_names_do_not_look_alike(name: str, other: str) -> None:
    assert not looks_alike(name, other)


@pytest.fixture
def table() -> tuple[MemoryServices, str]:
    services = memory_services()
    sid = services.sessions.start("Names", "gm").session_id
    services.sessions.execute(sid, "mira", cmd.JoinSession("mira"))
    return services, sid


@pytest.mark.parametrize(
    ("actor", "refusal"),
    [
        ("mira ", CommandRefusedError),  # the same name once trimmed: already in
        ("\uff4d\uff49\uff52\uff41", CommandRefusedError),  # fullwidth: NFKC makes it mira
        ("mir\u0430", InvalidInputError),  # Cyrillic a: looks like mira
        ("mi\u200bra", InvalidInputError),  # a zero-width space inside
        ("Mira", InvalidInputError),  # another case of the same name
    ],
    ids=["trailing space", "fullwidth", "cyrillic a", "zero-width space", "case"],
)
def test_the_four_miras_of_the_issue_are_one_member(
    table: tuple[MemoryServices, str], actor: str, refusal: type[Exception]
) -> None:
    services, sid = table
    version = services.store.current_version(sid)
    with pytest.raises(refusal):
        services.sessions.execute(sid, actor, cmd.JoinSession(actor))
    assert services.store.current_version(sid) == version
    assert list(services.sessions.load(sid).members) == ["gm", "mira"]


def test_acting_as_a_name_with_spaces_around_it_is_acting_as_the_member(
    table: tuple[MemoryServices, str],
) -> None:
    services, sid = table
    outcome = services.sessions.execute(sid, " mira ", cmd.RequestRoll(RollKind.EFFECT, "1d6"))
    assert outcome.state.rolls[1].request.roller == "mira"

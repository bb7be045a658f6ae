"""Each player's luck, check by check: the series adds up to the statistics' sums."""

from __future__ import annotations

from pathlib import Path

import pytest

from diceledger.domain.dice.request import RollKind, Target
from diceledger.domain.session import commands as cmd
from diceledger.domain.session.events import Amount, CheckSide
from diceledger.domain.session.modes import RollMode
from diceledger.infra.app.application import Application
from diceledger.infra.bootstrap import bootstrap


def check(
    faces: tuple[int, ...],
    target: int,
    advantage: tuple[Amount, ...] = (),
    blind: bool = False,
    on_behalf_of: str | None = None,
) -> cmd.RequestRoll:
    return cmd.RequestRoll(
        RollKind.CHECK,
        "1d20+1",
        target=Target(target),
        faces=faces,
        advantage=advantage,
        mode=RollMode.BLIND if blind else RollMode.PUBLIC,
        on_behalf_of=on_behalf_of,
    )


@pytest.fixture
def played(tmp_path: Path) -> tuple[Application, str]:
    app = bootstrap(f"sqlite:///{tmp_path / 'luck.sqlite'}")
    sid = app.start_session("gm", "Luck").session_id
    for name in ("ann", "bob"):
        app.join(name, sid, cmd.JoinSession(name))
    app.request_roll("ann", sid, check((12,), 10))  # 1: won
    app.request_roll("ann", sid, check((3, 4), 15, advantage=(Amount(1, "flank"),)))  # 2
    app.request_roll("bob", sid, check((19,), 18))  # 3
    app.request_roll("ann", sid, cmd.RequestRoll(RollKind.DAMAGE, "1d6", faces=(4,)))  # 4
    app.request_roll("gm", sid, check((5,), 12, blind=True, on_behalf_of="ann"))  # 5: hidden
    # bob types in his own die only (R6); ann's is the server's, and beats -23 whatever it shows.
    opposed = cmd.RequestOpposed(CheckSide("bob", "1d20n-30"), CheckSide("ann", "1d20"), faces=(7,))
    app.request_roll("bob", sid, opposed)  # 6: ann wins
    app.open_dispute("bob", sid, 3, "fell off")
    app.resolve_dispute("gm", sid, cmd.ResolveDispute(3, cmd.Ruling.VOIDED))  # 3 is void
    return app, sid


def test_the_series_adds_up_to_the_statistics_each_viewer_sees(
    played: tuple[Application, str],
) -> None:
    app, sid = played
    for viewer in ("ann", "gm"):
        series = app.luck(viewer, sid).series
        for report in app.statistics(viewer, sid).reports:
            steps, luck = series[report.player], report.groups["luck"]
            assert len(steps) == luck["rated"]
            assert sum(step.won for step in steps) == luck["observed"]
            assert sum(step.chance for step in steps) == pytest.approx(luck["expected"])


def test_checks_come_in_the_order_rolled_without_void_or_hidden_ones(
    played: tuple[Application, str],
) -> None:
    app, sid = played
    ann = app.luck("ann", sid).series
    assert [step.roll_id for step in ann["ann"]] == [1, 2, 6]
    assert [step.won for step in ann["ann"]] == [True, False, True]
    assert [step.roll_id for step in ann["bob"]] == [6]  # roll 3 was voided
    # Roll 5 is the GM's blind roll for ann: the GM sees it, yet it is not her luck.
    assert [step.roll_id for step in app.luck("gm", sid).series["ann"]] == [1, 2, 6]
    first = ann["ann"][0]
    assert first.chance == pytest.approx(12 / 20)  # 1d20+1 >= 10: faces 9 to 20

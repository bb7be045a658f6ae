"""A statistics report read back from its JSON is the report it was written from."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from diceledger.domain.errors import MalformedError
from diceledger.domain.projections.report import DieReport, PlayerReport
from diceledger.domain.projections.tidy import report_from_json, report_json

FIGURE = st.one_of(st.none(), st.integers(-(10**6), 10**6), st.floats(allow_nan=False))
FIGURES = st.dictionaries(st.sampled_from(["total", "made", "won", "luck"]), FIGURE)
DIE = st.integers(1, 100).flatmap(
    lambda sides: st.builds(
        DieReport,
        st.just(sides),
        st.tuples(*[st.integers(0, 50)] * sides),
        st.dictionaries(st.sampled_from(["rolls", "mean", "p_value"]), FIGURE),
    )
)


@given(
    groups=st.dictionaries(st.sampled_from(["rolls", "outcomes", "luck"]), FIGURES),
    dice=st.lists(DIE, max_size=4, unique_by=lambda die: die.sides),
)
def test_a_report_survives_its_json(
    groups: dict[str, dict[str, float | None]], dice: list[DieReport]
) -> None:
    report = PlayerReport(
        "tomb-of-ash-1", "ann", groups, tuple(sorted(dice, key=lambda d: d.sides))
    )
    assert report_from_json(report_json(report)) == report


def test_a_figure_that_is_no_number_is_refused() -> None:
    with pytest.raises(MalformedError):
        report_from_json({"session_id": "s", "player": "ann", "luck": {"luck": "lucky"}})

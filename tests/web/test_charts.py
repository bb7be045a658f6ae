"""Statistics charts: well-formed, described in words, escaped, and drawn to scale."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from diceledger.domain.projections.report import DieReport, derive
from diceledger.web.charts import (
    BAR_ROOM,
    BASELINE,
    PLOT_HEIGHT,
    LuckStep,
    PlayerTally,
    explosions_and_rerolls,
    face_histogram,
    luck_over_session,
)

NS = {"svg": "http://www.w3.org/2000/svg"}
EVIL = "<script>alert('x')</script> & \"co\""


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return root


def title_and_description(root: ET.Element) -> tuple[str, str]:
    """Return the texts the svg names as its accessible name, checking the references."""
    assert root.get("role") == "img"
    named = root.get("aria-labelledby", "").split()
    texts = {element.get("id"): "".join(element.itertext()) for element in root.iter()}
    title, description = (texts[identifier] for identifier in named)
    assert root.find("svg:title", NS) is not None and root.find("svg:desc", NS) is not None
    return title, description


def shown_text(root: ET.Element) -> list[str]:
    return ["".join(node.itertext()) for node in root.iter("{http://www.w3.org/2000/svg}text")]


def d4(*faces: int) -> DieReport:
    return DieReport(4, faces, {"p_value": 0.5, "too_few": 0})


def test_face_bars_are_drawn_to_scale_against_the_fair_line() -> None:
    root = parse(face_histogram("ann", d4(2, 4, 8, 6)))
    bars = {
        int(r.get("data-face", 0)): float(r.get("height", -1))
        for r in root.iter(f"{{{NS['svg']}}}rect")
    }
    # 20 rolls: a fair d4 shows each face 5 times; the tallest bar, 8, fills the plot.
    assert bars == {1: 50, 2: 100, 3: 200, 4: 150}
    dashed = [line for line in root.iter(f"{{{NS['svg']}}}line") if line.get("stroke-dasharray")]
    assert len(dashed) == 1
    assert float(dashed[0].get("y1", 0)) == BASELINE - 5 / 8 * PLOT_HEIGHT


def test_a_histogram_says_in_words_what_it_shows() -> None:
    root = parse(face_histogram("ann", d4(2, 4, 8, 6)))
    title, description = title_and_description(root)
    assert title == "ann: d4 faces against a fair die"
    assert "20 dice of a d4" in description and "face 3: 8" in description
    assert "Chi-square test p = 0.500." in description
    words = shown_text(root)
    assert {"1", "2", "3", "4", "8", "6"} <= set(words)
    # Which die, counted in dice (a roll of 3d6 is three), the fair line in plain words.
    assert "d4: 20 dice · chi-square test p = 0.500" in words
    assert "dashed line: a fair d4 would show each face 5.0 times" in words
    one = shown_text(parse(face_histogram("ann", d4(1, 0, 0, 0))))
    assert "d4: 1 die · chi-square test p = 0.500" in one


def test_too_few_rolls_are_not_judged() -> None:
    root = parse(face_histogram("ann", DieReport(20, (1,) * 20, {"p_value": 1.0, "too_few": 1})))
    assert "Too few rolls to judge fairness yet." in title_and_description(root)[1]


def test_a_hostile_name_is_shown_as_text_never_as_markup() -> None:
    charts = [
        face_histogram(EVIL, d4(1, 1, 1, 1)),
        luck_over_session(EVIL, [LuckStep(1, 0.5, True)]),
        explosions_and_rerolls([PlayerTally(EVIL, 1, 2)]),
    ]
    for svg in charts:
        assert "<script" not in svg
        root = parse(svg)
        title, description = title_and_description(root)
        assert EVIL in title + description
    assert EVIL in shown_text(parse(charts[2]))


def test_control_characters_cannot_break_the_document() -> None:
    root = parse(luck_over_session("ann\x00\x1b", []))
    assert title_and_description(root)[0] == "ann\ufffd\ufffd: luck over the session"


def points(root: ET.Element, series: str) -> list[tuple[float, float]]:
    line = next(p for p in root.iter(f"{{{NS['svg']}}}polyline") if p.get("data-series") == series)
    pairs = (point.split(",") for point in line.get("points", "").split())
    return [(float(x), float(y)) for x, y in pairs]


def test_luck_follows_actual_and_expected_successes_check_by_check() -> None:
    steps = [
        LuckStep(1, 0.5, True),
        LuckStep(2, 0.5, False),
        LuckStep(4, 0.25, True),
        LuckStep(7, 0.75, True),
    ]
    root = parse(luck_over_session("bob", steps))
    actual, expected = points(root, "actual"), points(root, "expected")
    heights = [round(BASELINE - y, 2) for _, y in actual]
    # Three successes where two were expected; the scale runs to 3.
    assert heights == [0, round(PLOT_HEIGHT / 3, 2), round(PLOT_HEIGHT / 3, 2), 133.33, 200]
    assert round(BASELINE - expected[-1][1], 2) == 133.33
    assert [x for x, _ in actual] == [x for x, _ in expected]
    assert {"actual 3", "expected 2.0"} <= set(shown_text(root))
    title, description = title_and_description(root)
    assert title == "bob: luck over the session"
    assert description == (
        "After 4 rated checks, bob had 3 successes where 2.0 were expected: "
        "+1.0, luckier than expected."
    )


def test_actual_and_expected_differ_by_line_style_not_only_colour() -> None:
    root = parse(luck_over_session("bob", [LuckStep(1, 0.4, False)]))
    lines = {p.get("data-series"): p for p in root.iter(f"{{{NS['svg']}}}polyline")}
    assert lines["expected"].get("stroke-dasharray") and not lines["actual"].get("stroke-dasharray")
    assert "solid line: successes" in shown_text(root)
    assert "unluckier than expected" in title_and_description(root)[1]


def test_a_player_without_rated_checks_gets_an_empty_chart_that_says_so() -> None:
    root = parse(luck_over_session("cy", []))
    assert "no rated checks yet" in shown_text(root)
    assert "After 0 rated checks" in title_and_description(root)[1]


def test_explosion_and_reroll_bars_are_drawn_to_scale_and_labelled() -> None:
    root = parse(explosions_and_rerolls([PlayerTally("ann", 7, 3), PlayerTally("bob", 2, 0)]))
    bars = {
        (r.get("data-player"), r.get("data-metric")): r
        for r in root.iter(f"{{{NS['svg']}}}rect")
        if r.get("data-player")
    }
    widths = {key: float(bar.get("width", -1)) for key, bar in bars.items()}
    assert widths == pytest.approx(
        {
            ("ann", "explosions"): BAR_ROOM,
            ("ann", "rerolls"): 3 / 7 * BAR_ROOM,
            ("bob", "explosions"): 2 / 7 * BAR_ROOM,
            ("bob", "rerolls"): 0,
        },
        abs=0.01,
    )
    # Rerolls are hatched, explosions plain: the kinds differ by more than colour.
    assert bars[("ann", "rerolls")].get("fill", "").startswith("url(#")
    assert not bars[("ann", "explosions")].get("fill", "").startswith("url(")
    words = shown_text(root)
    assert words.count("explosions") == 2 and words.count("rerolls") == 2
    assert {"ann", "bob", "7", "3", "2", "0"} <= set(words)
    assert title_and_description(root)[1] == (
        "ann: 7 explosions, 3 rerolls. bob: 2 explosions, 0 rerolls."
    )


def test_a_tally_is_taken_from_the_statistics_report() -> None:
    report = derive("s", "ann", {"explosions": 4, "rerolls.spent": 2, "face.6.6": 4})
    assert PlayerTally.of(report) == PlayerTally("ann", 4, 2)


def test_two_charts_on_one_page_never_share_an_id() -> None:
    first = parse(face_histogram("ann", d4(1, 2, 3, 4)))
    second = parse(face_histogram("bob", d4(1, 2, 3, 4)))
    again = parse(face_histogram("ann", d4(4, 3, 2, 1)))
    ids = {node.get("id") for node in first.iter()} - {None}
    assert ids and not ids & {node.get("id") for node in second.iter()}
    assert first.get("id") == again.get("id")


def test_a_tiny_p_value_is_not_written_as_zero() -> None:
    root = parse(face_histogram("ann", DieReport(4, (0, 0, 0, 40), {"p_value": 1e-9})))
    assert "chi-square test p < 0.001" in " ".join(shown_text(root))

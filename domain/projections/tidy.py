"""Statistics reports as tidy rows (one figure per row, stable columns) and as JSON."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator

from diceledger.domain.errors import MalformedError
from diceledger.domain.json import JsonObject, JsonValue
from diceledger.domain.projections.report import DieReport, PlayerReport, Value

COLUMNS = ("session_id", "player", "group", "die", "face", "metric", "value")
# A campaign's CSV names, on each row, the player or the character the figure is of.
CAMPAIGN_COLUMNS = ("session_id", "player", "character", *COLUMNS[2:])


def tidy_rows(
    reports: Iterable[PlayerReport],
) -> Iterator[tuple[str, str, str, str, str, str, Value]]:
    """Yield one row per figure, in the order of ``COLUMNS``; die and face may be empty."""
    for report in reports:
        head = (report.session_id, report.player)
        for group, figures in report.groups.items():
            for metric, value in figures.items():
                yield (*head, group, "", "", metric, value)
        for die in report.dice:
            name = f"d{die.sides}"
            for metric, value in die.figures.items():
                yield (*head, "die", name, "", metric, value)
            for face, count in enumerate(die.faces, start=1):
                yield (*head, "face", name, str(face), "count", count)


def report_json(report: PlayerReport, of: str = "player") -> JsonObject:
    """Return one report as a JSON object: groups, then dice by size with their faces;
    ``of`` names whose figures they are (``player``, or ``character``)."""
    return {
        "session_id": report.session_id,
        of: report.player,
        **{name: {**figures} for name, figures in report.groups.items()},
        "dice": {
            f"d{die.sides}": {
                **die.figures,
                "faces": {str(face): count for face, count in enumerate(die.faces, start=1)},
            }
            for die in report.dice
        },
    }


def report_from_json(document: JsonObject) -> PlayerReport:
    """Return the report ``report_json`` made ``document`` from (a server's answer, read)."""
    groups: dict[str, dict[str, Value]] = {}
    dice: list[DieReport] = []
    for name, figures in document.items():
        if name == "dice" and isinstance(figures, dict):
            for size, die in sorted(figures.items(), key=lambda item: int(item[0][1:])):
                if not isinstance(die, dict) or not isinstance(die.get("faces"), dict):
                    raise MalformedError(f"die {size} of a report is not one")
                faces = die["faces"]
                assert isinstance(faces, dict)
                counts = tuple(int(str(faces[str(n)])) for n in range(1, len(faces) + 1))
                rest = {k: _value(v) for k, v in die.items() if k != "faces"}
                dice.append(DieReport(int(size[1:]), counts, rest))
        elif isinstance(figures, dict):
            groups[name] = {k: _value(v) for k, v in figures.items()}
    return PlayerReport(
        str(document.get("session_id")), str(document.get("player")), groups, tuple(dice)
    )


def _value(value: JsonValue) -> Value:
    if value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
        return value
    raise MalformedError(f"a statistics figure is a number or null, not {value!r}")


def tidy_csv(reports: Iterable[PlayerReport]) -> str:
    """Return the tidy CSV: a header, then one row per figure (empty cells for None)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in tidy_rows(reports):
        writer.writerow(["" if value is None else value for value in row])
    return buffer.getvalue()


def campaign_csv(players: Iterable[PlayerReport], characters: Iterable[PlayerReport]) -> str:
    """Return a campaign's tidy CSV: the players' rows (``character`` empty), then the
    characters' (``player`` empty)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CAMPAIGN_COLUMNS)
    for reports, place in ((players, 1), (characters, 2)):
        for session_id, name, *rest in tidy_rows(reports):
            named = [name, ""] if place == 1 else ["", name]
            writer.writerow(["" if v is None else v for v in (session_id, *named, *rest)])
    return buffer.getvalue()


def reports_json(reports: Iterable[PlayerReport], viewer: str) -> JsonObject:
    """Return the statistics document: the viewer, then one object per report."""
    return {"viewer": viewer, "reports": [report_json(r) for r in reports]}

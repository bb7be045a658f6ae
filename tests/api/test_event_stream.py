"""The live stream against a real uvicorn on 127.0.0.1: order, resumption, blind rolls, limits."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import jsonschema
import pytest

from diceledger.web.auth import cookie_name
from diceledger.web.context import Settings
from tests.api.live import (
    MOST_LINES,
    Client,
    Sse,
    SseReader,
    Table,
    ThreadServer,
    open_table,
    serve_in_thread,
)

CHECK = {"kind": "check", "expression": "1d20+5", "target": 15}
BLIND = {
    "kind": "check",
    "expression": "1d20+4",
    "target": 14,
    "blind": True,
    "for": "goblin",
    "label": "sneaks past",
}
QUICK = Settings(heartbeat_seconds=0.3)

Start = Callable[[Settings], tuple[Client, Table]]


@pytest.fixture
def start(sqlite_url: str) -> Iterator[Start]:
    """Start a server with the given settings and open a table on it; stop it afterwards."""
    servers: list[ThreadServer] = []
    clients: list[Client] = []

    def started(settings: Settings) -> tuple[Client, Table]:
        servers.append(serve_in_thread(sqlite_url, settings))
        clients.append(Client(servers[-1].url))
        return clients[-1], open_table(clients[-1])

    yield started
    for client in clients:
        client.close()
    for server in servers:
        server.stop()


@pytest.fixture
def served(start: Start) -> tuple[Client, Table]:
    return start(Settings(heartbeat_seconds=30.0))


def versions(events: list[Sse]) -> list[int]:
    return [event.version for event in events]


def replay_lines(client: Client, table: Table, token: str) -> list[dict[str, object]]:
    lines: list[dict[str, object]] = client.get(
        f"/api/v1/sessions/{table.sid}/replay", token
    ).json()["lines"]
    return lines


def test_a_client_sees_every_event_in_order_as_rolls_happen(
    served: tuple[Client, Table],
) -> None:
    client, table = served
    with client.stream(table.sid, table.ann) as stream:
        assert stream.response.status_code == 200
        assert stream.response.headers["content-type"] == "text/event-stream"
        opening = stream.next()
        assert opening is not None and opening.retry == "2000"
        seen = stream.events_through(client.head(table.sid, table.ann))
        rolled = [client.post(f"/api/v1/sessions/{table.sid}/rolls", who, CHECK) for who in
                  (table.ann, table.bob, table.gm)]  # fmt: skip
        assert [answer.status_code for answer in rolled] == [201, 201, 201]
        seen += stream.events_through(client.head(table.sid, table.ann))
    replayed = replay_lines(client, table, table.ann)
    assert versions(seen) == list(range(1, len(replayed) + 1))
    assert [event.json()["line"] for event in seen] == replayed
    assert [event.event for event in seen] == [line["event"] for line in replayed]
    last = seen[-1].json()
    assert last["line"]["event"] == "CheckResolved"
    # The stream shows the roll as its answer did; the answer also carries the checkpoint
    # the roll produced, which is the command's and not the roll's.
    answered = {k: v for k, v in rolled[-1].json().items() if k != "checkpoint"}
    assert last["roll"] == answered
    assert seen[0].json()["roll"] is None  # SessionStarted belongs to no roll


def blocks_through_checkpoint(stream: SseReader, size: int) -> list[Sse]:
    """Return the stream's blocks up to the checkpoint of ``size`` events (comments skipped)."""
    blocks: list[Sse] = []
    for _ in range(MOST_LINES):
        block = stream.next()
        assert block is not None, f"the stream ended before the checkpoint of {size}"
        if block.comments:
            continue
        blocks.append(block)
        if block.event == "checkpoint" and block.json()["size"] >= size:
            return blocks
    raise AssertionError(f"no checkpoint of {size} came within {MOST_LINES} blocks")


def test_each_new_signed_checkpoint_follows_the_events_it_covers(
    served: tuple[Client, Table],
) -> None:
    client, table = served
    rolls = f"/api/v1/sessions/{table.sid}/rolls"
    with client.stream(table.sid, table.ann) as stream:
        stream.next()  # retry
        blocks = blocks_through_checkpoint(stream, client.head(table.sid, table.ann))
        client.post(rolls, table.bob, CHECK)
        client.post(rolls, table.gm, CHECK)
        blocks += blocks_through_checkpoint(stream, client.head(table.sid, table.ann))
    latest = client.get(f"/api/v1/sessions/{table.sid}/checkpoint", table.ann).json()
    checkpoints = [block for block in blocks if block.event == "checkpoint"]
    assert checkpoints[-1].json() == {"size": latest["size"], "checkpoint": latest["checkpoint"]}
    assert all(block.id is None for block in checkpoints)  # a resume is by events only
    seen = 0
    for block in blocks:
        if block.id is not None:
            seen = block.version
        else:  # every event a checkpoint covers came before it
            assert block.json()["size"] <= seen
            assert block.json()["checkpoint"].splitlines()[1] == str(block.json()["size"])
    assert len({block.json()["checkpoint"] for block in checkpoints}) == len(checkpoints)


def test_a_players_stream_carries_the_checkpoints_of_a_hidden_blind_roll(
    served: tuple[Client, Table],
) -> None:
    client, table = served
    with client.stream(table.sid, table.ann) as stream:
        stream.next()  # retry
        blocks_through_checkpoint(stream, client.head(table.sid, table.gm))
        client.post(f"/api/v1/sessions/{table.sid}/rolls", table.gm, BLIND)
        head = client.head(table.sid, table.gm)
        blocks = blocks_through_checkpoint(stream, head)
    latest = client.get(f"/api/v1/sessions/{table.sid}/checkpoint", table.ann).json()
    assert blocks[-1].json() == {"size": head, "checkpoint": latest["checkpoint"]}
    assert all(block.json()["line"]["hidden"] for block in blocks if block.id is not None)


def test_reconnecting_with_last_event_id_resumes_without_loss_or_repetition(
    served: tuple[Client, Table],
) -> None:
    client, table = served
    rolls = f"/api/v1/sessions/{table.sid}/rolls"
    with client.stream(table.sid, table.ann) as stream:
        first = stream.events_through(client.head(table.sid, table.ann))
        client.post(rolls, table.ann, CHECK)
        first += stream.events_through(first[-1].version + 1)  # part of the roll only
    client.post(rolls, table.bob, CHECK)  # while disconnected
    with client.stream(table.sid, table.ann, last_event_id=first[-1].version) as stream:
        client.post(rolls, table.gm, CHECK)
        second = stream.events_through(client.head(table.sid, table.ann))
    assert versions(first + second) == list(range(1, second[-1].version + 1))


def test_a_first_connection_may_start_after_a_version_given_in_the_query(
    served: tuple[Client, Table],
) -> None:
    client, table = served
    client.post(f"/api/v1/sessions/{table.sid}/rolls", table.ann, CHECK)
    head = client.head(table.sid, table.ann)
    with client.stream(table.sid, table.ann, after=head - 2) as stream:
        assert versions(stream.events_through(head)) == [head - 1, head]
    # A reconnecting browser sends both; its Last-Event-ID is the newer word.
    with client.stream(table.sid, table.ann, last_event_id=head - 1, after=1) as stream:
        assert versions(stream.events_through(head)) == [head]


def test_a_player_sees_the_gm_roll_blind_and_no_dice_until_the_roll_is_revealed(
    served: tuple[Client, Table],
) -> None:
    client, table = served
    head = client.head(table.sid, table.gm)
    with client.stream(table.sid, table.ann) as player, client.stream(table.sid, table.gm) as gm:
        player.events_through(head)
        gm.events_through(head)
        blind = client.post(f"/api/v1/sessions/{table.sid}/rolls", table.gm, BLIND).json()
        roll_id = blind["roll_id"]
        head = client.head(table.sid, table.gm)
        hidden = player.events_through(head)
        shown = gm.events_through(head)
        revealed = client.post(f"/api/v1/sessions/{table.sid}/rolls/{roll_id}/reveal", table.gm)
        assert revealed.status_code == 200
        (reveal,) = player.events_through(head + 1)
    assert hidden[0].event == "RollRequested"
    assert hidden[0].json()["line"]["text"] == f"#{roll_id} the GM rolled blind"
    for event in hidden:
        assert event.json()["line"]["hidden"] is True
        assert event.json()["roll"] == {
            "session_id": table.sid,
            "roll_id": roll_id,
            "roller": "mira",
            "mode": "blind",
            "blind": True,
            "status": "hidden",
            "text": "the GM rolled blind",
        }
        assert "goblin" not in event.data and "sneaks past" not in event.data  # type: ignore[operator]
    # The player learns a roll happened, not what its dice did (an explosion, a reroll).
    assert [e.event for e in hidden] == ["RollRequested"] + ["Hidden"] * (len(hidden) - 1)
    assert len(shown) == len(hidden) and shown[-1].event == "CheckResolved"
    assert shown[-1].json()["roll"]["for"] == "goblin"
    assert reveal.event == "RollRevealed"
    as_player = client.get(f"/api/v1/sessions/{table.sid}/rolls/{roll_id}", table.ann).json()
    assert reveal.json()["roll"] == as_player
    assert as_player["label"] == "sneaks past" and as_player["dice"] == blind["dice"]


def test_a_quiet_stream_sends_a_heartbeat_and_goes_on(start: Start) -> None:
    client, table = start(QUICK)
    with client.stream(table.sid, table.ann) as stream:
        head = client.head(table.sid, table.ann)
        stream.events_through(head)
        assert stream.next_comment() == "heartbeat"
        client.post(f"/api/v1/sessions/{table.sid}/rolls", table.bob, CHECK)
        assert stream.events_through(head + 1)[-1].version == head + 1


def test_streams_past_the_limit_of_a_token_are_refused_with_429(start: Start) -> None:
    client, table = start(Settings(heartbeat_seconds=0.3, streams_per_token=2))
    with client.stream(table.sid, table.ann) as one, client.stream(table.sid, table.ann) as two:
        one.next(), two.next()
        with client.stream(table.sid, table.ann) as third:
            refused = third.response
            refused.read()
            assert refused.status_code == 429
            assert refused.headers["content-type"] == "application/problem+json"
            assert refused.headers["retry-after"].isdigit()
            assert "at most 2 live streams" in refused.json()["detail"]
        with client.stream(table.sid, table.bob) as bobs:
            assert bobs.response.status_code == 200
    # Both closed: the server notices the clients went, and frees their places.
    statuses = []
    for _ in range(100):
        with (
            client.stream(table.sid, table.ann) as again,
            client.stream(table.sid, table.ann) as also,
        ):
            statuses = [again.response.status_code, also.response.status_code]
        if statuses == [200, 200]:
            break
        time.sleep(0.05)
    assert statuses == [200, 200]


def second_device(client: Client, table: Table, token: str) -> str:
    """Sign the token's member in on a second browser by a sign-in link; return its token."""
    made = client.post(f"/api/v1/sessions/{table.sid}/sign-in-codes", token).json()
    path = made["sign_in_path"]
    page = client.http.get(path).text
    form_token = page.split('name="form_token" value="', 1)[1].split('"', 1)[0]
    signed_in = client.http.post(path, data={"form_token": form_token}, follow_redirects=False)
    assert signed_in.status_code == 303, signed_in.text
    device: str = signed_in.cookies[cookie_name(table.sid)]
    client.http.cookies.clear()
    return device


def test_the_stream_limit_counts_a_members_devices_together(start: Start) -> None:
    client, table = start(Settings(heartbeat_seconds=0.3, streams_per_token=1))
    phone = second_device(client, table, table.ann)
    with client.stream(table.sid, table.ann) as laptop:
        laptop.next()
        with client.stream(table.sid, phone) as second:
            assert second.response.status_code == 429  # read before the body: a 200 never ends
            second.response.read()
            assert "at most 1 live streams at once per member" in second.response.json()["detail"]


def test_the_stream_refuses_a_missing_bad_or_other_sessions_token(start: Start) -> None:
    client, table = start(QUICK)
    other = open_table(client)
    answers = {}
    for case, token in {"none": None, "bad": "dlt_" + "x" * 43, "other": other.ann}.items():
        with client.stream(table.sid, token) as stream:
            stream.response.read()
            answers[case] = stream.response.status_code
            assert stream.response.headers["content-type"] == "application/problem+json"
    assert answers == {"none": 401, "bad": 401, "other": 404}


def test_a_browser_streams_with_its_session_cookie(start: Start) -> None:
    client, table = start(QUICK)
    with client.stream(table.sid, table.ann, cookie=True) as stream:
        assert stream.response.status_code == 200
        assert stream.events_through(1)[0].event == "SessionStarted"


def test_a_stream_ends_once_its_token_is_revoked(start: Start) -> None:
    client, table = start(QUICK)
    with client.stream(table.sid, table.ann) as stream:
        stream.events_through(client.head(table.sid, table.ann))
        revoked = client.post(f"/api/v1/sessions/{table.sid}/members/ann/revoke", table.gm)
        assert revoked.status_code == 200
        assert stream.ended()


def test_a_last_event_id_that_is_not_a_version_is_refused(start: Start) -> None:
    client, table = start(QUICK)
    response = client.http.get(
        f"/api/v1/sessions/{table.sid}/events",
        headers={"Authorization": f"Bearer {table.ann}", "Last-Event-ID": "abc"},
    )
    assert response.status_code == 422
    assert "Last-Event-ID" in response.json()["detail"]


def test_each_event_and_checkpoint_fits_the_schema_the_document_gives_it(
    served: tuple[Client, Table],
) -> None:
    client, table = served
    document = client.get("/openapi.json", table.ann).json()
    components = {"components": document["components"]}
    rolls = f"/api/v1/sessions/{table.sid}/rolls"
    client.post(rolls, table.ann, CHECK)
    client.post(rolls, table.gm, BLIND)  # the player's stream carries it as a stub
    with client.stream(table.sid, table.ann) as stream:
        stream.next()  # retry
        blocks = blocks_through_checkpoint(stream, client.head(table.sid, table.ann))
    kinds = {"checkpoint": "LiveCheckpoint"}
    for block in blocks:
        schema = {"$ref": "#/components/schemas/" + kinds.get(block.event or "", "LiveEvent")}
        jsonschema.validate(block.json(), {**schema, **components})
    assert {block.event for block in blocks} >= {"CheckResolved", "checkpoint"}
    shown = [block.json().get("roll") or {} for block in blocks]
    assert "hidden" in {roll.get("status") for roll in shown}


@pytest.mark.parametrize(
    ("mode", "reads"),
    [("gm", "ann rolled privately"), ("self", "ann rolled for their own eyes")],
)
def test_a_private_roll_streams_in_full_only_to_its_audience(
    served: tuple[Client, Table], mode: str, reads: str
) -> None:
    client, table = served
    head = client.head(table.sid, table.gm)
    check = {**CHECK, "mode": mode, "faces": [11]}
    with client.stream(table.sid, table.ann) as ann, client.stream(table.sid, table.bob) as bob:
        ann.events_through(head)
        bob.events_through(head)
        made = client.post(f"/api/v1/sessions/{table.sid}/rolls", table.ann, check).json()
        head = client.head(table.sid, table.gm)
        mine, others = ann.events_through(head), bob.events_through(head)
    assert mine[0].json()["roll"]["total"] == 16 and made["total"] == 16
    assert others[0].json()["line"]["text"] == f"#{made['roll_id']} {reads}"
    assert all(e.json()["roll"]["status"] == "hidden" for e in others)
    assert all("1d20" not in e.data for e in others)  # type: ignore[operator]


def test_the_self_rolls_the_end_shows_stream_live_as_reveals(served: tuple[Client, Table]) -> None:
    client, table = served
    check = {**CHECK, "mode": "self", "label": "omen", "faces": [11]}
    made = client.post(f"/api/v1/sessions/{table.sid}/rolls", table.ann, check).json()
    head = client.head(table.sid, table.gm)
    with client.stream(table.sid, table.bob) as bob:
        bob.events_through(head)
        ended = client.post(f"/api/v1/sessions/{table.sid}/end", table.gm)
        assert ended.status_code == 200, ended.text
        head = client.head(table.sid, table.gm)
        events = bob.events_through(head)
        events += bob.events_through(head)  # the reveal follows the end, under its id
    assert [e.event for e in events][-2:] == ["SessionEnded", "RollRevealed"]
    shown = events[-1].json()["roll"]
    assert (shown["roll_id"], shown["label"], shown["total"]) == (made["roll_id"], "omen", 16)

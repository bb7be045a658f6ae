"""Signed logs over HTTP: the server's keys, checkpoints, Merkle proofs and roll receipts.

What a browser needs to keep a checkpoint and hold the server to it: the signed note as
text, and proofs as JSON with hashes in lowercase hex (docs/verification.md).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from starlette.responses import Response

from diceledger.web.answers import JSON, typed
from diceledger.web.auth import Member
from diceledger.web.context import Services
from diceledger.web.openapi import FAILS, INPUT, MEMBER, STORE, answers
from diceledger.web.responses import Consistency, Inclusion, Key, Keys, Receipt, SignedCheckpoint
from diceledger.web.schemas import AS_WRITTEN, RollId

router = APIRouter(tags=["proofs"])
SESSION = "/api/v1/sessions/{session_id}"
MEMBER_READ = answers(FAILS, STORE, MEMBER, INPUT)


@router.get("/api/v1/keys", response_model=Keys, responses=answers(FAILS))
def keys(web: Services) -> Response:
    """Return the server's verifier keys: the one signing now, and those retired (anyone).

    A retired key names its successor and carries its signed word for it (the rotation
    note), so a reader who trusted the old key can accept the new one.
    """
    found = web.app.proofs.keys()
    rotations = {rotation.retired.key: rotation for rotation in found.rotations}
    listed: list[Key] = []
    for key, now in [(found.current, True), *((k, False) for k in found.retired)]:
        shown = Key(verifier_key=str(key), name=key.name, key_id=key.key_id.hex(), current=now)
        rotation = rotations.get(key)
        if rotation is not None:  # only a retired key has these fields at all
            shown = shown.model_copy(
                update={"successor": str(rotation.successor), "rotation": rotation.endorsement}
            )
        listed.append(shown)
    return typed(Keys(keys=listed))


@router.get(SESSION + "/checkpoint", response_model=SignedCheckpoint, responses=MEMBER_READ)
def checkpoint(session_id: str, member: Member, web: Services) -> Response:
    """Return the session's latest signed checkpoint (members)."""
    result = web.app.proofs.checkpoint(session_id)
    signed = result.signed.checkpoint
    return typed(
        SignedCheckpoint(
            session_id=session_id,
            size=signed.size,
            root=signed.root.hex(),
            checkpoint=result.note,
            verifier_key=str(result.verifier_key),
        )
    )


@router.get(SESSION + "/proof/inclusion", response_model=Inclusion, responses=MEMBER_READ)
def inclusion(
    session_id: str,
    member: Member,
    web: Services,
    position: Annotated[int, Query(ge=1), AS_WRITTEN],
    size: Annotated[int | None, Query(ge=1), AS_WRITTEN] = None,
) -> Response:
    """Return the proof that the event at store ``position`` is in the signed tree (members)."""
    result = web.app.proofs.inclusion(session_id, position, size)
    proof = result.proof
    return typed(
        Inclusion(
            session_id=session_id,
            position=result.event.position,
            stream_version=result.event.stream_version,
            leaf_index=proof.index,
            tree_size=proof.size,
            leaf_hash=result.event.hash,
            proof=[value.hex() for value in proof.hashes],
            checkpoint=result.checkpoint,
        )
    )


@router.get(SESSION + "/proof/consistency", response_model=Consistency, responses=MEMBER_READ)
def consistency(
    session_id: str,
    member: Member,
    web: Services,
    old_size: Annotated[int, Query(alias="from", ge=0), AS_WRITTEN],
    new_size: Annotated[int | None, Query(alias="to", ge=0), AS_WRITTEN] = None,
) -> Response:
    """Return the proof that the tree of ``from`` events is a prefix of ``to`` (members).

    ``to`` defaults to the latest signed size; the answer carries that size's checkpoint.
    """
    result = web.app.proofs.consistency(session_id, old_size, new_size)
    proof = result.proof
    shown = {
        "session_id": session_id,
        "from": proof.old_size,  # a keyword in Python: given by its alias
        "to": proof.new_size,
        "proof": [value.hex() for value in proof.hashes],
        "checkpoint": result.checkpoint,
    }
    return typed(Consistency.model_validate(shown))


@router.get(SESSION + "/rolls/{roll_id}/receipt", response_model=Receipt, responses=MEMBER_READ)
def receipt(session_id: str, roll_id: RollId, member: Member, web: Services) -> Response:
    """Return a roll's receipt, checkable offline; a hidden blind roll's for a GM only."""
    made = web.app.proofs.receipt(member.member, session_id, roll_id)
    return Response(made.to_json(), media_type=JSON)

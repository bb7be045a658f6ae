"""A member's own devices: the live tokens they are signed in with, and signing one out."""

from __future__ import annotations

from fastapi import APIRouter, Path
from starlette.responses import Response

from diceledger.domain.hashchain import format_timestamp
from diceledger.infra.app.access import MOST_DEVICES
from diceledger.web.answers import typed
from diceledger.web.auth import Member
from diceledger.web.context import Services
from diceledger.web.openapi import BODY, COMMAND, FAILS, INPUT, MEMBER, STORE, answers
from diceledger.web.responses import Device, Devices, SignedOut

router = APIRouter(
    prefix="/api/v1/sessions/{session_id}/devices",
    tags=["members"],
    responses=answers(FAILS, STORE, MEMBER, INPUT),
)
DEVICE = Path(min_length=1, max_length=100)


@router.get("", response_model=Devices)
def devices(session_id: str, member: Member, web: Services) -> Response:
    """List the devices the caller is signed in on, oldest first (each a live token)."""
    listed = [
        Device(
            device_id=device.device_id,
            signed_in_at=format_timestamp(device.signed_in_at),
            this_device=device.this_device,
        )
        for device in web.access.devices(member)
    ]
    return typed(
        Devices(
            session_id=session_id, name=member.member, most_devices=MOST_DEVICES, devices=listed
        )
    )


@router.post("/{device_id}/sign-out", response_model=SignedOut, responses=answers(BODY, COMMAND))
def sign_out(session_id: str, member: Member, web: Services, device_id: str = DEVICE) -> Response:
    """Sign out one of the caller's devices; its token is refused from then on."""
    web.access.sign_out(member, device_id)
    return typed(SignedOut(session_id=session_id, device_id=device_id, signed_out=True))

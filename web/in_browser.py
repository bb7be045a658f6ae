"""The verify page's Python: ``diceledger verify --file`` run in the browser under Pyodide.

The page's worker (``static/verify-worker.js``) loads Pyodide from this server, unpacks the
modules ``web.verifier_bundle`` serves, writes the chosen export to Pyodide's file system
and calls the two functions here. They take and return JSON text, so nothing crosses
between JavaScript and Python but strings:

1. ``signatures_to_check(request)``: the Ed25519 checks the verdict may ask for, which
   the worker makes with WebCrypto (asynchronous, so it cannot be asked mid-verdict);
2. ``verify(path, request)``: the verdict, ``judge_bytes``'s, with the signatures that
   held; its JSON is that of ``diceledger verify --file --json``, or ``{"error": ...}``
   where the command stops with an error.

The request names the export's proof, the checkpoints the browser kept of this session,
the server keys it pinned (``Request``), and the signatures WebCrypto confirmed.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import msgspec

from diceledger.domain.audit import Claim
from diceledger.domain.errors import DiceledgerError
from diceledger.domain.export_proof import ExportProof
from diceledger.domain.signed_note import VerifierKey
from diceledger.infra.app.export_verdict import (
    SignatureRequest,
    judge_bytes,
    kept_claim,
    signature_requests,
)

# How the report names a checkpoint the page brought (the witness's, or a file chosen).
KEPT_HERE = "a kept checkpoint"


class Request(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """What the page brings to a verify besides the export itself."""

    proof: str | None = None  # the export's proof document (JSON), if the server gave one
    kept: tuple[str, ...] = ()  # checkpoints this browser kept of the session
    keys: tuple[str, ...] = ()  # server keys this browser pinned (verifier key form)
    # Signatures WebCrypto found valid: base64 of the public key, message and signature.
    signatures: tuple[tuple[str, str, str], ...] = ()


def signatures_to_check(request: str) -> str:
    """Return, as JSON, the [key, message, signature] (base64) checks the verdict may make."""
    try:
        asked = msgspec.json.decode(request, type=Request)
        proof, kept, known = _inputs(asked)
    except (DiceledgerError, msgspec.ValidationError, msgspec.DecodeError):
        return "[]"  # the verdict itself names what is wrong with them
    checks = signature_requests(proof, kept, known)
    return json.dumps([[_text(part) for part in check] for check in checks])


def verify(path: str, request: str) -> str:
    """Return the verdict on the export at ``path`` (Pyodide's file system) as JSON."""
    try:
        asked = msgspec.json.decode(request, type=Request)
        proven: set[SignatureRequest] = {
            (_bytes(key), _bytes(message), _bytes(signature))
            for key, message, signature in asked.signatures
        }
    except (msgspec.ValidationError, msgspec.DecodeError, ValueError) as error:
        return json.dumps({"error": f"the page's request is not understood: {error}"})
    try:
        proof, kept, known = _inputs(asked)
        verdict = judge_bytes(
            Path(path).read_bytes(),
            proof,
            kept,
            known,
            lambda key, message, signature: (key, message, signature) in proven,
        )
    except DiceledgerError as error:
        return json.dumps({"error": str(error)})
    return json.dumps(verdict.as_dict())


def _inputs(
    asked: Request,
) -> tuple[ExportProof | None, tuple[Claim, ...], tuple[VerifierKey, ...]]:
    proof = None if asked.proof is None else ExportProof.parse(asked.proof)
    kept = tuple(kept_claim(KEPT_HERE, text) for text in asked.kept)
    known = tuple(VerifierKey.parse(text) for text in asked.keys)
    return proof, kept, known


def _text(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _bytes(text: str) -> bytes:
    return base64.b64decode(text, validate=True)

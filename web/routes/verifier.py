"""The Python the verify page runs in the browser, zipped from this server's own package."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import Response

from diceledger.web.verifier_bundle import bundle

router = APIRouter(tags=["pages"], include_in_schema=False)
# Beside the page's scripts, so that the worker finds it as it finds them.
BUNDLE_PATH = "/static/diceledger-verify.zip"


@router.get(BUNDLE_PATH)
def verifier_bundle() -> Response:
    """Serve the modules of ``diceledger verify --file`` that the verify page runs."""
    return Response(bundle(), media_type="application/zip")

"""Errors on a page are pages: the same problem the API would answer, as readable HTML."""

from __future__ import annotations

from fastapi import Request
from starlette.responses import Response

from diceledger.domain.shown import shown
from diceledger.infra.app.access import UNUSABLE_CODE, UNUSABLE_SIGN_IN
from diceledger.web.problems import Problem
from diceledger.web.templating import render

NOT_PAGES = ("/api/", "/static/", "/healthz", "/openapi.json", "/discord/")

# Refusals a person meets by following a link, told in their words (error.html says what
# to do next) rather than with the API's title and detail.
TITLES = {
    UNUSABLE_CODE: "This invite link cannot be used again",
    UNUSABLE_SIGN_IN: "This sign-in link cannot be used again",
}
NOT_SIGNED_IN = "You are not signed in here"


def is_page(request: Request) -> bool:
    """Tell whether the request asked for a page (HTML) rather than the API or a file."""
    return not request.url.path.startswith(NOT_PAGES)


def error_page(request: Request, problem: Problem, detail: str) -> Response:
    """Return the page that tells a person what went wrong, with the problem's status.

    A browser that followed a link from another site to a session page arrives without
    its SameSite=Strict cookie; such a visit gets a page that reloads itself at once, a
    same-site request that carries the cookie.
    """
    cross_site = request.headers.get("sec-fetch-site") == "cross-site"
    if problem.status == 401 and cross_site and request.method == "GET":
        return render(request, "reload.html", {"session": None})
    if problem.status == 401:
        title = NOT_SIGNED_IN
    else:
        title = TITLES.get(detail, problem.title) if problem.status == 403 else problem.title
    context = {"session": None, "problem": problem, "detail": shown(detail), "title": title}
    return render(request, "error.html", context, problem.status)

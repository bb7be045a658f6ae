"""``diceledger join URL`` and ``logout URL``: become, and stop being, a server's client."""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

import click

from diceledger.cli.context import AppContext, json_option, pass_app
from diceledger.cli.output import emit_json, shown
from diceledger.cli.remote import RemoteError, Server
from diceledger.cli.tokens import Membership, origin_of
from diceledger.cli.witness import witness


def _invite(url: str) -> tuple[str, str]:
    """Return the server's origin and the code of an invite link ``.../join/CODE``."""
    origin = origin_of(url)
    head, _, code = urlsplit(url.strip()).path.rstrip("/").rpartition("/")
    if not head.endswith("/join") or not code:
        raise click.UsageError("not an invite link: give the URL the GM shared, .../join/CODE")
    return origin, unquote(code)


@click.command("join")
@click.argument("url", metavar="URL")
@click.option("--name", help="The name the table will know you by (default: --as).")
@click.option("--client-seed", default="", help="Words of your own mixed into your dice.")
@json_option
@pass_app
def join(app: AppContext, url: str, name: str | None, client_seed: str) -> None:
    """Join a server's session by its invite link; keep the token for `--server`.

    The token is kept in your config directory (readable by you alone) and never
    printed; session commands given `--server` (or DICELEDGER_SERVER) send it.

    INVITE below is the link the GM shared, e.g. https://dice.example/join/dli_...;
    then `diceledger --server https://dice.example check SESSION ...` rolls there.

    \b
    Example:
      diceledger join "$INVITE" --name cara
    """
    origin, code = _invite(url)
    server = Server(origin)
    body = {"invite_code": code, "name": name or app.actor, "client_seed": client_seed}
    answer = server.post("/api/v1/join", dict(body)).json()
    session_id, token = answer.get("session_id"), answer.get("player_token")
    if not isinstance(session_id, str) or not isinstance(token, str):
        raise RemoteError(f"{origin} answered the join without a session or a token")
    member = Membership(session_id, str(answer.get("name")), token)
    server.tokens.remember(origin, member)
    checkpoint = answer.get("checkpoint")
    client = AppContext(app.db_url, member.name, app.json, kept_in=app.kept_in, server=origin)
    witness(client, session_id, checkpoint if isinstance(checkpoint, str) else None)
    if app.json:
        emit_json(
            {
                "server": origin,
                "session_id": session_id,
                "name": member.name,
                "role": answer.get("role"),
                "token_file": str(server.tokens.path),
            }
        )
        return
    click.echo(f"joined {shown(session_id)} on {origin} as {shown(member.name)}")
    click.echo(f"your token is kept in {server.tokens.path}")
    click.echo(
        f"roll with: diceledger --server {origin} check {shown(session_id)} 1d20 --target 10"
    )


@click.command("logout")
@click.argument("url", metavar="URL")
@json_option
@pass_app
def logout(app: AppContext, url: str) -> None:
    """Sign this machine's devices out of a server and forget their tokens.

    Each kept token is signed out on the server first (it answers 401 from then on); a
    server that cannot be reached is named, and its tokens are forgotten all the same.

    \b
    Example:
      diceledger logout https://dice.example
    """
    origin = origin_of(url)
    server = Server(origin)
    done = [(member, _sign_out(server, member)) for member in server.tokens.sessions(origin)]
    server.tokens.forget(origin)
    if app.json:
        forgotten = [
            {"session_id": m.session_id, "name": m.name, "signed_out": failure is None}
            for m, failure in done
        ]
        emit_json({"server": origin, "forgotten": forgotten})
        return
    if not done:
        click.echo(f"no token kept for {origin}; nothing to forget")
    for member, failure in done:
        where = f"{shown(member.name)} in {shown(member.session_id)} on {origin}"
        if failure is None:
            click.echo(f"signed out and forgot the token of {where}")
        else:
            click.echo(f"forgot the token of {where} (not signed out there: {shown(failure)})")


def _sign_out(server: Server, member: Membership) -> str | None:
    """Sign ``member``'s device out on the server; return why not, or None when done."""
    try:
        path = server.session_path(member.session_id, "/devices")
        listed = server.get(path, member.session_id).json().get("devices")
        mine = [
            d.get("device_id")
            for d in (listed if isinstance(listed, list) else [])
            if isinstance(d, dict) and d.get("this_device") is True
        ]
        if not mine:
            return "the server lists no device of this token"
        out = server.session_path(member.session_id, f"/devices/{mine[0]}/sign-out")
        server.post(out, None, member.session_id)
    except RemoteError as error:
        return error.message
    return None

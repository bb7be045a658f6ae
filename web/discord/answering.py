"""Answer within Discord's three seconds, once per interaction, and follow up afterwards.

Discord waits three seconds for the first reply to an interaction. The action runs in a
worker thread; if it has answered within ``defer_after`` seconds its reply goes back at
once, otherwise Discord is told to wait (a deferred reply: "diceledger is thinking") and a
background task edits that reply when the action is done. Follow-up messages (the public
notice of a blind roll) are posted by a background task too: both use the interaction's
own token through Discord's webhook API, the only calls the server makes to Discord.

Discord may deliver an interaction twice. Its id is the idempotency key: the second
delivery is answered with the first reply and rolls nothing (nor posts its follow-ups
again). A refusal is a reply like any other; an action that failed unexpectedly leaves the
key claimed, so a redelivery is told it is still in progress rather than run again.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse

from diceledger.domain.errors import DiceledgerError
from diceledger.infra.app.discord_calls import DiscordCalls
from diceledger.infra.app.idempotency import Answer, IdempotentRequests
from diceledger.web.discord.actions import (
    DICE_ANSWERS,
    SECRET_ANSWERS,
    TableActions,
    private_answer,
)
from diceledger.web.discord.markdown import clip, escape
from diceledger.web.discord.payload import Interaction, InteractionType
from diceledger.web.discord.replies import Reply, deferred, private
from diceledger.web.limits import Limits, RateLimitedError
from diceledger.web.problems import problem_for

LOG = logging.getLogger("diceledger.discord")
SCOPE = "discord"  # idempotency scope of interaction ids
DEFAULT_DEFER_AFTER = 2.0  # seconds; Discord gives up after three
ERROR_TEXT = 1800
DEFAULT_ROLLS_PER_MINUTE = 120  # per Discord user, as the API allows per token


@dataclass(frozen=True, slots=True)
class Outcome:
    """An interaction's reply, and whether its follow-ups are still to be posted."""

    reply: Reply
    fresh: bool  # False for a redelivery answered from the kept reply


class Answerer:
    """Run each interaction's action once, in time, and deliver what follows it."""

    def __init__(
        self,
        actions: TableActions,
        requests: IdempotentRequests,
        api: DiscordCalls,
        defer_after: float = DEFAULT_DEFER_AFTER,
        rolls_per_minute: int = DEFAULT_ROLLS_PER_MINUTE,
        limits: Limits | None = None,
    ) -> None:
        """``defer_after`` 0 defers every interaction (tests of the deferred path)."""
        self._actions = actions
        self._requests = requests
        self._api = api
        self._defer_after = defer_after
        self._rolls_per_minute = rolls_per_minute
        self._limits = limits or Limits()

    async def respond(self, interaction: Interaction) -> JSONResponse:
        """Return the first reply: the answer if it came in time, else a deferred one."""
        loop = asyncio.get_running_loop()
        work = loop.run_in_executor(None, self.answer, interaction)
        if self._defer_after > 0:
            done, _ = await asyncio.wait({work}, timeout=self._defer_after)
            if done:
                outcome = work.result()
                follow = BackgroundTask(self._follow_up, interaction, outcome)
                return JSONResponse(outcome.reply.response(), background=follow)
        waiting = deferred(private_answer(interaction), _is_button(interaction))
        later = BackgroundTask(self._finish_deferred, interaction, work)
        return JSONResponse(waiting, background=later)

    def answer(self, interaction: Interaction) -> Outcome:
        """Return the interaction's reply, running its action at most once per id."""
        kept = interaction.subcommand not in SECRET_ANSWERS
        key = interaction.interaction_id
        replies: list[Reply] = []

        def work() -> Answer:
            replies.append(self._run(interaction))
            return Answer(200, replies[-1].stored())

        try:
            if not kept:
                return Outcome(self._run(interaction), fresh=True)
            # The action's writes and the kept reply commit together: a redelivery after a
            # crash either gets the reply or runs the action afresh.
            answer, replayed = self._requests.run(
                SCOPE, key, interaction.fingerprint.encode(), work
            )
        except Exception as error:
            if isinstance(error, DiceledgerError) and problem_for(error).status < 500:
                return Outcome(refusal(error), fresh=False)  # a bad key: nothing ran
            # Undone with its transaction: a redelivery runs the action afresh.
            LOG.error("interaction %s failed: %s", key, error, exc_info=True)
            return Outcome(private("The server failed to answer; nothing more is said."), False)
        if replayed:
            return Outcome(Reply.from_stored(answer.body), fresh=False)
        return Outcome(replies[-1], fresh=True)

    def _run(self, interaction: Interaction) -> Reply:
        try:
            self._count_dice(interaction)
            return self._actions.run(interaction)
        except RateLimitedError as error:
            return refusal(error)  # kept: a redelivery is told the same, and rolls nothing
        except DiceledgerError as error:
            if problem_for(error).status >= 500:
                raise  # the store or the dice failed: not an answer to keep
            return refusal(error)  # refused before anything was appended

    def _count_dice(self, interaction: Interaction) -> None:
        """Count an interaction that draws dice against its user's limit, or refuse it.

        Only interactions seen for the first time get here, so a redelivery is not counted.
        """
        if _is_button(interaction) or interaction.subcommand in DICE_ANSWERS:
            key = f"discord-rolls:{interaction.user.user_id}"
            self._limits.use(key, self._rolls_per_minute, "rolls")

    async def _finish_deferred(
        self, interaction: Interaction, work: asyncio.Future[Outcome]
    ) -> None:
        outcome = await work
        await run_in_threadpool(self._deliver, interaction, outcome)

    def _deliver(self, interaction: Interaction, outcome: Outcome) -> None:
        handle, reply = interaction.handle, outcome.reply
        message = reply.message
        try:
            if _is_button(interaction) and not reply.update:
                self._api.follow_up(handle, message.as_json())  # a refusal, to the clicker
            elif message.ephemeral and not private_answer(interaction):
                # The wait was shown to everyone; the answer is for the asker alone.
                self._api.delete_original(handle)
                self._api.follow_up(handle, message.as_json())
            else:
                self._api.edit_original(handle, message.as_json(with_flags=False))
        except DiceledgerError as error:
            LOG.warning("answering interaction %s failed: %s", handle.interaction_id, error)
            return
        self._follow_up(interaction, outcome)

    def _follow_up(self, interaction: Interaction, outcome: Outcome) -> None:
        if not outcome.fresh:
            return
        for message in outcome.reply.follow_ups:
            try:
                self._api.follow_up(interaction.handle, message.as_json())
            except DiceledgerError as error:
                LOG.warning(
                    "a follow-up of interaction %s failed: %s", interaction.interaction_id, error
                )


def refusal(error: DiceledgerError) -> Reply:
    """Return the private reply that words a refusal (its text may quote what was typed)."""
    return private(f"Nothing was done: {escape(clip(str(error), ERROR_TEXT))}")


def _is_button(interaction: Interaction) -> bool:
    return interaction.type is InteractionType.MESSAGE_COMPONENT

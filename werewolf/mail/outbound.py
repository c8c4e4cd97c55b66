"""Outbound mail: the welcome with a player's private link, and after each phase the
events that player may know. Each mail is recorded in `Dispatch` before it is sent, in
the same transaction, so a retried task never sends it twice."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.utils import timezone

from werewolf import engine
from werewolf.games import links, selectors
from werewolf.games.models import Dispatch, Game, InboundMessage, Phase, Player, SeatLink


def send_welcome(player_id: int, request: str = "") -> bool:
    """The player's seat and link. `request` names a repeat the organiser asked for, so
    that it is sent once too."""
    player = Player.objects.select_related("game").filter(pk=player_id).first()
    link = links.current(player) if player else None
    if player is None or link is None or not player.email or player.is_bot:
        return False
    key = f"welcome:{link.pk}" + (f":{request}" if request else "")
    return _send_once(player, key, "welcome", _context(player, phase=None))


def send_phase_mails(phase_id: int) -> int:
    """Mail every player with an address what the phase's resolution showed them."""
    phase = Phase.objects.select_related("game").filter(pk=phase_id).first()
    if phase is None:
        return 0
    sent = 0
    for player in phase.game.players.exclude(email="").filter(is_bot=False).exclude(seat=None):
        sent += _send_once(player, f"phase:{phase.pk}:{player.pk}", "phase", _context(player, phase=phase))
    return sent


def send_pending(within: timedelta = timedelta(days=2)) -> int:
    """Send what a lost task left unsent: welcomes for links and results for phases of
    the last `within`. Run by the beat; the Dispatch rows keep it from sending twice."""
    since = timezone.now() - within
    sent = 0
    for link in SeatLink.objects.filter(created_at__gte=since, revoked_at=None).exclude(player__email=""):
        if not Dispatch.objects.filter(key=f"welcome:{link.pk}").exists():
            sent += send_welcome(link.player_id)
    for phase in Phase.objects.filter(status=Phase.Status.RESOLVED, resolved_at__gte=since):
        sent += send_phase_mails(phase.pk)
    return sent


def send_inbound_reply(row: InboundMessage, reading: Any) -> bool:
    """Tell the seat what became of its mailed card: taken, or refused and why. Sent to
    the seat's registered address only, and once per inbound message."""
    player = reading.reply_to
    if player is None or not player.email:
        return False
    context = _context(player, phase=None)
    context.update(
        {
            "reading": reading,
            "inbound": row,
            "order": reading.order.order if reading.order else None,
            "taken_for": reading.phase,
        }
    )
    headers = {"In-Reply-To": row.message_id, "References": row.message_id} if row.message_id else {}
    return _send_once(player, f"inbound:{row.pk}", "inbound_reply", context, headers)


def compose(
    player: Player, template: str, context: dict[str, Any], headers: dict[str, str] | None = None
) -> EmailMultiAlternatives:
    subject = " ".join(render_to_string(f"emails/{template}_subject.txt", context).split())
    text = render_to_string(f"emails/{template}.txt", context)
    html = render_to_string(f"emails/{template}.html", context)
    reply_to = [context["reply_to"]] if context.get("reply_to") else None
    message = EmailMultiAlternatives(
        subject, text, to=[f"{player.name} <{player.email}>"], reply_to=reply_to, headers=headers
    )
    message.attach_alternative(html, "text/html")
    return message


def orders_address(reference: str) -> str:
    """The address a reply carrying `reference` goes to: orders+<reference>@domain."""
    local, _, domain = settings.WEREWOLF_ORDERS_ADDRESS.rpartition("@")
    return f"{local}+{reference}@{domain}"


def _send_once(
    player: Player, key: str, template: str, context: dict[str, Any], headers: dict[str, str] | None = None
) -> bool:
    try:
        with transaction.atomic():
            Dispatch.objects.create(player=player, key=key)
            compose(player, template, context, headers).send()
    except IntegrityError:
        return False
    return True


def _context(player: Player, phase: Phase | None) -> dict[str, Any]:
    """What one player's mail may show: events visible to the seat, nothing else."""
    game: Game = player.game
    seat = player.seat
    state = game.engine_state
    events = []
    if phase is not None:
        events = [event for event in phase.events.all() if event.visible_to(seat)]
    following = game.current_phase() if game.is_running else None
    slot = engine.phase(state).asks(seat) if following else None
    reference = links.reference_for(player, following.index) if following and slot else None
    mail_orders = bool(settings.WEREWOLF_MAIL_ORDERS and reference)
    return {
        "game": game,
        "player": player,
        "viewer": seat,
        "names": selectors.names(game),
        "role": state.roles[seat],
        "private": selectors.private_events(selectors.visible_events(game, seat)) if phase is None else [],
        "phase": phase,
        "events": events,
        "next_phase": following,
        "slot": slot,
        "link": links.url_for(player),
        "mail_orders": mail_orders,
        "reply_to": orders_address(reference) if mail_orders and reference else "",
    }

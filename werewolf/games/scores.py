"""Scores kept across a game and a series of games, for a ruleset that keeps them
(`capabilities.scores`): the table at a game's end, each player's points by source as the
ruleset's `game_over` event gives them, and a series' running totals, players matched by
address (else name) from one game to the next."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .models import Event, Player


def series_totals(game: Any) -> dict[str, int] | None:
    """A series' running totals up to `game` (None outside a series): each player's points
    over the finished games of the series so far, by address (else name), the Werewolf's
    bonus included (a Werewolf who won scores as many points as there are players)."""
    from .models import Game

    if game.series is None and not Game.objects.filter(series=game).exists():
        return None
    first = game.series or game
    later = Game.objects.filter(series=first, series_number__lte=game.series_number).order_by("series_number")
    games = [first, *later]
    totals: dict[str, int] = {}
    for played in games:
        if played.status != Game.Status.FINISHED:
            continue
        over = played.events.filter(kind="game_over").order_by("-pk").first()
        if over is None:
            continue
        seated = {player.seat: player for player in played.players.exclude(seat=None)}
        for seat, points in enumerate(over.data.get("scores", ())):
            player = seated.get(seat)
            if player is not None:
                key = _who(player)
                totals[key] = totals.get(key, 0) + int(points)
    return totals


def _who(player: Player) -> str:
    return (player.email or player.name).casefold()


def score_rows(outcome: Event | None, names: Sequence[str], game: Any = None) -> list[dict[str, Any]]:
    """The final score table from the game's end (public then): each player's points by
    source and total, the winner first... in seat order, the winner marked."""
    if outcome is None or outcome.kind != "game_over" or "scores" not in outcome.data:
        return []
    data = outcome.data
    parts = data.get("points") or [{} for _ in data["scores"]]
    winners = set(data.get("winners", ()))
    rows = [
        {
            "seat": seat,
            "name": names[seat] if seat < len(names) else "?",
            "total": total,
            "won": seat in winners,
            **parts[seat],
        }
        for seat, total in enumerate(data["scores"])
    ]
    totals = series_totals(game) if game is not None else None
    if totals is not None:
        seated = {player.seat: player for player in game.players.exclude(seat=None)}
        for row in rows:
            player = seated.get(row["seat"])
            row["series"] = totals.get(_who(player), 0) if player is not None else None
    return rows


@dataclass
class ScoreBlock:
    """One game of a series on the score sheet: each player's points by source and the
    running total, or blanks to fill in by hand (`filled` False). The paper's score sheet
    (werewolf/printing/documents.py) shows these: the games side reads the series, the
    printing side draws it."""

    number: int
    rows: list[dict[str, Any]]
    filled: bool


def series_blocks(game: Any, seated: Sequence[Any]) -> list[ScoreBlock]:
    """The finished games of `game`'s series up to it (or `game` alone), as score-sheet
    blocks: each of `seated`'s players' points by source in that game, and the running
    total after it (players matched by address, else name)."""
    from .models import Game

    first = game.series or game
    games = [first, *Game.objects.filter(series=first, series_number__lte=game.series_number).order_by("series_number")]
    running: dict[str, int] = {}
    blocks = []
    for played in games:
        over = played.events.filter(kind="game_over").order_by("-pk").first()
        if played.status != Game.Status.FINISHED or over is None:
            continue
        by_who = {_who(player): player.seat for player in played.players.exclude(seat=None)}
        parts = over.data.get("points") or [{} for _ in over.data["scores"]]
        rows = []
        for player in seated:
            seat = by_who.get(_who(player))
            if seat is None:
                rows.append({"name": player.name})
                continue
            total = int(over.data["scores"][seat])
            running[_who(player)] = running.get(_who(player), 0) + total
            rows.append({"name": player.name, **parts[seat], "total": total, "series": running[_who(player)]})
        blocks.append(ScoreBlock(played.series_number, rows, True))
    return blocks

"""The balance lab on the web: the New game form's setup, studied by the engine's lab
(engine/lab.py), kept in the shared cache, beside the finished games of the same setup
(`observed`: one's own as they are, the site's as a figure that tells no single game).

`GET /games/lab/?<the New game form's fields>&count=N` answers a fragment the New game page
shows in place (its script asks again as the setup changes); `&part=suggest` the option
change that moves a lopsided setup most (the second, slower request); a POST of the whole
form (its "See how this setup plays" button, without scripts) answers a page with both.
Organisers only; each figure computed (not found in the cache) counts against the "lab"
limit, as it costs the machine a second or two."""

from __future__ import annotations

import hashlib
import json
import logging
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.cache import cache as shared_cache
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render
from django.template.loader import select_template
from django.views.decorators.http import require_http_methods

from werewolf import engine, limits
from werewolf.engine import lab as engine_lab
from werewolf.engine.simulate import Stuck

from . import access, observed
from .forms import GameForm, family
from .templatetags.werewolf import own

logger = logging.getLogger(__name__)

CACHE_SECONDS = 30 * 86400
"""How long a setup's figures are kept (the engine's fingerprint is in the key: a new
engine asks again)."""

RIVALS_SHOWN = 3
"""The changes the race could not tell from the suggested one that the page names."""

CHART_LABEL, CHART_BAR, CHART_ROW = 320, 300, 30
"""The chart's geometry in its own units: the label column, the bar, a row's height."""


@cache
def fingerprint() -> str:
    """A digest of the engine's code: figures computed by another engine are not reused."""
    digest = hashlib.sha256()
    root = Path(engine.__file__).parent
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


@dataclass(frozen=True)
class Setup:
    """What the lab studies: a ruleset, a count of players, the options as the New game
    form reads them (`GameForm.option_values`), and the form, for its labels."""

    ruleset: str
    players: int
    options: dict[str, Any]
    form: GameForm

    def key(self, part: str, *more: Any) -> str:
        raw = json.dumps(
            [part, fingerprint(), self.ruleset, self.players, self.options, *more], sort_keys=True, default=list
        )
        return "lab:" + hashlib.sha256(raw.encode()).hexdigest()


def _count(params: QueryDict, ruleset: str) -> int:
    """The table the lab studies: `count` if given, else the lines of the player list, else
    the sign-up limit, else the ruleset's typical table."""
    try:
        return int(params.get("count", ""))
    except ValueError:
        pass
    lines = [line for line in str(params.get("players", "")).splitlines() if line.strip()]
    if lines:
        return len(lines)
    try:
        return int(params.get("signup_limit", ""))
    except ValueError:
        rules = engine.rulesets.get(ruleset)
        return rules.capabilities.typical_table or rules.min_players


def setup_from(params: QueryDict, organiser: Any) -> Setup | None:
    """The setup the New game form's fields describe, read by the form itself; None when
    they describe none (an unknown ruleset, a count out of range, options that do not fit)."""
    ruleset = params.get("ruleset") or engine.listed()[0]
    if ruleset not in engine.rulesets.RULESETS:
        return None
    players = _count(params, ruleset)
    rules = engine.rulesets.get(ruleset)
    if not rules.min_players <= players <= rules.max_players:
        return None
    data = params.copy()
    blank = GameForm(organiser=organiser)
    for name, field in blank.fields.items():
        if field.required and name not in data:
            data[name] = blank.get_initial_for_field(field, name)
    data["name"] = data.get("name") or "lab"
    data["players"] = "\n".join(f"P{number}" for number in range(1, players + 1))
    data.pop("signup", None)
    form = GameForm(data, organiser=organiser)
    if not form.is_valid():
        return None
    options = form.option_values(ruleset)
    try:
        engine.options(ruleset, options, players)
    except engine.SetupError:
        return None
    return Setup(ruleset, players, options, form)


LOCK_SECONDS = 30
"""How long one process may hold a setup's lock while it simulates it: longer than any
study or search takes, short enough that a process that died holding it delays the next
asker by no more."""


def _kept(key: str, compute: Any, who: str) -> Any:
    """The cache's answer for `key`, or `compute()`'s, counted against the lab's limit and
    kept (`limits.Limited` when the limit is spent). Two askers of the same setup at once
    (two organisers, a double click, two web processes) simulate it once: the first takes
    the setup's lock in the shared cache and computes; the others wait for its answer
    (uncounted) and compute only if the lock's holder gave none within `LOCK_SECONDS`."""
    found = shared_cache.get(key)
    if found is not None:
        return found
    lock = f"{key}:lock"
    if not shared_cache.add(lock, 1, LOCK_SECONDS):
        waited = _answer_of(key, lock)
        if waited is not None:
            return waited
    try:
        limits.hit("lab", who)
        found = compute()
        shared_cache.set(key, found, CACHE_SECONDS)
    finally:
        shared_cache.delete(lock)
    return found


def _answer_of(key: str, lock: str) -> Any:
    """The answer another process is computing for `key`, once it is kept; None if its lock
    went (or ran out) with no answer."""
    deadline = time.monotonic() + LOCK_SECONDS
    while time.monotonic() < deadline:
        time.sleep(0.05)
        found = shared_cache.get(key)
        if found is not None:
            return found
        if shared_cache.get(lock) is None:
            return shared_cache.get(key)
    return None


def study(setup: Setup, who: str) -> engine_lab.Study:
    """The engine lab's study of the setup within the figures' share of the whole answer's
    budget (`engine.lab.FIGURES_SECONDS`), from the cache when it was asked before; it
    keeps the time it took (`Study.seconds`), which the suggestion's budget is read from."""
    seconds = engine_lab.FIGURES_SECONDS
    return _kept(  # type: ignore[no-any-return]
        setup.key("study", engine_lab.GAMES, seconds),
        lambda: engine_lab.study(setup.ruleset, setup.players, setup.options, seconds=seconds),
        who,
    )


def suggestions(setup: Setup, side: str, who: str) -> engine_lab.Suggestion:
    """The single option changes, the one moving `side`'s share most towards even first
    (with the bots that judge a setup, those that talk), from the cache when asked before.
    The setup's own share is the study's (asked first, so kept): its games are the
    unchanged setup's, the ones each change is measured against. Its time is what the
    whole answer's budget has left after the study's (`engine.lab.suggest_seconds`, from
    the time the kept study took, whether this request or an earlier one computed it)."""
    judge = engine_lab.JUDGE

    def compute() -> engine_lab.Suggestion:
        studied = study(setup, who)
        figures = studied.at(setup.players, judge)
        base = figures.of(side) if figures is not None else None
        seconds = engine_lab.suggest_seconds(studied)
        return engine_lab.suggest(setup.ruleset, setup.players, setup.options, side, judge, seconds=seconds, base=base)

    budget = (engine_lab.ANSWER_SECONDS, engine_lab.FIGURES_SECONDS, engine_lab.SUGGEST_FLOOR)
    return _kept(  # type: ignore[no-any-return]
        setup.key("suggest", side, engine_lab.SUGGEST_GAMES, *budget), compute, who
    )


def chart(result: engine_lab.Study) -> dict[str, Any]:
    """The chart's rows (a count and a strategy each) with each side's bar as numbers the
    template draws, and the table's cells, sides in `result.sides` order."""
    rows: list[dict[str, Any]] = []
    for players in result.counts:
        for strategy in engine_lab.STRATEGIES:
            figures = result.at(players, strategy)
            if figures is None:
                continue
            x = float(CHART_LABEL)
            bars = []
            for index, side in enumerate(result.sides):
                share = figures.of(side)
                width = CHART_BAR * share.share
                bars.append(
                    {
                        "side": side,
                        "index": index,
                        "x": round(x, 1),
                        "width": round(width, 1),
                        "percent": 100 * share.share,
                        "margin": 100 * share.margin,
                    }
                )
                x += width
            rows.append(
                {
                    "players": players,
                    "games": figures.games,
                    "strategy": strategy,
                    "asked": players == result.players,
                    "y": len(rows) * CHART_ROW,
                    "bars": bars,
                }
            )
    return {
        "rows": rows,
        "width": CHART_LABEL + CHART_BAR + 10,
        "height": len(rows) * CHART_ROW,
        "label": CHART_LABEL - 8,
        "bar_height": CHART_ROW - 8,
        "games": max((figures.games for figures in result.figures), default=0),
    }


def described(setup: Setup, change: engine_lab.Change) -> dict[str, Any]:
    """A change as the form names it: its field's label, and the value's own label (a
    choice's, an item added or taken from a list) or the number or yes/no itself."""
    form = setup.form
    name = change.option if change.option in form.fields else f"{family(setup.ruleset)}_{change.option}"
    field = form.fields.get(name)
    labels = dict(getattr(field, "choices", ()) or ())
    words: dict[str, Any] = {
        "label": field.label if field is not None else change.option,
        "value": change.value,
        "percent": 100 * change.share.share,
        "margin": 100 * change.share.margin,
        "games": change.share.games,
    }
    if isinstance(change.value, list):
        before = set(engine.options(setup.ruleset, setup.options, setup.players).get(change.option, ()))
        added = set(change.value) - before
        item = next(iter(added or before - set(change.value)), "")
        words.update(item=labels.get(item, item), added=bool(added))
    elif isinstance(change.value, bool):
        words["turned"] = "on" if change.value else "off"
    elif isinstance(change.value, str):
        words["value"] = labels.get(change.value, change.value)
    return words


def _who(request: HttpRequest) -> str:
    return f"user:{request.user.pk}"


@login_required
@require_http_methods(["GET", "POST"])
def view(request: HttpRequest) -> HttpResponse:
    """The lab's fragment (GET, from the New game page's script), its suggestion (GET with
    `part=suggest`), or its page (POST of the New game form, without scripts)."""
    if not access.is_organiser(request.user):
        raise Http404
    page = request.method == "POST"
    params = request.POST if page else request.GET
    setup = setup_from(params, request.user)
    template = "games/lab_page.html" if page else "games/lab.html"
    if setup is None:
        return render(request, template, {"invalid": True}, status=400)
    context: dict[str, Any] = {"setup": setup, "query": "" if page else _query(params)}
    try:
        if params.get("part") == "suggest" and not page:
            context.update(_best(setup, params.get("side", ""), _who(request)))
            return render(request, "games/lab_change.html", context)
        result = study(setup, _who(request))
        context.update(
            study=result,
            chart=chart(result),
            observed=observed.figures(setup.ruleset, setup.players, setup.options, result.sides, request.user),
            lopsided=engine_lab.LOPSIDED * 100,
        )
        if result.flagged is not None:
            context["flag_percent"] = 100 * result.flagged.share
            context["flag_low"] = 100 * result.flagged.bounds[0]
            if page:
                context.update(_best(setup, result.flagged.side, _who(request)), tried=True)
    except limits.Limited as limited:
        return render(request, "429.html" if page else "games/lab_limited.html", {"limited": limited}, status=429)
    except Stuck as stuck:
        # A flaw of the bots (or the rules) to fix: the operator's log says which setup,
        # the organiser reads that the lab has no figures for it (not a server error).
        logger.error(
            "the lab could not study %s at %s players %s: %s", setup.ruleset, setup.players, setup.options, stuck
        )
        part = "games/lab_change.html" if params.get("part") == "suggest" and not page else template
        return render(request, part, {"setup": setup, "stuck": True})
    return render(request, template, _with_sides(setup, context))


def _best(setup: Setup, side: str, who: str) -> dict[str, Any]:
    """The suggestion's words: `change`, the change moving `side`'s share most towards
    even as `described` names it, with the first `RIVALS_SHOWN` of those the lab could
    not tell from it (`rivals`, `more` not named), or None when no change it tried moves
    it that way; and `untried`, how many changes it had no time to try."""
    found = suggestions(setup, side, who)
    answer: dict[str, Any] = {"change": None, "untried": len(found.untried)}
    if found.best is not None:
        rivals = found.rivals
        answer["change"] = described(setup, found.best) | {
            "rivals": [described(setup, rival) for rival in rivals[:RIVALS_SHOWN]],
            "more": max(0, len(rivals) - RIVALS_SHOWN),
            "close": 100 * engine_lab.CLOSE,
        }
    return answer


def _with_sides(setup: Setup, context: dict[str, Any]) -> dict[str, Any]:
    """The template naming a side's winners: the ruleset family's own, else the shared one."""
    context["side_words"] = select_template(own(setup.ruleset, "games/lab_side.html"))
    return context


def _query(params: QueryDict) -> str:
    """The setup's own fields as a query (the suggestion's request), without the player
    list, the game's name or the form's token."""
    kept = params.copy()
    for name in ("players", "name", "csrfmiddlewaretoken", "part", "side"):
        kept.pop(name, None)
    return kept.urlencode()

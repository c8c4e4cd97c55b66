"""Lupusburg, both editions, played with written cards: the ruleset object.

Each player holds two characters under two houses; the Werewolf claws a house each night
while the Thief peeks under one for a chest; each day runs as named steps (goals, the
Burgomaster's privilege, the Chimney Sweeper, bets, the accusation, the ballot), a step
nobody is asked in being skipped. Bets are instant acts. The game ends when the Werewolf
has no living character (the others then score) or when he has won; see scoring.py."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from random import Random
from typing import Any

from ... import rulings, talk
from ...cards import SLEEPER, Field, Slot
from ...errors import SetupError
from ...events import MODERATOR, Audience, Event, Viewer
from ...night import Death
from ...options import as_json, parse_options
from ...orders import Order
from ...outcome import Outcome
from ...people import AIMS, LESSONS, Aim, Lesson, Memory, found
from ...random import setup_rng
from ...state import PhaseSpec, State
from ..base import Advice, BaseRuleset, BetSeen, Capabilities, DealShape, EventKinds, HandPart, HouseSeen, Ring
from .scoring import outcome_of, points, winner_of
from .state import Bet, LupusburgOptions, LupusburgState
from .table import (
    ACCUSATION_STEP,
    ACCUSE,
    BAG_COINS,
    BALLOT,
    BALLOT_STEP,
    BET,
    BETS_STEP,
    BROOM,
    CARDS,
    CLAW,
    DAY,
    GOAL_DECK,
    GOALS,
    GOALS_STEP,
    KEEP_RANKS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NIGHT,
    OVER,
    PEEK,
    PLACE,
    PLACEMENT,
    PRIVILEGE,
    PRIVILEGE_STEP,
    REDRAW,
    ROLES,
    SHORT_STEPS,
    SHOW,
    SHOW_STEP,
    SWEEP_STEP,
    SWEEPER_FROM,
    SWEEPER_STEP,
    THIEF,
    WEREWOLF,
    deck,
    stack,
)

_KEEP = tuple(range(KEEP_RANKS))


class Lupusburg(BaseRuleset):
    """One edition of Lupusburg (`edition` is its ruleset id)."""

    id: str
    capabilities = Capabilities(
        family="lupusburg",
        houses=True,
        scores=True,
        paper_pack=True,
        rank=3,
        typical_table=6,
        timings=(SHORT_STEPS,),
        lineage=("werewolf",),
    )
    events: EventKinds = {
        "ballot_revealed": (),
        "bet_placed": (),
        "burgomaster_named": (),
        "burgomaster_passed": (),
        "character_shown": (),
        "characters_dealt": (),
        "characters_drawn": (),
        "claw_fell": (),
        "coin_kept": (),
        "dawn_no_death": (),
        "game_over": (),
        "game_set_up": (),
        "goal_changed": (),
        "goal_drawn": (),
        "house_seen": (),
        "killed": ("seat",),
        "lynched": ("seat",),
        "privilege_unused": (),
        "privilege_used": (),
        "ruling_bag_draw": (),
        "ruling_bet_paid": (),
        "ruling_chest_found": (),
        "ruling_chest_scored": (),
        "ruling_drawn": (),
        "ruling_end_check": (),
        "ruling_tie_broken": (),
        "suspects_named": (),
        "sweeper_named": (),
    }
    """(The goals' kinds, `goal_drawn` and the rest, only with goals.)"""
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    roles = ROLES
    cards = CARDS
    state_type = LupusburgState
    options_type = LupusburgOptions
    night_order = ("peek", "claw")
    """The night's steps in call order: the Thief peeks, then the Werewolf claws."""

    def __init__(self, edition: str) -> None:
        self.id = edition
        self.goals = edition == GOALS

    # Setup.

    def advice(self, options: Mapping[str, Any], players: int) -> tuple[Advice, ...]:
        """No advice: every option this ruleset takes is the rulebook's to take."""
        return ()

    def options(self, raw: Mapping[str, Any], players: int) -> dict[str, Any]:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise SetupError("player_count", "players", players)
        return as_json(parse_options(LupusburgOptions, raw, {}))

    def deck(self, options: Mapping[str, Any], players: int) -> tuple[str, ...]:
        return deck(self.id, players)

    def paper_pack(self, players: int) -> tuple[tuple[str, str], ...]:
        """Beside the characters: a house card with and one without the chest for each
        player, the secret goals (goals edition), the coins (the bag's, or the stack), a
        seal for each player, the Burgomaster's card and (goals edition) the Chimney
        Sweeper's."""
        pieces = [(kind, "") for _ in range(players) for kind in ("chest", "house")]
        if self.goals:
            pieces += [("goal", goal) for goal in GOAL_DECK]
        coins = stack(players)[::-1] if self.goals else BAG_COINS
        pieces += [("coin", str(coin)) for coin in coins]
        pieces += [("seal", "") for _ in range(players)]
        pieces.append(("burgomaster", ""))
        if self.goals:
            pieces.append(("sweeper", ""))
        return tuple(pieces)

    def score_parts(self) -> tuple[str, ...]:
        """Living characters, the chest, the bet, and (goals edition) the secret goal."""
        return ("characters", "chest", "bet", "goal") if self.goals else ("characters", "chest", "bet")

    def lessons(self) -> Mapping[str, Lesson]:
        """Besides the shared lessons: who owns each house (for the talking bots, whose
        accusations and ballots name the houses of the players they suspect); a player
        holding the Werewolf knows it is the wolf, and which of its houses hides it; a
        character shown to a player, or one gone with its house, is one less of its
        owner's two that may be the Werewolf (the top suspects are the least trusted);
        a player shown a character knows it under its house; the Werewolf knows who
        was shown his."""
        return _LESSONS

    def aims(self) -> Mapping[str, Aim]:
        """Besides the shared aims: the Werewolf's claw harms the owner of the house it
        names; the Burgomaster's look learns about it."""
        return _AIMS

    def setup(
        self, options: Mapping[str, Any], players: int, seed: int, deal: Mapping[str, Any] | None = None
    ) -> tuple[State, list[Event]]:
        """Deal two characters a player (again while one player holds both the Werewolf
        and the Thief), place them and the chests under the houses, hand the Burgomaster
        to a player drawn at random and, in the goals edition, deal the secret goals; or
        take all or part of this from `deal` (`characters` by house, `chests` by seat,
        `burgomaster`, `goals` by seat and `goal_deck` top first), as `deal(state)` gives it.

        A deal the rules forbid is refused, naming the fault: characters that are not the
        edition's deck (`bad_characters`), one player with both the Werewolf and the Thief
        (`werewolf_with_thief`, the seat), a chest under another player's house
        (`chest_not_own`) or over the Werewolf or the Thief (`chest_hidden`, the seat), a
        Burgomaster who is no player (`bad_burgomaster`), goals that are not one a player
        from the goal deck (`bad_goals`) or a goal dealt more often than the deck holds it
        (`goal_over`, the goal)."""
        rng = setup_rng(seed)
        given = deal or {}
        cards = list(deck(self.id, players))
        characters = given.get("characters")
        if characters is None:
            while True:
                rng.shuffle(cards)
                if all({cards[2 * seat], cards[2 * seat + 1]} != {WEREWOLF, THIEF} for seat in range(players)):
                    break
            characters = cards
        characters = tuple(str(x) for x in characters)
        if sorted(characters) != sorted(cards):
            raise SetupError("bad_characters", "characters", list(characters))
        for seat in range(players):
            if {characters[2 * seat], characters[2 * seat + 1]} == {WEREWOLF, THIEF}:
                raise SetupError("werewolf_with_thief", "characters", seat)
        chests = given.get("chests")
        if chests is None:
            chests = []
            for seat in range(players):
                free = [house for house in (2 * seat, 2 * seat + 1) if not ROLES[characters[house]].hidden_from_chest]
                chests.append(free[0] if len(free) == 1 else rng.choice(free))
        chests = tuple(int(x) for x in chests)
        if len(chests) != players:
            raise SetupError("bad_deal", "chests", list(chests))
        for seat, house in enumerate(chests):
            if house // 2 != seat:
                raise SetupError("chest_not_own", "chests", seat)
            if ROLES[characters[house]].hidden_from_chest:
                raise SetupError("chest_hidden", "chests", seat)
        burgomaster = given.get("burgomaster")
        burgomaster = rng.randrange(players) if burgomaster is None else int(burgomaster)
        if not 0 <= burgomaster < players:
            raise SetupError("bad_burgomaster", "burgomaster", burgomaster)
        goals: tuple[str, ...] = ()
        goal_deck: tuple[str, ...] = ()
        if self.goals:
            pile = list(GOAL_DECK)
            rng.shuffle(pile)
            goals = tuple(str(x) for x in given.get("goals", pile[:players]))
            if len(goals) != players or any(goal not in GOAL_DECK for goal in goals):
                raise SetupError("bad_goals", "goals", list(goals))
            for goal in dict.fromkeys(goals):
                if goals.count(goal) > GOAL_DECK.count(goal):
                    raise SetupError("goal_over", "goals", goal)
            goal_deck = tuple(str(x) for x in given.get("goal_deck", pile[players:] if "goals" not in given else ()))
            if "goals" in given and "goal_deck" not in given:
                left = list(GOAL_DECK)
                for goal in goals:
                    left.remove(goal)
                rng.shuffle(left)
                goal_deck = tuple(left)
            if sorted(goals + goal_deck) != sorted(GOAL_DECK):
                raise SetupError("bad_goals", "goals", list(goals))
        coins = stack(players) if self.goals else BAG_COINS
        rules = LupusburgState(
            characters=characters,
            living=(True,) * (2 * players),
            chests=chests,
            burgomaster=burgomaster,
            first=burgomaster,
            coins=coins,
            goals=goals,
            goal_deck=goal_deck,
            dealt_goals=goals,
            dealt_deck=goal_deck,
            drawn=characters if options.get("placement") == "card" else (),
            drawn_chests=chests if options.get("placement") == "card" else (),
        )
        by_card = options.get("placement") == "card"
        state = State(
            ruleset=self.id,
            options=dict(options),
            seed=seed,
            alive=(True,) * players,
            revealed=(False,) * players,
            phase="setup" if by_card else "night",
            number=0 if by_card else 1,
            rules=rules,
        )
        summary = {"players": players, "deck": list(deck(self.id, players)), "coins": list(coins)}
        events = [Event("game_set_up", summary, Audience.public())]
        events.append(Event("burgomaster_named", {"seat": burgomaster}, Audience.public()))
        for seat in range(players):
            if by_card:
                drawn = {"seat": seat, "characters": [characters[2 * seat], characters[2 * seat + 1]]}
                events.append(Event("characters_drawn", drawn, Audience.of(seat)))
            else:
                events.append(_dealt(rules, seat))
            if self.goals:
                events.append(Event("goal_drawn", {"seat": seat, "goal": goals[seat]}, Audience.of(seat)))
        return state, events

    def _place(self, state: State, cards: Mapping[int, Order], rng: Random, events: list[Event]) -> State:
        """Placement by card: each player's first character (as drawn) goes under the
        house the card names, the other under the other house; the chest under the house
        it names, unless that would put it over the Werewolf or the Thief (then under the
        other house). A player without a card keeps the server's placement."""
        lb: LupusburgState = state.rules
        characters = list(lb.characters)
        chests = list(lb.chests)
        for seat in range(state.seats):
            card = cards.get(seat)
            if card is None or card.kind != PLACE.kind:
                continue
            first, second = 2 * seat, 2 * seat + 1
            drawn = (lb.characters[first], lb.characters[second])
            if card.targets and card.targets[0] == second:
                characters[first], characters[second] = drawn[1], drawn[0]
            chest = card.field("chest")
            if chest:
                chests[seat] = chest[0]
            if ROLES[characters[chests[seat]]].hidden_from_chest:
                chests[seat] = first + second - chests[seat]
        placed = replace(lb, characters=tuple(characters), chests=tuple(chests))
        events.extend(_dealt(placed, seat) for seat in range(state.seats))
        return state.with_rules(characters=placed.characters, chests=placed.chests).evolve(phase="night", number=1)

    def deal(self, state: State) -> dict[str, Any]:
        rules: LupusburgState = state.rules
        dealt: dict[str, Any] = {
            "characters": list(rules.drawn or rules.characters),
            "chests": list(rules.drawn_chests or rules.chests),
            "burgomaster": rules.first,
        }
        if self.goals:
            dealt["goals"] = list(rules.dealt_goals)
            dealt["goal_deck"] = list(rules.dealt_deck)
        return dealt

    def deal_shape(self, options: Mapping[str, Any], players: int) -> DealShape:
        """Each player's hand as the table deals it: two characters from the edition's
        deck (the one under their first house, then under their second), the house that
        hides their chest and, in the goals edition, their secret goal; and the first
        Burgomaster, whom the table always knows."""
        parts = [HandPart("characters", "card", deck(self.id, players), count=2), HandPart("chest", "own_house")]
        if self.goals:
            parts.append(HandPart("goal", "goal", GOAL_DECK))
        return DealShape(tuple(parts), mark="burgomaster", mark_required=True)

    def deal_from_hands(self, hands: Sequence[Mapping[str, Any]], mark: int | None) -> dict[str, Any]:
        """The hands as `setup` takes a deal: characters by house, each chest's house,
        the Burgomaster and the goals by seat (the rest of the goal deck is shuffled)."""
        dealt: dict[str, Any] = {
            "characters": [str(character) for hand in hands for character in hand["characters"]],
            "chests": [2 * seat + int(hand["chest"]) for seat, hand in enumerate(hands)],
        }
        if mark is not None:
            dealt["burgomaster"] = mark
        if self.goals:
            dealt["goals"] = [str(hand["goal"]) for hand in hands]
        return dealt

    def channels(self, state: State) -> tuple[talk.Channel, ...]:
        """One square where every player reads and writes, whatever they still hold:
        players without a living character keep talking."""
        everyone = frozenset(range(state.seats))
        return (talk.Channel(talk.SQUARE, everyone, everyone),)

    # What each step asks.

    def phase(self, state: State) -> PhaseSpec:
        if state.over:
            return PhaseSpec(OVER, state.number, {})
        if state.phase == "setup":
            place = {
                seat: Slot(PLACE, ((2 * seat, 2 * seat + 1), (2 * seat, 2 * seat + 1))) for seat in range(state.seats)
            }
            return PhaseSpec(PLACEMENT, state.number, place)
        if state.phase == "night":
            return PhaseSpec(NIGHT, state.number, _night_slots(state))
        return PhaseSpec(DAY[state.step], state.number, _day_slots(self, state, state.step), step=state.step)

    def bound(self, state: State, field: Field) -> int:
        if field.refers == "house":
            return 2 * state.seats
        if field.refers == "token":
            return KEEP_RANKS
        return state.seats

    def misfit(self, state: State, seat: int, order: Order) -> str:
        return "wrong_order"

    def unasked(self, state: State, seat: int) -> str:
        rules: LupusburgState = state.rules
        if state.phase == "day":
            if state.step == BETS_STEP and rules.has_bet(seat):
                return "already_bet"
            if state.step in (GOALS_STEP, BETS_STEP) and not rules.alive_houses(seat):
                return "no_character"
            if state.step == BALLOT_STEP:
                return "no_ballot_vote"
        return "not_asked"

    def refusal(self, state: State, seat: int, field: Field, value: int) -> str:
        rules: LupusburgState = state.rules
        step = state.step if state.phase == "day" else 0
        if field.refers == "token":
            return "not_in_this_edition" if self.goals else "not_a_choice"
        if field.refers == "seat":
            if step == PRIVILEGE_STEP and not self.goals:
                return "not_in_this_edition"
            if value == seat:
                return "target_self"
            if step == PRIVILEGE_STEP and not rules.alive_houses(value):
                return "no_character"
            return "not_a_choice"
        if state.phase == "setup":
            return "not_your_house"
        if not rules.living[value]:
            return "house_gone"
        if step == BALLOT_STEP:
            return "one_vote" if field.name == "also" and value in rules.suspects else "not_a_suspect"
        if field.name == "back":
            return "not_your_house"
        if step == SHOW_STEP:
            return "not_your_house"
        if rules.owner(value) == seat:
            return "own_house"
        if step == PRIVILEGE_STEP and len(rules.alive_houses(rules.owner(value))) < 2:
            return "only_character"
        return "not_a_choice"

    def decisive(self, state: State, cards: Mapping[int, Order]) -> bool:
        """No step ends early on its cards: the ballot is revealed all at once, and the
        other steps wait for their deadline (or for every card)."""
        return False

    # Resolution.

    def resolve(self, state: State, cards: Mapping[int, Order], rng: Random, events: list[Event]) -> State:
        """Resolve the open step, then open the next one that asks someone."""
        state = state.evolve(index=state.index + 1)
        if state.phase == "setup":
            return self._place(state, cards, rng, events)
        if state.phase == "night":
            return _night(self, state, cards, rng, events)
        step = state.step
        if step == GOALS_STEP:
            state = _redraw(state, cards, events)
        elif step == PRIVILEGE_STEP:
            state = _privilege(self, state, cards, rng, events)
        elif step == SHOW_STEP:
            state = _show(state, cards.get(state.rules.shower), rng, events)
        elif step == SWEEPER_STEP:
            state = _sweeper(state, cards, rng, events)
        elif step == SWEEP_STEP:
            state = _sweep(state, cards, events)
        elif step == BETS_STEP:
            state = _late_bets(self, state, cards, rng, events)
        elif step == ACCUSATION_STEP:
            return _accusation(self, state, cards, rng, events)
        else:
            return _ballot(self, state, cards, events)
        return _enter(self, state, step + 1, rng, events)

    def act(self, state: State, seat: int, card: Order, rng: Random) -> tuple[State, list[Event]]:
        """A bet, placed at once: the coin is taken now, first come first served. The
        step closes when nobody is left who may bet."""
        if state.phase != "day" or state.step != BETS_STEP or card.kind != BET.kind:
            raise ValueError(f"not an instant card here: {card}")
        events: list[Event] = []
        state = _bet(self, state, seat, card, rng, events)
        if not _bettors(self, state):
            state = _enter(self, state.evolve(index=state.index + 1), ACCUSATION_STEP, rng, events)
        return state, events

    def outcome(self, state: State) -> Outcome | None:
        if state.winner is None:
            return None
        return outcome_of(self.goals, state)

    def roles_of(self, state: State, seat: int) -> tuple[str, ...]:
        rules: LupusburgState = state.rules
        return (rules.characters[2 * seat], rules.characters[2 * seat + 1])

    def ring(self, state: State, viewer: Viewer, seen: Sequence[tuple[str, Mapping[str, Any]]]) -> Ring:
        """The table as `viewer` sees it: its own two characters and its chest, its goal
        and its coin; of everyone, what lies face up on a real table (which houses are
        gone, the bets and on whom, the Burgomaster and the Chimney Sweeper); a character
        shown to it or turned face up (`seen`: the events it may see); a house it looked
        under; and everything once the game is over. The moderator sees everything."""
        rules: LupusburgState = state.rules
        everything = viewer == MODERATOR or state.over
        known: dict[int, str] = {}
        chests: dict[int, bool] = {}
        for kind, data in seen:
            if kind == "character_shown" or (kind in ("killed", "lynched") and data.get("role")):
                known[int(data["house"])] = str(data["role"])
            elif kind == "house_seen":
                chests[int(data["house"])] = bool(data["chest"])
        houses = []
        for number in range(2 * state.seats):
            owner = rules.owner(number)
            own = everything or viewer == owner
            character = rules.characters[number] if own else known.get(number)
            chest = (rules.chests[owner] == number) if own else chests.get(number)
            houses.append(HouseSeen(number, owner, rules.living[number], character, chest))
        bets = tuple(
            BetSeen(bettor, target, coin if everything or viewer == bettor else None)
            for bettor, target, coin in rules.bets
        )
        ruling = None
        if isinstance(viewer, int):
            hand = self.roles_of(state, viewer)
            ruling = next((role for role in (WEREWOLF, THIEF) if role in hand), hand[0])
        return Ring(
            houses=tuple(houses),
            bets=bets,
            burgomaster=rules.burgomaster,
            sweeper=rules.sweeper,
            goal=rules.goals[viewer] if isinstance(viewer, int) and rules.goals else None,
            goals=tuple(rules.goals) if everything else (),
            ruling=ruling,
        )

    def mourned(self, state: State, deaths: Sequence[Death]) -> list[Death]:
        """Lupusburg's deaths name houses: each living house once."""
        dying: list[Death] = []
        for house, cause in deaths:
            if state.rules.living[house] and all(house != other for other, _ in dying):
                dying.append((house, cause))
        return dying

    def bury(self, state: State, deaths: Sequence[Death], events: list[Event]) -> State:
        """The characters leave the game with their houses, set aside face down: the
        announcement names the house and its owner, never the character (unless
        `reveal_dead`). A player whose last character leaves is no longer alive."""
        reveal = bool(state.options["reveal_dead"])
        for house, cause in deaths:
            rules: LupusburgState = state.rules
            living = (*rules.living[:house], False, *rules.living[house + 1 :])
            state = state.with_rules(living=living)
            seat = rules.owner(house)
            character = rules.characters[house] if reveal else None
            events.append(Event(cause, {"seat": seat, "house": house, "role": character}, Audience.public()))
            if not state.rules.alive_houses(seat):
                state = state.with_death(seat, reveal=False)
        return state

    def judge(self, state: State, events: list[Event]) -> State:
        """End the game when the Werewolf has lost or won."""
        winner = winner_of(self.goals, state)
        if winner is None:
            return state
        events.append(_end_ruling(self.goals, state, winner))
        state = state.evolve(winner=winner, phase="over", revealed=(True,) * state.seats)
        result = outcome_of(self.goals, state)
        rules: LupusburgState = state.rules
        data = {
            "winner": winner,
            "winners": list(result.winners),
            "roles": [[rules.characters[2 * seat], rules.characters[2 * seat + 1]] for seat in range(state.seats)],
            "living": list(rules.living),
            "chests": list(rules.chests),
            "bets": [list(bet) for bet in rules.bets],
            "goals": list(rules.goals),
            "scores": [result.scores.get(seat, 0) for seat in range(state.seats)],
        }
        if winner != WEREWOLF:
            table = points(self.goals, state)
            data["points"] = [table[seat] for seat in range(state.seats)]
            events += _score_rulings(state, table, result.winners[0])
        events.append(Event("game_over", data, Audience.public()))
        return state


# The slots of each step.


def _drawn(what: str, seat: int, value: int) -> Event:
    """A choice the rules draw at random for `seat`, who wrote none: the Werewolf's
    "claw" (a house, as the game's options say), the Burgomaster's character shown
    "back" (a house), a character to "show" (a house), or the "sweeper" (a seat)."""
    return rulings.ruling("drawn", {"what": what, "seat": seat, "value": value})


def _chest_ruling(lb: LupusburgState, seat: int, house: int, by: str) -> Event:
    """A look under `house` (by the Thief, or the Chimney Sweeper) ruled: whose house it
    is and whether it hides that player's chest."""
    data = {"seat": seat, "house": house, "owner": lb.owner(house), "chest": house in lb.chests, "by": by}
    return rulings.ruling("chest_found", data)


def _end_ruling(goals: bool, state: State, winner: str) -> Event:
    """The end check ruled, with the living characters it weighed (the Werewolf's,
    everyone else's together): "lost" (none of his lives: the points decide), or won,
    "parity" (coin-bag edition: his at least as many as the others') or "alone" (goals
    edition: nobody else holds a living character)."""
    lb: LupusburgState = state.rules
    wolf = lb.seat_of(WEREWOLF)
    his = len(lb.alive_houses(wolf))
    rule = "lost" if winner != WEREWOLF else "alone" if goals else "parity"
    return rulings.ruling("end_check", {"seat": wolf, "his": his, "others": sum(lb.living) - his, "rule": rule})


def _score_rulings(state: State, table: Mapping[int, Mapping[str, int]], best: int) -> list[Event]:
    """When the Werewolf lost: each chest's point (1 if a living character still stands
    in its house), each bet paid (its coin on the Werewolf's player, nothing on anyone
    else, 1 for a seal never used), and a tie for most points broken for the
    player closest clockwise to the Burgomaster."""
    lb: LupusburgState = state.rules
    wolf = lb.seat_of(WEREWOLF)
    bets = {bettor: (target, coin) for bettor, target, coin in lb.bets}
    events = []
    for seat in range(state.seats):
        if seat == wolf:
            continue
        chest = {"seat": seat, "house": lb.chests[seat], "points": table[seat]["chest"]}
        events.append(rulings.ruling("chest_scored", chest))
        target, coin = bets.get(seat, (None, None))
        rule = "seal" if target is None else "werewolf" if target == wolf else "missed"
        data = {"seat": seat, "target": target, "coin": coin, "points": table[seat]["bet"], "rule": rule}
        events.append(rulings.ruling("bet_paid", data))
    totals = {seat: sum(parts.values()) for seat, parts in table.items()}
    mayor = lb.burgomaster
    tied = sorted(
        (seat for seat in totals if totals[seat] == totals[best]), key=lambda seat: (seat - mayor) % state.seats
    )
    if len(tied) > 1:
        events.append(rulings.tie_broken("score", tied, (best,), "clockwise", mayor))
    return events


def _dealt(rules: LupusburgState, seat: int) -> Event:
    """A player's own hand, for them alone: the characters under their two houses, and
    the house of the chest."""
    hand = {
        "seat": seat,
        "houses": [2 * seat, 2 * seat + 1],
        "characters": [rules.characters[2 * seat], rules.characters[2 * seat + 1]],
        "chest": rules.chests[seat],
    }
    return Event("characters_dealt", hand, Audience.of(seat))


def _others(rules: LupusburgState, seat: int) -> tuple[int, ...]:
    """The living houses that are not `seat`'s."""
    return tuple(house for house, alive in enumerate(rules.living) if alive and house // 2 != seat)


def _night_slots(state: State) -> dict[int, Slot]:
    """Every seat hands in a card: the Thief (while he has a living character) a PEEK,
    the Werewolf a CLAW (at one of his own houses only while he holds both), everyone
    else SLEEP."""
    rules: LupusburgState = state.rules
    slots = dict.fromkeys(range(state.seats), SLEEPER)
    wolf = rules.seat_of(WEREWOLF)
    own = rules.alive_houses(wolf)
    victims = tuple(house for house, alive in enumerate(rules.living) if alive and (len(own) == 2 or house not in own))
    slots[wolf] = Slot(CLAW, (victims,))
    thief = rules.seat_of(THIEF)
    if rules.alive_houses(thief):
        slots[thief] = Slot(PEEK, (_others(rules, thief),))
    return slots


def _bettors(rules: Lupusburg, state: State) -> list[int]:
    """Who may still bet: every seat with its seal (the goals edition: holding a living
    character, while the stack lasts)."""
    lb: LupusburgState = state.rules
    if not lb.coins:
        return []
    return [seat for seat in range(state.seats) if not lb.has_bet(seat) and (not rules.goals or lb.alive_houses(seat))]


def _day_slots(rules: Lupusburg, state: State, step: int) -> dict[int, Slot]:
    lb: LupusburgState = state.rules
    seats = range(state.seats)
    mayor = lb.burgomaster
    if step == GOALS_STEP:
        if not rules.goals or not lb.goal_deck:
            return {}
        redraw = Slot(REDRAW, ())
        return {seat: redraw for seat in seats if lb.alive_houses(seat)}
    if step == PRIVILEGE_STEP:
        houses = _others(lb, mayor)
        players: tuple[int, ...] = ()
        if rules.goals:
            houses = tuple(house for house in houses if len(lb.alive_houses(house // 2)) == 2)
            players = tuple(seat for seat in seats if seat != mayor and lb.alive_houses(seat))
        if not houses and not players:
            return {}
        return {mayor: Slot(PRIVILEGE, (houses, players, lb.alive_houses(mayor)))}
    if step == SHOW_STEP:
        if lb.shower is None:
            return {}
        return {lb.shower: Slot(SHOW, (lb.alive_houses(lb.shower),))}
    if step == SWEEPER_STEP:
        holding = sum(1 for seat in seats if lb.alive_houses(seat))
        if not rules.goals or holding < SWEEPER_FROM:
            return {}
        return {mayor: Slot(BROOM, (tuple(seat for seat in seats if seat != mayor),))}
    if step == SWEEP_STEP:
        if lb.sweeper is None:
            return {}
        return {lb.sweeper: Slot(PEEK, (_others(lb, lb.sweeper),))}
    if step == BETS_STEP:
        keep = () if rules.goals else _KEEP
        return {
            seat: Slot(BET, (tuple(other for other in seats if other != seat), keep)) for seat in _bettors(rules, state)
        }
    if step == ACCUSATION_STEP:
        living = tuple(house for house, alive in enumerate(lb.living) if alive)
        accuse = Slot(ACCUSE, (living, living))
        return dict.fromkeys(seats, accuse)
    slots: dict[int, Slot] = {}
    for seat in seats:
        votes = _ballot_votes(lb, seat)
        if votes:
            slots[seat] = Slot(BALLOT, (lb.suspects, lb.suspects if votes == 2 else ()))
    return slots


def _ballot_votes(rules: LupusburgState, seat: int) -> int:
    """A seat's votes in the ballot: one for each living character not suspected."""
    return sum(1 for house in rules.alive_houses(seat) if house not in rules.suspects)


def _enter(rules: Lupusburg, state: State, step: int, rng: Random, events: list[Event]) -> State:
    """Open the first step from `step` on that asks someone: a step that asks nobody is
    skipped, a show that leaves no choice is made at once, and a ballot nobody may vote
    in is counted at once."""
    while True:
        lb: LupusburgState = state.rules
        if step == SHOW_STEP and lb.shower is not None and len(lb.alive_houses(lb.shower)) == 1:
            state = _show(state, None, rng, events)
            step += 1
            continue
        state = state.evolve(phase="day", step=step)
        if step == BALLOT_STEP and not _day_slots(rules, state, step):
            return _ballot(rules, state, {}, events)
        if _day_slots(rules, state, step):
            return state
        step += 1


# The night.


def _night(rules: Lupusburg, state: State, cards: Mapping[int, Order], rng: Random, events: list[Event]) -> State:
    """The Thief peeks first (he learns whether the house hides a chest), then the
    Werewolf's claw falls; at dawn the slaughtered character leaves with its house, and
    the end is judged."""
    lb: LupusburgState = state.rules
    thief = lb.seat_of(THIEF)
    peek = cards.get(thief)
    if peek is not None and peek.kind == PEEK.kind and peek.targets:
        house = peek.targets[0]
        data = {"seat": thief, "house": house, "chest": house in lb.chests, "by": "thief"}
        events.append(Event("house_seen", data, Audience.of(thief)))
        events.append(_chest_ruling(lb, thief, house, "thief"))
    wolf = lb.seat_of(WEREWOLF)
    claw = cards.get(wolf)
    victim: int | None = None
    if claw is not None and claw.kind == CLAW.kind and claw.targets:
        victim = claw.targets[0]
    elif state.options["missing_claw"] == "random":
        victim = rng.choice(_night_slots(state)[wolf].choices)
        events.append(_drawn("claw", wolf, victim))
    events.append(Event("claw_fell", {"house": victim}, Audience.of(wolf)))
    if victim is None:
        events.append(Event("dawn_no_death", {}, Audience.public()))
    else:
        state = rules.judge(rules.bury(state, rules.mourned(state, [(victim, "killed")]), events), events)
    if state.over:
        return state
    return _enter(rules, state, GOALS_STEP, rng, events)


# The day.


def _clockwise(state: State) -> list[int]:
    """The seats from the Burgomaster's, clockwise."""
    mayor = state.rules.burgomaster
    return [(mayor + distance) % state.seats for distance in range(state.seats)]


def _redraw(state: State, cards: Mapping[int, Order], events: list[Event]) -> State:
    """From the Burgomaster clockwise, each player who wrote REDRAW puts his goal under
    the deck and draws the top one. Everyone sees who changed; only he sees what he drew."""
    lb: LupusburgState = state.rules
    goals, pile = list(lb.goals), list(lb.goal_deck)
    for seat in _clockwise(state):
        card = cards.get(seat)
        if card is None or card.kind != REDRAW.kind or not pile:
            continue
        pile.append(goals[seat])
        goals[seat] = pile.pop(0)
        events.append(Event("goal_changed", {"seat": seat}, Audience.public()))
        events.append(Event("goal_drawn", {"seat": seat, "goal": goals[seat]}, Audience.of(seat)))
    return state.with_rules(goals=tuple(goals), goal_deck=tuple(pile))


def _shown(events: list[Event], seat: int, house: int, character: str, to: int) -> None:
    data = {"seat": seat, "house": house, "role": character, "to": to}
    events.append(Event("character_shown", data, Audience.of(to, seat)))


def _privilege(rules: Lupusburg, state: State, cards: Mapping[int, Order], rng: Random, events: list[Event]) -> State:
    """The Burgomaster names a character: he sees it, and shows its owner one of his own
    (BACK names which; without it one drawn at random). In the goals edition he may
    name a player instead (ASK), who then shows one of his living characters, his choice;
    a card naming both is read as naming the character. A blank card uses no privilege."""
    lb: LupusburgState = state.rules
    mayor = lb.burgomaster
    card = cards.get(mayor)
    house = card.field("targets") if card is not None and card.kind == PRIVILEGE.kind else ()
    player = card.field("player") if card is not None and card.kind == PRIVILEGE.kind else ()
    if house:
        target = house[0]
        owner = lb.owner(target)
        events.append(
            Event("privilege_used", {"burgomaster": mayor, "house": target, "player": owner}, Audience.public())
        )
        _shown(events, owner, target, lb.characters[target], mayor)
        own = lb.alive_houses(mayor)
        back = card.field("back") if card is not None else ()
        if own:
            chosen = back[0] if back else rng.choice(own)
            if not back:
                events.append(_drawn("back", mayor, chosen))
            _shown(events, mayor, chosen, lb.characters[chosen], owner)
        return state
    if player:
        events.append(
            Event("privilege_used", {"burgomaster": mayor, "house": None, "player": player[0]}, Audience.public())
        )
        return state.with_rules(shower=player[0])
    events.append(Event("privilege_unused", {"burgomaster": mayor}, Audience.public()))
    return state


def _show(state: State, card: Order | None, rng: Random, events: list[Event]) -> State:
    """The player the Burgomaster asked shows him one of his living characters: the one
    his SHOW card names, or, without a card, one drawn at random (the only one, if he
    has one left)."""
    lb: LupusburgState = state.rules
    seat = lb.shower
    if seat is None:
        return state
    own = lb.alive_houses(seat)
    if card is not None and card.kind == SHOW.kind and card.targets:
        house = card.targets[0]
    else:
        house = own[0] if len(own) == 1 else rng.choice(own)
        if len(own) > 1:
            events.append(_drawn("show", seat, house))
    _shown(events, seat, house, lb.characters[house], lb.burgomaster)
    return state.with_rules(shower=None)


def _sweeper(state: State, cards: Mapping[int, Order], rng: Random, events: list[Event]) -> State:
    """The Burgomaster hands the broom to another player (without a card, to one drawn
    at random): the Chimney Sweeper, who may look under one house."""
    lb: LupusburgState = state.rules
    card = cards.get(lb.burgomaster)
    if card is not None and card.kind == BROOM.kind and card.targets:
        sweeper = card.targets[0]
    else:
        sweeper = rng.choice([seat for seat in range(state.seats) if seat != lb.burgomaster])
        events.append(_drawn("sweeper", lb.burgomaster, sweeper))
    events.append(Event("sweeper_named", {"seat": sweeper, "burgomaster": lb.burgomaster}, Audience.public()))
    return state.with_rules(sweeper=sweeper)


def _sweep(state: State, cards: Mapping[int, Order], events: list[Event]) -> State:
    """The Chimney Sweeper learns, alone, whether the house he names hides a chest."""
    lb: LupusburgState = state.rules
    seat = lb.sweeper
    card = cards.get(seat) if seat is not None else None
    if seat is not None and card is not None and card.kind == PEEK.kind and card.targets:
        house = card.targets[0]
        data = {"seat": seat, "house": house, "chest": house in lb.chests, "by": "sweeper"}
        events.append(Event("house_seen", data, Audience.of(seat)))
        events.append(_chest_ruling(lb, seat, house, "sweeper"))
    return state.with_rules(sweeper=None)


def _bet(rules: Lupusburg, state: State, seat: int, card: Order, rng: Random, events: list[Event]) -> State:
    """Place a bet: the goals edition takes the top coin of the stack; the coin-bag
    edition draws three coins (all, if fewer are left) and keeps the one of the rank
    KEEP names among them (0 the highest, the default; past the last, the lowest), the
    others going back. Everyone sees who bet on whom; only the bettor sees the coins."""
    lb: LupusburgState = state.rules
    target = card.targets[0]
    coins = list(lb.coins)
    if rules.goals:
        coin = coins.pop()
        drawn, rank, source = [coin], 0, "stack"
    else:
        drawn = sorted(rng.sample(coins, min(3, len(coins))), reverse=True)
        keep = card.field("keep")
        rank, source = min(keep[0] if keep else 0, len(drawn) - 1), "bag"
        coin = drawn[rank]
        coins.remove(coin)
    bet: Bet = (seat, target, coin)
    events.append(Event("bet_placed", {"seat": seat, "target": target}, Audience.public()))
    events.append(Event("coin_kept", {"seat": seat, "coin": coin, "drawn": drawn}, Audience.of(seat)))
    data = {"seat": seat, "target": target, "drawn": drawn, "kept": coin, "rank": rank, "source": source}
    events.append(rulings.ruling("bag_draw", {**data, "left": len(coins)}))
    return state.with_rules(coins=tuple(coins), bets=(*lb.bets, bet))


def _late_bets(rules: Lupusburg, state: State, cards: Mapping[int, Order], rng: Random, events: list[Event]) -> State:
    """Bets still on hand when the step closes (handed in, not applied at once) are
    placed then, from the Burgomaster clockwise."""
    for seat in _clockwise(state):
        card = cards.get(seat)
        if card is not None and card.kind == BET.kind and seat in _bettors(rules, state):
            state = _bet(rules, state, seat, card, rng, events)
    return state


def _ranked(state: State, counts: Mapping[int, int], houses: Sequence[int]) -> list[int]:
    """`houses` by votes, most first; ties to the house closest clockwise to the
    Burgomaster's first house."""
    first = 2 * state.rules.burgomaster
    ring = 2 * state.seats
    return sorted(houses, key=lambda house: (-counts.get(house, 0), (house - first) % ring))


def _tally(cards: Mapping[int, Order]) -> tuple[list[list[int]], dict[int, int]]:
    votes: list[list[int]] = []
    counts: dict[int, int] = {}
    for seat, card in cards.items():
        placed = [*card.field("targets"), *card.field("also")]
        if placed:
            votes.append([seat, *placed])
        for house in placed:
            counts[house] = counts.get(house, 0) + 1
    return votes, counts


def _accusation(rules: Lupusburg, state: State, cards: Mapping[int, Order], rng: Random, events: list[Event]) -> State:
    """Every player places two votes on living characters (one may take both); the two
    with most are suspects, ties (at zero votes too) to the closest clockwise to the
    Burgomaster's first house. Then the ballot opens, or is counted at once when nobody
    has a vote in it."""
    lb: LupusburgState = state.rules
    votes, counts = _tally(cards)
    living = [house for house, alive in enumerate(lb.living) if alive]
    order = _ranked(state, counts, living)
    suspects = tuple(order[:2])
    ruled = rulings.cut_tie(order, lambda house: counts.get(house, 0), 2, "accusation", 2 * lb.burgomaster, "house")
    if ruled is not None:
        events.append(ruled)
    data = {
        "votes": votes,
        "tally": [[house, counts[house]] for house in _ranked(state, counts, list(counts))],
        "suspects": list(suspects),
        "owners": [lb.owner(house) for house in suspects],
        "from": 2 * lb.burgomaster,
    }
    events.append(Event("suspects_named", data, Audience.public()))
    state = state.with_rules(suspects=suspects)
    return _enter(rules, state, BALLOT_STEP, rng, events)


def _ballot(rules: Lupusburg, state: State, cards: Mapping[int, Order], events: list[Event]) -> State:
    """The ballots are revealed together; the suspect with most votes is lynched, a
    tie to the one closest clockwise to the Burgomaster's first house. Then the
    Burgomaster passes on and night falls, unless the game is over."""
    lb: LupusburgState = state.rules
    votes, counts = _tally(cards)
    suspects = lb.suspects
    lynched = _ranked(state, counts, suspects)[0]
    tie = len({counts.get(house, 0) for house in suspects}) == 1
    if tie and len(suspects) > 1:
        events.append(rulings.tie_broken("ballot", suspects, (lynched,), "clockwise", 2 * lb.burgomaster, "house"))
    data = {
        "ballots": votes,
        "tally": [[house, counts.get(house, 0)] for house in suspects],
        "lynched": lynched,
        "tie": tie,
        "from": 2 * lb.burgomaster,
    }
    events.append(Event("ballot_revealed", data, Audience.public()))
    state = rules.judge(rules.bury(state, rules.mourned(state, [(lynched, "lynched")]), events), events)
    state = state.with_rules(suspects=())
    if state.over:
        return state
    mayor = _next_burgomaster(rules, state)
    events.append(Event("burgomaster_passed", {"seat": mayor}, Audience.public()))
    return state.with_rules(burgomaster=mayor).evolve(phase="night", number=state.number + 1, step=1)


def _next_burgomaster(rules: Lupusburg, state: State) -> int:
    """The coin-bag edition passes the Burgomaster to the next player, whatever he holds;
    the goals edition to the next player holding a living character."""
    lb: LupusburgState = state.rules
    for distance in range(1, state.seats + 1):
        seat = (lb.burgomaster + distance) % state.seats
        if not rules.goals or lb.alive_houses(seat):
            return seat
    return lb.burgomaster


def _own_hand(memory: Memory, data: Mapping[str, Any]) -> None:
    for house, character in zip(data.get("houses", ()), data["characters"], strict=False):
        memory.characters[house] = character == WEREWOLF
    if WEREWOLF in data["characters"]:
        memory.pack.add(memory.seat)


def _character_seen(memory: Memory, data: Mapping[str, Any]) -> None:
    to = data.get("to", memory.seat)
    if data["seat"] == memory.seat:
        if to != memory.seat and data["role"] == WEREWOLF:
            memory.exposed.add(to)
        return
    if to != memory.seat:
        return
    if "to" in data:
        memory.characters[data["house"]] = data["role"] == WEREWOLF
    if data["role"] == WEREWOLF:
        found(memory, data["seat"], True)
    else:
        memory.trust[data["seat"]] += 1


def _housed(memory: Memory, data: Mapping[str, Any]) -> None:
    """Every player holds two houses, 2i and 2i + 1 for seat i (the ring's order)."""
    memory.houses = {house: house // 2 for house in range(2 * int(data["players"]))}


_LESSONS: Mapping[str, Lesson] = {
    **LESSONS,
    "game_set_up": _housed,
    "characters_dealt": _own_hand,
    "characters_drawn": _own_hand,
    "character_shown": _character_seen,
    "killed": _character_seen,
    "lynched": _character_seen,
}

_AIMS: Mapping[str, Aim] = {**AIMS, CLAW.kind: "hostile", PRIVILEGE.kind: "probe"}

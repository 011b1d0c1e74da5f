"""Replay of a game record: every play re-applied to a fresh engine, and every field that follows from the
plays re-derived and compared (deal results, faults against illegal plays, fallback plays, ranks, the order
of the lines). What cannot be re-derived (limits, bot commands, names, timings) only a signature protects."""

from collections.abc import Callable
from typing import Any

import msgspec

from protocol import messages as m
from protocol.messages import op_from_builtins
from referee.records import (
    DETAIL_LENGTH,
    RecordInterrupted,
    ReplayError,
    _Action,
    _fields,
    _Interrupted,
    _new_game,
    _Result,
    _Seated,
    _Totals,
    final_ranks,
)
from referee.rules.errors import IllegalAction

# a deal_over's fields and the value omitted when it is the default (the message omits defaults)
DEAL_FIELDS: dict[str, Any] = {"deal": None, "winner": None, "scores": None, "totals": None, "hands": [], "detail": {}}
FINAL = ("result", "interrupted")


class Replay:
    """The state of one replay: the engine, and what the lines so far say about each seat."""

    def __init__(self, head: dict):
        self.game = _new_game(head)
        self.version = head["record_version"]
        n = self.game.n
        self.retries = _retries(head, n)
        self.fault_at: list[int | None] = [None] * n  # line of each seat's fault
        self.fault_kind: list[str | None] = [None] * n
        self.streak = [0] * n  # consecutive illegal plays for the seat's current decision
        self.owed: tuple[int, int, str] | None = None  # (seat, line, detail) of the fault an illegal play calls for
        self.ready: set[int] = set()
        self.deals = 0  # deal results matched by deal_over lines
        self.ended_at = 0  # line of the last play, whose deal_over may be owed
        self.acted = self.tails = False

    def run(self, lines: list[dict], after: Callable[[int, dict], None] | None = None) -> dict[str, Any]:
        """Check every line after the header, calling `after(n, line)` once line n is applied (`romis view`); the
        replayed result (RecordInterrupted if the match stopped)."""
        for n, line in enumerate(lines[1:], 2):
            kind = line.get("type")
            if not isinstance(kind, str):  # a mutated record may put any JSON value there
                raise ReplayError(f"line {n}: the line type is not a string")
            self._check_order(n, kind)
            if kind in FINAL:
                self._nothing_after(lines, n)
            handler = getattr(self, f"_{kind}", None) if kind in LINE_TYPES else None
            if handler is None:
                raise ReplayError(f"line {n}: unknown line type {kind!r}")
            handler(line, n)
            if after is not None:
                after(n, line)
            if kind in FINAL:
                g = self.game
                return {"variant": g.slug, "seed": g.seed, "totals": g.totals, "deals": self.deals, "lines": len(lines)}
        if self.owed:
            raise ReplayError(f"the record ends before seat {self.owed[0]}'s fault for its illegal play")
        if self.deals < len(self.game.deal_results):
            raise ReplayError(f"the record ends before the deal_over of deal {self.deals} (the deal ends on replay)")
        raise ReplayError("the record ends before the match result")

    def _check_order(self, n: int, kind: Any) -> None:
        """Lines the referee writes at fixed places: a fault right after the illegal play that causes it, a deal's
        deal_over before the next play, one header, stderr tails at the end."""
        if self.owed and kind != "fault":
            seat, at, _ = self.owed
            raise ReplayError(f"line {n}: seat {seat}'s illegal play on line {at} is not followed by its fault")
        if kind == "header":
            raise ReplayError(f"line {n}: a second header (a record has one, on line 1)")
        # not checked for stderr tails: a match stopped between a deal's last play and its deal_over has them
        if self.deals < len(self.game.deal_results) and kind in ("action", "result"):
            raise ReplayError(
                f"line {n}: the deal_over of deal {self.deals} is missing (the deal ends on replay at line "
                f"{self.ended_at})"
            )
        if self.tails and kind not in ("stderr", *FINAL):
            raise ReplayError(f"line {n}: a {_shown(kind)} line after the stderr tails (they are written at the end)")

    def _nothing_after(self, lines: list[dict], n: int) -> None:
        # version 1 wrote the stderr tails, and faults found while saying goodbye, after the result
        allowed = ("stderr", "fault") if self.version == 1 else ()
        for k, line in enumerate(lines[n:], n + 1):
            if line.get("type") not in allowed:
                last = lines[n - 1]["type"]
                raise ReplayError(f"line {k}: a {_shown(line.get('type'))} line after the {last} line {n}")

    def _seat(self, line: dict, n: int) -> _Seated:
        fields = _fields(line, _Seated, n)
        if not 0 <= fields.seat < self.game.n:
            raise ReplayError(f"line {n}: seat {fields.seat} does not exist (the match has {self.game.n} seats)")
        return fields

    def _ready(self, line: dict, n: int) -> None:
        fields = self._seat(line, n)
        if fields.seat in self.ready or self.acted:
            raise ReplayError(f"line {n}: a second ready line for seat {fields.seat}, or one after play began")
        if fields.fault != self.fault_kind[fields.seat]:
            raise ReplayError(f"line {n}: seat {fields.seat}'s ready line and its fault lines disagree")
        self.ready.add(fields.seat)

    def _fault(self, line: dict, n: int) -> None:
        fields = self._seat(line, n)
        seat = fields.seat
        if self.fault_at[seat] is not None:
            raise ReplayError(f"line {n}: a second fault for seat {seat} (the first is on line {self.fault_at[seat]})")
        if fields.kind == "illegal" or (self.owed and self.owed[0] == seat):
            self._illegal_fault(fields, n)
        self.fault_at[seat], self.fault_kind[seat] = n, fields.kind

    def _illegal_fault(self, fields: _Seated, n: int) -> None:
        """An illegal-play fault follows the play that exhausted the retries, and repeats the rule it broke."""
        if self.owed is None or self.owed[0] != fields.seat:
            raise ReplayError(f"line {n}: an illegal-play fault of seat {fields.seat} that no play on replay explains")
        if fields.kind != "illegal" or fields.detail != self.owed[2]:
            raise ReplayError(
                f"line {n}: seat {fields.seat}'s fault differs on replay: recorded {fields.kind} "
                f"({fields.detail!r}), replayed illegal ({self.owed[2]!r})"
            )
        self.owed = None

    def _stale(self, line: dict, n: int) -> None:
        self._seat(line, n)

    def _stderr(self, line: dict, n: int) -> None:
        self._seat(line, n)
        self.tails = True

    def _action(self, line: dict, n: int) -> None:
        play, g = _fields(line, _Action, n), self.game
        missing = sorted(set(range(g.n)) - self.ready)
        if missing:
            raise ReplayError(f"line {n}: a play before seat {missing[0]}'s ready line")
        self.acted = True
        if not 0 <= play.seat < g.n or play.seat not in g.to_act():
            raise ReplayError(f"line {n}: seat {play.seat} is not asked to act here on replay")
        asked = g.decision(play.seat)
        for name, value in (("kind", asked.kind), ("phase", asked.phase)):
            here = getattr(play, name)
            if here not in (None, value):
                raise ReplayError(f"line {n}: the decision's {name} is {value!r} on replay, {here!r} here")
        self._check_verdict(play, n)
        deals = len(g.deal_results)
        self._apply(play, n)
        if len(g.deal_results) > deals:
            self.ended_at = n

    def _check_verdict(self, play: _Action, n: int) -> None:
        """A fallback play only for a seat with a recorded fault, and the play the referee's policy makes."""
        seat, faulted = play.seat, self.fault_at[play.seat]
        if play.verdict == "fallback":
            if faulted is None:
                raise ReplayError(f"line {n}: a fallback play for seat {seat}, which has no fault recorded before it")
            expected = m.to_builtins(self.game.fallback(seat))
            if play.ops != expected:
                raise ReplayError(f"line {n}: seat {seat}'s fallback play is {expected} on replay, {play.ops} here")
        elif faulted is not None:
            raise ReplayError(f"line {n}: seat {seat} plays ({play.verdict!r}) after its fault on line {faulted}")

    def _apply(self, play: _Action, n: int) -> None:
        """Apply the play; it must be accepted or rejected as recorded, and a rejection may call for a fault."""
        try:
            ops = [op_from_builtins(o) for o in play.ops]
        except (msgspec.ValidationError, RecursionError) as e:
            raise ReplayError(f"line {n}: unreadable ops ({e})") from None
        error = None
        try:
            self.game.apply(play.seat, ops)
        except IllegalAction as e:
            error = e
        expected = None if play.verdict in ("ok", "fallback") else play.verdict
        if (error is None) != (expected is None) or (error is not None and expected != f"illegal:{error.rule}"):
            what = "accepted" if error is None else f"rejected ({error.rule})"
            raise ReplayError(f"line {n}: the play of seat {play.seat} is {what} on replay but was {play.verdict!r}")
        if error is None:
            self.streak[play.seat] = 0
            return
        self.streak[play.seat] += 1
        if self.streak[play.seat] > self.retries[play.seat]:
            from referee.match import printable

            self.owed = (play.seat, n, printable(str(error), DETAIL_LENGTH))

    def _deal_over(self, line: dict, n: int) -> None:
        _fields(line, _Totals, n)
        results = self.game.deal_results
        if self.deals >= len(results):
            raise ReplayError(f"line {n}: a deal_over for deal {line.get('deal')}, but no deal ends here on replay")
        expected = m.to_builtins(m.DealOver.of(results[self.deals]))
        for name, default in DEAL_FIELDS.items():
            mine, theirs = expected.get(name, default), line.get(name, default)
            if mine != theirs:
                deal = line.get("deal")
                what = f"{name} {theirs} here, {mine} replayed"
                raise ReplayError(f"line {n}: deal {deal} result differs on replay: {what}")
        extra = sorted(set(line) - set(DEAL_FIELDS) - {"type"})
        if extra:
            raise ReplayError(f"line {n}: deal_over with a field the referee does not write: {extra[0]!r}")
        self.deals += 1

    def _result(self, line: dict, n: int) -> None:
        res, g = _fields(line, _Result, n), self.game
        if not g.is_over() or g.totals != res.totals:
            raise ReplayError(f"line {n}: final totals differ on replay ({g.totals} vs {res.totals})")
        faults = self.fault_kind
        if (self.version >= 2 or res.faults is not None) and res.faults != faults:
            raise ReplayError(f"line {n}: the result's faults are {res.faults}, the fault lines say {faults}")
        ranks = final_ranks(g, [f is not None for f in faults])
        if (self.version >= 2 or res.ranks is not None) and res.ranks != ranks:
            raise ReplayError(f"line {n}: the result's ranks are {res.ranks}, {ranks} on replay")

    def _interrupted(self, line: dict, n: int) -> None:
        deal = _fields(line, _Interrupted, n).deal
        if deal != self.game.deal_no:
            at = self.game.deal_no + 1
            raise ReplayError(f"line {n}: interrupted at deal {deal + 1}, but the replay is at deal {at}")
        raise RecordInterrupted(deal)


LINE_TYPES = {"ready", "fault", "stale", "stderr", "action", "deal_over", "result", "interrupted"}


def _shown(kind: Any) -> str:
    """A line type for a message: known ones as they are, anything else quoted (it comes from the file)."""
    return kind if kind in LINE_TYPES or kind == "header" else repr(kind)


def _retries(head: dict, n: int) -> list[int]:
    """Each seat's retries (illegal plays it may retry per decision), which decide where faults fall: the
    header's limits.retries, unless the seat's entry names its own (a human seat's, referee/play.py)."""
    limits = head.get("limits")
    default = limits.get("retries", 0) if isinstance(limits, dict) else 0
    seats = head.get("seats")
    seats = seats if isinstance(seats, list) else []
    out = []
    for i in range(n):
        entry = seats[i] if i < len(seats) and isinstance(seats[i], dict) else {}
        retries, where = (
            (entry["retries"], f"seats[{i}].retries") if "retries" in entry else (default, "limits.retries")
        )
        if not isinstance(retries, int) or isinstance(retries, bool) or retries < 0:
            raise ReplayError(f"line 1: {where} is {retries!r}, not a count")
        out.append(retries)
    return out

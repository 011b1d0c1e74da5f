"""`romis play` as a plain function: set up a game, its record and its bots, run the match."""

import math
import os
import random
import shlex
import signal
import statistics
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import trio

from protocol.messages import PROTOCOL_VERSION
from referee.match import Match
from referee.process import sandbox as sandboxes
from referee.process.runner import CLOCKS, Limits
from referee.process.sandbox import NONE, SANDBOX_VAR, Box, sandbox_mode
from referee.records import RecordError, RecordWriter, load_key
from referee.rules.errors import ConfigError
from referee.rules.variants import find_variant


class Interrupted(KeyboardInterrupt):
    """The match was stopped by a signal (Ctrl-C, or one of `stop_on`); every bot is gone by then."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def romis_version() -> str:
    """The installed romis version."""
    try:
        return version("romis")
    except PackageNotFoundError:
        return "0+unknown"


@dataclass
class Outcome:
    """A finished match as `romis play` reports it."""

    variant: str
    seed: int
    options: dict[str, Any]
    result: dict[str, Any]

    def summary(self, timings: bool = False) -> dict[str, Any]:
        """JSON-ready result; timing figures only when asked, so the same seed prints identical JSON."""
        seats = []
        for i, s in enumerate(self.result["seats"]):
            score = self.result["totals"][i]
            row = {
                "seat": i,
                "bot": s.command,
                "name": s.name,
                "score": _number(score),
                "rank": self.result["ranks"][i],
                "fault": s.fault,
            }
            if "penalties" in self.result:  # may-i: bonus points rank first, then the fewest penalty points
                row["penalty"] = self.result["penalties"][i]
            if s.fault:
                row["fault_detail"] = s.fault_detail
            if timings:
                row["timings"] = timing_summary(s.walls, s.cpus)
            seats.append(row)
        out = {"variant": self.variant, "seed": self.seed, "deals": len(self.result["deals"]), "seats": seats}
        if self.result.get("unit") == "chips":  # a chips game: the scores are net chips; the bank left over
            out.update(unit="chips", bank=self.result["bank"])
        if "teams" in self.result:  # partnerships (persian): each side's seats, total and rank
            out["teams"] = [{**t, "total": _number(t["total"])} for t in self.result["teams"]]
        return out


def _number(value: float) -> float:
    """A whole number as an int, so that JSON shows 206 rather than 206.0."""
    return int(value) if value == int(value) else value


def timing_summary(walls: list[float], cpus: list[float]) -> dict[str, Any]:
    """Decisions, mean, p95 and max wall seconds, and total CPU seconds of one seat."""
    if not walls:
        return {"decisions": 0}
    ordered = sorted(walls)
    return {
        "decisions": len(walls),
        "wall_mean": statistics.fmean(walls),
        "wall_p95": ordered[int(0.95 * (len(ordered) - 1))],
        "wall_max": ordered[-1],
        "cpu_total": sum(cpus),
    }


def flag_name(key: str) -> str:
    """The command-line spelling of a limit: move_time -> --move-time."""
    return "--" + key.replace("_", "-")


def check_limits(limits: Mapping[str, float], spell: Callable[[str], str] = flag_name) -> None:
    """ConfigError unless every time limit is a finite number of seconds, above 0 (the bank may be 0: no
    overruns), each named in the error as `spell` writes it."""
    for key, value in limits.items():
        floor = "at least 0" if key == "bank" else "more than 0"
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        if not ok or value < 0 or (value == 0 and key != "bank"):
            shown = f"{value:g}" if ok or isinstance(value, float) else repr(value)
            raise ConfigError(f"{spell(key)} must be a number of seconds {floor}, got {shown}")


def check_clock(clock: Any, pause_idle: Any, spell: Callable[[str], str] = flag_name) -> None:
    """ConfigError unless `clock` is one of CLOCKS and `pause_idle` a boolean, each named as `spell` writes it."""
    if clock not in CLOCKS:
        raise ConfigError(f"{spell('clock')} must be {' or '.join(CLOCKS)}, got {clock!r}")
    if not isinstance(pause_idle, bool):
        raise ConfigError(f"{spell('pause_idle')} must be true or false, got {pause_idle!r}")


def play_match(
    variant: str,
    commands: list[str],
    seed: int,
    options: dict[str, Any],
    record: Path | None,
    move_time: float = 2.0,
    bank: float = 30.0,
    startup_time: float = 10.0,
    retries: int = 0,
    stop_on: tuple[int, ...] = (),
    sign_key: Path | None = None,
    sandbox: str | None = None,
    boxes: list[Box] | None = None,
    clock: str = "wall",
    pause_idle: bool = False,
    cwds: list[str | None] | None = None,
    shutdown_grace: float = 1.0,
) -> Outcome:
    """Play one match; ConfigError for bad input before any bot starts; Interrupted (a KeyboardInterrupt) on
    Ctrl-C or `stop_on`."""
    match = new_match(
        variant,
        commands,
        seed,
        options,
        record,
        move_time,
        bank,
        startup_time,
        retries,
        sign_key=sign_key,
        sandbox=sandbox,
        boxes=boxes,
        clock=clock,
        pause_idle=pause_idle,
        shutdown_grace=shutdown_grace,
    )
    if cwds is not None:  # the bots' own directories (a tournament's Dask worker runs a shipped folder there)
        match.cwds = list(cwds)
    return run_match(match, stop_on)


def new_match(
    variant: str,
    commands: list[str],
    seed: int,
    options: dict[str, Any],
    record: Path | None,
    move_time: float = 2.0,
    bank: float = 30.0,
    startup_time: float = 10.0,
    retries: int = 0,
    sign_key: Path | None = None,
    sandbox: str | None = None,
    boxes: list[Box] | None = None,
    clock: str = "wall",
    pause_idle: bool = False,
    shutdown_grace: float = 1.0,
) -> Match:
    """A match ready to run, its record file open (signed with the bytes of `sign_key`, if given); ConfigError for
    bad input (and then no file is written).

    `sandbox`: auto, bwrap or none (None: $ROMIS_SANDBOX, else auto: bwrap, or a ConfigError where the machine
    cannot sandbox); `boxes`: what each seat's sandbox allows beyond the default (network, a writable folder,
    more paths)."""
    cls = find_variant(variant)
    cls.check_players(len(commands), "bots", " (--bot once per seat)")
    check_limits({"move_time": move_time, "bank": bank, "startup_time": startup_time})
    if retries < 0:
        raise ConfigError(f"--retries must be 0 or more, got {retries}")
    check_clock(clock, pause_idle)
    if not 0 <= shutdown_grace <= 3600:  # NaN fails too
        raise ConfigError(f"--shutdown-grace must be a number of seconds from 0 to 3600, got {shutdown_grace}")
    game = cls(len(commands), options, seed)
    mode = sandbox_mode(sandbox, "--sandbox" if sandbox is not None else SANDBOX_VAR)
    boxes = check_boxes(boxes, len(commands))
    limits = Limits(
        move_time=move_time,
        bank=bank,
        startup_time=startup_time,
        sandbox=mode,
        clock=clock,
        pause_idle=pause_idle,
        shutdown_grace=shutdown_grace,
    )
    match = Match(game, _human_commands(commands), limits, retries)  # checks the commands before the record
    match.boxes = boxes
    for i, (seat, command) in enumerate(zip(match.seats, commands)):
        if command == HUMAN:  # no clock to speak of, and an illegal play is asked again, never forfeited
            seat.command, seat.bank, seat.retries = HUMAN, HUMAN_BANK, HUMAN_RETRIES
            # romis's own program at the organiser's terminal, which it must open: contained, not sandboxed
            match.boxes[i] = Box(sandbox=sandbox_mode(NONE))
    if sign_key is not None and not record:
        raise ConfigError("--sign-key signs the game record: give --record FILE too")
    key = load_key(sign_key) if sign_key is not None else None
    if record:
        header = {
            "romis": romis_version(),
            "protocol": PROTOCOL_VERSION,
            "variant": cls.slug,
            "rules_version": cls.rules_version,
            "options": game.opts,
            "seed": seed,
            "seats": [{"bot": c, **({"retries": HUMAN_RETRIES} if c == HUMAN else {})} for c in commands],
            "limits": {
                "move_time": move_time,
                "bank": bank,
                "startup_time": startup_time,
                "retries": retries,
                "clock": clock,
                "pause_idle": pause_idle,
            },
            "sandbox": sandboxes.header(mode, [i for i, b in enumerate(boxes) if b.network]),
        }
        try:
            match.record = RecordWriter(record, header, key)
        except OSError as e:
            raise ConfigError(f"cannot write record {record}: {e.strerror}") from None
    return match


def secret_seed() -> int:
    """A master seed no one can guess (62 bits from the system's generator): deals that a bot cannot rebuild by
    trying likely seeds with romis's own engine."""
    return random.SystemRandom().randrange(2**62)


def check_boxes(boxes: list[Box] | None, seats: int) -> list[Box]:
    """One box per seat (the default where none is given); ConfigError for a path a bot is to read that does not
    exist."""
    boxes = list(boxes) if boxes is not None else [Box()] * seats
    if len(boxes) != seats:
        raise ConfigError(f"{len(boxes)} sandbox settings for {seats} seats")
    for box in boxes:
        for path in box.paths:
            if not os.path.isabs(path) or not os.path.exists(path):
                raise ConfigError(f"a bot's extra path {path!r} must be an absolute path that exists")
    return boxes


HUMAN = "human"  # `--bot human`: a person at this terminal takes the seat (referee/human.py)
HUMAN_BANK = 86400.0  # a day of thinking time per match
HUMAN_RETRIES = 10**6


def _human_commands(commands: list[str]) -> list[str]:
    """The commands with `human` replaced by the terminal seat on romis's own terminal; ConfigError without one."""
    humans = commands.count(HUMAN)
    if not humans:
        return commands
    if humans > 1:  # simultaneous decisions (claims) would ask two people on one keyboard at once
        raise ConfigError("--bot human: one human seat per terminal (the seats would share one screen)")
    if not sys.stdin.isatty():
        raise ConfigError("--bot human needs a terminal: the standard input of romis play is not one")
    seat = f"python -m referee.human --tty {shlex.quote(os.ttyname(sys.stdin.fileno()))}"
    return [seat if c == HUMAN else c for c in commands]


def run_match(match: Match, stop_on: tuple[int, ...] = ()) -> Outcome:
    """Run a match to its end; Interrupted on Ctrl-C or one of the signals `stop_on` (the bots are gone then)."""
    stopped_by: list[int] = []
    try:
        result = trio.run(_run_until, match, stop_on, stopped_by)
    except (KeyboardInterrupt, BaseExceptionGroup) as e:  # trio's nurseries may wrap Ctrl-C
        if isinstance(e, KeyboardInterrupt) or e.subgroup(KeyboardInterrupt):
            raise Interrupted(signal.SIGINT) from None
        if disk := _record_error(e):  # the record's disk is full or read-only: one line, not a traceback
            raise disk from None
        raise
    if result is None:
        raise Interrupted(stopped_by[0])
    game = match.game
    return Outcome(game.slug, game.seed, game.opts, result)


def _record_error(group: BaseExceptionGroup) -> RecordError | None:
    """The first RecordError inside a group raised by a match's nurseries, if there is one."""
    found: BaseException | None = group.subgroup(RecordError)
    while isinstance(found, BaseExceptionGroup):
        found = found.exceptions[0]
    return found if isinstance(found, RecordError) else None


async def _run_until(match: Match, stop_on: tuple[int, ...], stopped_by: list[int]) -> dict[str, Any] | None:
    """Run the match; None if one of the signals `stop_on` arrived first (the match is then cancelled cleanly
    and the signal is appended to `stopped_by`)."""
    if not stop_on:
        return await match.run()
    result = None
    async with trio.open_nursery() as nursery:

        async def watch() -> None:
            with trio.open_signal_receiver(*stop_on) as signals:
                async for signum in signals:
                    stopped_by.append(signum)
                    nursery.cancel_scope.cancel()

        nursery.start_soon(watch)
        result = await match.run()
        nursery.cancel_scope.cancel()
    return result


def deal_line(deal: dict[str, Any]) -> str:
    """One finished deal: who won, the deal's scores and the totals after it."""
    who = f"seat {deal['winner']} won" if deal["winner"] is not None else "no winner"
    if len(deal.get("winners", [])) > 1:  # two-candles: tied deal winners all win
        who = f"seats {', '.join(map(str, deal['winners']))} tied for the win"
    line = f"deal {deal['deal'] + 1}: {who}; scores {deal['scores']} -> totals {deal['totals']}"
    if "penalties" in deal:
        line += f"; penalties {deal['penalties']} -> {deal['penalty_totals']}"
    if "bank" in deal:  # a chips game: the scores are net chips, and the bank carries over
        line += f"; bank {deal['bank']}" + (" (void: antes returned)" if deal.get("void") else "")
    if "teams" in deal:  # partnerships: the sides' deal scores, in the order of the result's teams
        line += f"; partnerships {' vs '.join(f'{t:g}' for t in deal['teams'])}"
    if "match_bonus" in deal:  # persian: the side ahead after the last deal, in the scores and totals
        line += f" (match bonus {' vs '.join(f'{t:g}' for t in deal['match_bonus'])})"
    return line


def render_text(out: Outcome, deals: bool = True) -> str:
    """A readable account of a finished match (`deals`: with a line per deal)."""
    lines = [f"{out.variant}, seed {out.seed}: {len(out.result['deals'])} deal(s)"]
    if deals:
        lines += ["  " + deal_line(d) for d in out.result["deals"]]
    seats = out.result["seats"]
    penalties = out.result.get("penalties")  # may-i: a second column, which breaks ties on the first
    chips = out.result.get("unit") == "chips"  # a chips game: the score column is net chips
    rows = [("rank", "seat", "chips" if chips else "score" if penalties is None else "bonus/penalty", "bot", "fault")]
    for i in sorted(range(len(seats)), key=lambda i: (out.result["ranks"][i], i)):
        s = seats[i]
        rows.append(
            (
                str(out.result["ranks"][i]),
                str(i),
                f"{out.result['totals'][i]:g}" + ("" if penalties is None else f"/{penalties[i]:g}"),
                f"{s.name or '?'} ({s.command})",
                f"{s.fault}: {s.fault_detail}" if s.fault else "-",
            )
        )
    widths = [max(len(r[k]) for r in rows) for k in range(4)]
    lines.append("")
    lines += [
        "  ".join(c.ljust(w) if k == 3 else c.rjust(w) for k, (c, w) in enumerate(zip(r, widths + [0]))).rstrip()
        for r in rows
    ]
    played = out.result["deals"]
    bonus = played[-1].get("match_bonus") if played else None
    if chips:
        lines.append(f"bank: {out.result['bank']} chip(s) left")
    return "\n".join(lines + team_lines(out.result.get("teams", []), bonus))


def team_lines(teams: list[dict[str, Any]], bonus: list[float] | None = None) -> list[str]:
    """The partnerships' totals, best first, each with the seats that form it and the match bonus it received
    (`bonus`, by team; no lines without partnerships)."""
    if not teams:
        return []
    rows = sorted(teams, key=lambda t: t["rank"])
    seats = [", ".join(map(str, t["seats"])) for t in rows]
    width = max(map(len, seats))
    out = ["", "partnerships:"]
    for t, s in zip(rows, seats):
        extra = bonus[teams.index(t)] if bonus else 0
        out.append(
            f"  rank {t['rank']}  seats {s.ljust(width)}  total {t['total']:g}"
            + (f" (match bonus {extra:g} included)" if extra else "")
        )
    return out

"""`romis play` as a plain function: set up a game, its record and its bots, run the match."""

import statistics
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import trio

from protocol.messages import PROTOCOL_VERSION
from referee.match import Match
from referee.records import RecordWriter
from referee.rules.errors import ConfigError
from referee.rules.variants import find_variant
from referee.runner import Limits


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
                "score": int(score) if score == int(score) else score,
                "rank": self.result["ranks"][i],
                "fault": s.fault,
            }
            if s.fault:
                row["fault_detail"] = s.fault_detail
            if timings:
                row["timings"] = timing_summary(s.walls, s.cpus)
            seats.append(row)
        return {"variant": self.variant, "seed": self.seed, "deals": len(self.result["deals"]), "seats": seats}


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
) -> Outcome:
    """Play one match; ConfigError for bad input before any bot starts; KeyboardInterrupt on Ctrl-C or `stop_on`."""
    cls = find_variant(variant)
    if not cls.min_players <= len(commands) <= cls.max_players:
        raise ConfigError(
            f"{cls.slug} needs {cls.min_players}-{cls.max_players} bots, got {len(commands)} (--bot once per seat)"
        )
    if min(move_time, bank, startup_time) < 0 or retries < 0:
        raise ConfigError("time limits and --retries must not be negative")
    game = cls(len(commands), options, seed)
    limits = Limits(move_time=move_time, bank=bank, startup_time=startup_time)
    writer = None
    if record:
        header = {
            "romis": romis_version(),
            "protocol": PROTOCOL_VERSION,
            "variant": cls.slug,
            "rules_version": cls.rules_version,
            "options": game.opts,
            "seed": seed,
            "seats": [{"bot": c} for c in commands],
            "limits": {"move_time": move_time, "bank": bank, "startup_time": startup_time, "retries": retries},
        }
        try:
            writer = RecordWriter(record, header)
        except OSError as e:
            raise ConfigError(f"cannot write record {record}: {e.strerror}") from None
    match = Match(game, commands, limits, retries, writer)
    try:
        result = trio.run(_run_until, match, stop_on)
    except BaseExceptionGroup as group:  # trio's nurseries wrap Ctrl-C; the bots are already gone
        if group.subgroup(KeyboardInterrupt):
            raise KeyboardInterrupt from None
        raise
    if result is None:
        raise KeyboardInterrupt  # stopped by one of `stop_on`: the bots are gone
    return Outcome(cls.slug, seed, game.opts, result)


async def _run_until(match: Match, stop_on: tuple[int, ...]) -> dict[str, Any] | None:
    """Run the match; None if one of the signals `stop_on` arrived first (the match is then cancelled cleanly)."""
    if not stop_on:
        return await match.run()
    result = None
    async with trio.open_nursery() as nursery:

        async def watch() -> None:
            with trio.open_signal_receiver(*stop_on) as signals:
                async for _ in signals:
                    nursery.cancel_scope.cancel()

        nursery.start_soon(watch)
        result = await match.run()
        nursery.cancel_scope.cancel()
    return result


def render_text(out: Outcome) -> str:
    """A readable account of a finished match."""
    lines = [f"{out.variant}, seed {out.seed}: {len(out.result['deals'])} deal(s)"]
    for d in out.result["deals"]:
        who = f"seat {d['winner']} won" if d["winner"] is not None else "no winner"
        lines.append(f"  deal {d['deal'] + 1}: {who}; scores {d['scores']} -> totals {d['totals']}")
    seats = out.result["seats"]
    rows = [("rank", "seat", "score", "bot", "fault")]
    for i in sorted(range(len(seats)), key=lambda i: (out.result["ranks"][i], i)):
        s = seats[i]
        rows.append(
            (
                str(out.result["ranks"][i]),
                str(i),
                f"{out.result['totals'][i]:g}",
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
    return "\n".join(lines)

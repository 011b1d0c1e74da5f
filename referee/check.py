"""`romis check`: a conformance run for one bot (handshake, a seeded match per variant, crafted rare positions).

The bot takes seat 0; the other seats are played in-process by the engine's `fallback`, so only the bot is judged.
Crafted positions are reached by a seeded playout in-process (the sample brain: random in seat 0, greedy in the
others, which gets deals scored, seats in trouble and rounds final) up to the first time seat 0 meets each decision
kind; the bot then starts there, sees every event so far, and answers that decision. Kinds that play at the smallest
table seldom reaches are searched for at the tables the variant names in `Game.CHECK_TABLES` (more seats, options,
a rigged first deal); a declared kind that no table reaches is reported as not reached.

Process hygiene is judged too (HYGIENE): the bot is run under the subreaper, not in a PID namespace, so that what it
leaves behind outlives it long enough to be seen (and is killed then, as always).
"""

import copy
import json
import statistics
from typing import Any
from xml.etree import ElementTree as ET

import trio

from protocol import messages as m
from referee.match import Match, Pending, Seat, split_command
from referee.process.reaper import guard
from referee.process.runner import BotGroup, BotProcess, Limits, session_procs
from referee.process.sandbox import BWRAP, NONE, SANDBOX_VAR, Box, sandbox_mode
from referee.process.spawn import PIDNS, SUBREAPER, proc_stat
from referee.rules.engine import Game
from referee.rules.errors import IllegalAction
from referee.rules.variants import find_variant

SHORT = {"max_deals": 1, "max_turns_per_deal": 60}  # the ordinary match: one short deal
SEARCH = {"max_deals": 30, "max_turns_per_deal": 60}  # the playout that looks for rare decisions
SEARCH_STEPS = 20000  # decisions of one search playout at most
SEARCHES = 4  # search playouts per table at most (seeds seed, seed + 1, ...)
STOP_GRACE = 2.0  # seconds a bot has to exit once told to shut down
# a timeout during which the bot's CPU time was more than this share of the wall time is busy-waiting (low: on a
# loaded machine a spinning bot gets a small share of a core; a sleeping one uses next to none)
BUSY = 0.1
STDERR_FLOOD = 1 << 20  # bytes of stderr in one run that make a flood
# the process hygiene findings, with what each means (docs/bots.md)
HYGIENE = {
    "ignores_shutdown": "still running after being told to shut down",
    "left_processes": "processes of the bot still running after it exited",
    "stale_reply": "replies with an old or unknown id (or a second ready)",
    "stderr_flood": "more than 1 MB written to stderr in one run",
    "busy_wait": "burned CPU through a timeout instead of answering",
}
Table = dict[str, Any]  # a table to search: players, options, rig (Game.CHECK_TABLES)


def label(decision: m.Decision) -> str:
    """The decision kind as the report names it: kind/phase, marked when it is a final round or turn."""
    final = decision.constraints.get("final_round") or decision.constraints.get("final_turn")
    return f"{decision.kind}/{decision.phase}" + ("/final" if final else "")


def base(kind: str) -> str:
    """A report label without its final-round mark: the declared kind/phase (a phase may be named final itself)."""
    return kind.removesuffix("/final") if kind.count("/") == 2 else kind


class CheckMatch(Match):
    """A match with the bot in seat 0 only; the other seats play the fallback. It notes each of the bot's
    decisions, and (`stop_after`) may stop once the bot has answered a decision of that kind."""

    def __init__(
        self,
        game: Game,
        command: str,
        limits: Limits,
        stop_after: str | None = None,
        history: list | None = None,
        rig: dict | None = None,
        box: Box | None = None,
    ):
        super().__init__(game, [command], limits)
        self.boxes = [box or Box()]
        self.actions: list[list] = list(history or [])  # [seat, ops] of every play from the deal of `game.seed`
        self.rig = rig  # the rigged first deal the actions start from (rig_deal), if any
        self.findings: dict[str, str] = {}  # process hygiene: finding -> what was seen
        self._before: tuple[list[list], dict[str, Any]] = ([], {})  # the actions and seat 0's view when it was asked
        self.seats += [Seat("fallback") for _ in range(game.n - 1)]
        self._deals_sent = len(game.deal_results)  # a crafted position: earlier deals are in the events
        self.stop_after = stop_after
        self.decisions: list[dict[str, Any]] = []
        self.startup = 0.0
        self.faulted = False
        self.startup_fault: str | None = None

    async def _start_all(self, group: BotGroup) -> None:
        start = trio.current_time()
        await self._start_one(group, 0)
        self.startup = trio.current_time() - start
        seat = self.seats[0]
        self.startup_fault = f"{seat.fault}: {seat.fault_detail}" if seat.fault else None
        self.faulted = seat.fault is not None  # no ready: the handshake failed, no decision is judged

    async def _play(self) -> None:
        g = self.game
        while not g.is_over() and not self._stopped():
            decisions = {i: g.decision(i) for i in g.to_act()}
            for i in sorted(decisions):  # one at a time: only seat 0 is a process, the others answer at once
                await self._settle(i, decisions[i], *await self._ask_new(i, decisions[i]))
                await self._close_if_faulted(i)
            await self._broadcast_deal_ends()

    def _stopped(self) -> bool:
        return self.stop_after is not None and any(d["kind"] == self.stop_after for d in self.decisions)

    async def _finish(self) -> None:
        if self.game.is_over():
            await super()._finish()
        else:
            self._result_line = {"type": "stopped"}
            await self._send(0, m.Shutdown("check over"))
        seat = self.seats[0]
        if seat.proc is not None and seat.fault is None:
            await self._watch_stop(seat.proc)
        if seat.stale:
            self.findings["stale_reply"] = f"{seat.stale} reply(ies) for no open request were ignored"
        if seat.proc is not None and len(seat.proc.stderr_tail) + seat.proc.stderr_dropped > STDERR_FLOOD:
            self.findings["stderr_flood"] = f"{(len(seat.proc.stderr_tail) + seat.proc.stderr_dropped) >> 20} MB"

    async def _watch_stop(self, proc: BotProcess) -> None:
        """After shutdown: the bot must exit within STOP_GRACE and leave no process of its session running."""
        with trio.move_on_after(STOP_GRACE):
            while proc.returncode is None:
                await trio.sleep(0.02)
        if proc.returncode is None:
            self.findings["ignores_shutdown"] = f"still running {STOP_GRACE:.0f} s after the shutdown message"
            return
        left = [p for p in session_procs({proc.pgid}) if p != proc.pid and (proc_stat(p) or [b"Z"])[0] != b"Z"]
        if left:
            self.findings["left_processes"] = f"{len(left)} process(es) of its session still running after it exited"

    async def _exchange_wait(self, i: int, proc: BotProcess, rid: int, w: Pending) -> tuple[m.Play | None, str]:
        used, start = proc.cpu_time(), trio.current_time()
        reply, why = await super()._exchange_wait(i, proc, rid, w)
        if why:  # what the bot burned before its timeout (a reply in time needs no second reading)
            burned, wall = proc.cpu_time() - used, trio.current_time() - start
            if burned > BUSY * wall:
                self.findings["busy_wait"] = f"{burned:.2f} s of CPU in the {wall:.2f} s before its timeout"
        return reply, why

    def _ask(self, i: int, rid: int, decision: m.Decision) -> m.Play | Pending | None:
        if i == 0:
            self._before = (list(self.actions), self.game.view(0))
        return super()._ask(i, rid, decision)

    def _log(self, i: int, rid: int | None, decision: m.Decision, ops: list, verdict: str) -> None:
        if verdict in ("ok", "fallback"):
            self.actions.append([i, m.to_builtins(ops)])
        seat = self.seats[0]
        if i != 0 or (verdict == "fallback" and (seat.proc is None or self.faulted)):
            return  # other seats, and the fallback's plays once the bot has faulted, judge nobody
        self.faulted = self.faulted or verdict != "ok"
        note: dict[str, Any] = {"kind": label(decision), "verdict": verdict}
        if rid is not None and seat.walls:
            note["wall"] = seat.walls[-1]
        if verdict.startswith("illegal:") or verdict == "fallback":
            g = self.game
            note["position"] = {
                "variant": g.slug,
                "players": g.n,
                "options": g.opts,
                "seed": g.seed,
                "rig": self.rig,
                "seat": 0,
                "decision": m.to_builtins(decision),
                "view": self._before[1],
                "ops": m.to_builtins(ops) if rid is not None else None,
                "actions": self._before[0],
            }
        if verdict == "fallback":
            note["fault"] = f"{seat.fault}: {seat.fault_detail}"
        self.decisions.append(note)


def declared(cls: type[Game]) -> list[str]:
    """The decision kinds the variant declares (docs/reference.md), as `kind/phase`."""
    from referee.reference import describe

    return [f"{d['kind']}/{d['phase']}" for d in describe(cls)["decisions"]]


# a game in progress, the [seat, ops] plays that led there from its seed (and rig), and the table it was found at
Position = tuple[Game, list[list], Table]


def tables(cls: type[Game]) -> list[Table]:
    """The tables the position search tries: the variant's smallest, then its CHECK_TABLES hints."""
    return [{"players": cls.min_players}] + [{"players": cls.min_players, **t} for t in cls.CHECK_TABLES]


def rig_deal(game: Game, rig: dict[str, Any]) -> None:
    """Give seat 0 the rig's `hand` cards and put its `discard` on top of the pile, each swapped with a card from
    where it lay (a hand, the stock, the pile), so the deck stays whole; the deal event names the new top card.
    `draws`: the cards the stock gives next, in order. `stock`: leave that many cards in the stock and put the rest
    under the top discard (the stock runs out soon)."""
    places = [*game.hands, game.stock, game.piles[0]]  # type: ignore[attr-defined]  # rigged variants draw and discard

    def swap(card: str, into: list[str], at: int) -> None:
        where = next(p for p in places if card in p)
        i = where.index(card)
        where[i], into[at] = into[at], where[i]

    for at, card in enumerate(rig.get("hand", "").split()):
        swap(card, places[0], at)
    for at, card in enumerate(rig.get("draws", "").split()):
        swap(card, places[-2], -1 - at)  # the stock is drawn from its end
    if "discard" in rig:
        swap(rig["discard"], places[-1], -1)
    if "stock" in rig:
        cut = len(game.stock) - rig["stock"]  # type: ignore[attr-defined]
        places[-1][:0], places[-2][:cut] = places[-2][:cut], []
    for event in game.log:
        if event.data.get("type") == "deal":
            event.data["starter"] = places[-1][-1:]


def setup(cls: type[Game], table: Table, seed: int) -> Game:
    """A fresh game at `table` for the search (SEARCH's options, then the table's). A rigged table takes the first
    seed from `seed` on whose first deal seat 0 plays first, so that its rigged cards are still as dealt."""
    opts = {k: v for k, v in SEARCH.items() if k in cls.all_options()} | table.get("options", {})
    game = cls(table["players"], opts, seed)
    while "rig" in table and game.to_act() != [0]:
        seed += 1
        game = cls(table["players"], opts, seed)
    if "rig" in table:
        rig_deal(game, table["rig"])
    return game


def prefer(table: Table, decision: m.Decision) -> list | None:
    """The play a table's `prefer` hint makes for this decision, whoever is asked: the first option with the op it
    names for the decision's kind (e.g. claim/claim -> claim, claim/priority -> pass: the claims that the next
    player would otherwise settle himself), or None to let the brain choose."""
    op = table.get("prefer", {}).get(base(label(decision)))
    return next(([o] for o in decision.options or [] if m.to_builtins(o)["op"] == op), None) if op else None


def search(cls: type[Game], table: Table, seed: int, wanted: set[str]) -> dict[str, Position]:
    """Positions where seat 0 first meets each decision kind in a seeded playout: kind -> the game at that point.
    The playout stops once every kind in `wanted` (kind/phase) has come up."""
    from sample_bots.brain import Brain

    game = setup(cls, table, seed)
    players = game.n
    # seat 0 random on even seeds (it falls behind: between-deals questions), greedy on odd ones (it goes out); a
    # table with `random` plays every seat at random (where greedy seats go out before anyone discards)
    greedy = [not table.get("random") and (s != 0 or seed % 2 == 1) for s in range(players)]
    brains = [Brain(cls.slug, players, game.opts, greedy=greedy[s], seed=seed + s) for s in range(players)]
    found: dict[str, Position] = {}
    actions: list[list] = []
    for _ in range(SEARCH_STEPS):
        if game.is_over() or wanted <= {base(k) for k in found}:
            break
        for i in game.to_act():
            decision = game.decision(i)
            if i == 0 and label(decision) not in found:
                found[label(decision)] = copy.deepcopy(game), list(actions), table
            ops = prefer(table, decision) or brains[i].choose(decision, game.view(i))
            try:
                game.apply(i, ops)
            except IllegalAction:
                ops = game.fallback(i)
                game.apply(i, ops)
            actions.append([i, m.to_builtins(ops)])
    return found


def positions(cls: type[Game], seed: int, met: set[str]) -> dict[str, Position]:
    """A position for each decision kind not in `met`, from up to SEARCHES seeded playouts at each table in turn
    (the later tables only while a declared kind is still missing; a playout that finds no new kind ends its
    table's)."""
    hinted = {k for table in cls.CHECK_TABLES for k in table["kinds"]}  # the smallest table need not look for them
    found: dict[str, Position] = {}
    for t, table in enumerate(tables(cls)):
        for n in range(SEARCHES):
            wanted = set(declared(cls)) - {base(k) for k in met | set(found)} - (hinted if t == 0 else set())
            if not wanted and (n or t):
                break
            new = {k: p for k, p in search(cls, table, seed + n, wanted).items() if k not in met and k not in found}
            found |= new
            if n and not new:
                break
    return found


def where(table: Table) -> str:
    """A table as the report names it: seats, options, rigged deal, steered plays."""
    parts = [f"{table['players']} players", *(f"{k}={v}" for k, v in table.get("options", {}).items())]
    parts += [f"{kind} steered to {op}" for kind, op in table.get("prefer", {}).items()]
    parts += ["every seat random"] if table.get("random") else []
    return ", ".join(parts + (["rigged deal"] if "rig" in table else []))


def percentile(values: list[float], q: float) -> float:
    """The q-th quantile (nearest rank) of `values`."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summarize(notes: list[dict[str, Any]], source: str) -> dict[str, dict[str, Any]]:
    """Per decision kind: how many decisions, passed or not, illegal plays, faults, decision-time percentiles."""
    kinds: dict[str, dict[str, Any]] = {}
    for note in notes:
        row = kinds.setdefault(note["kind"], {"kind": note["kind"], "source": source, "decisions": 0, "walls": []})
        row["decisions"] += 1
        row.setdefault("illegal", [])
        row.setdefault("faults", [])
        if "wall" in note:
            row["walls"].append(note["wall"])
        if note["verdict"].startswith("illegal:"):
            row["illegal"].append({"rule": note["verdict"].partition(":")[2], "position": note["position"]})
        elif note["verdict"] == "fallback":
            row["faults"].append({"fault": note["fault"], "position": note["position"]})
    for row in kinds.values():
        walls = row.pop("walls")
        row["passed"] = not row["illegal"] and not row["faults"]
        if walls:
            row.update(wall_p50=statistics.median(walls), wall_p95=percentile(walls, 0.95), wall_max=max(walls))
            row["wall_total"] = sum(walls)
    return kinds


async def _run(match: CheckMatch) -> CheckMatch:
    await match.run()
    return match


def check_position(
    command: str, position: Position, kind: str, limits: Limits, box: Box | None = None
) -> tuple[dict[str, Any], dict]:
    """The report row of one crafted position, and its hygiene findings: a fresh bot process, started where seat 0
    must decide `kind`."""
    game, history, table = position
    crafted = trio.run(
        _run, CheckMatch(game, command, limits, stop_after=kind, history=history, rig=table.get("rig"), box=box)
    )
    row = summarize([d for d in crafted.decisions if d["kind"] == kind], "crafted").get(kind)
    if row is None:  # it never answered: it did not start, or faulted before (a startup fault names why)
        faults = [{"fault": crafted.startup_fault, "position": None}] if crafted.startup_fault else []
        row = {"kind": kind, "source": "crafted", "decisions": 0, "illegal": [], "faults": faults, "passed": False}
    row["table"] = where(table)
    return row, crafted.findings


def check_variant(command: str, slug: str, seed: int, limits: Limits, box: Box | None = None) -> dict[str, Any]:
    """The report of one variant: the handshake, the ordinary match's kinds, then the crafted positions'."""
    cls = find_variant(slug)
    players = cls.min_players
    opts = {k: v for k, v in SHORT.items() if k in cls.all_options()}
    match = trio.run(_run, CheckMatch(cls(players, opts, seed), command, limits, box=box))
    seat = match.seats[0]
    handshake_ok = match.startup_fault is None
    report: dict[str, Any] = {
        "variant": cls.slug,
        "players": players,
        "seed": seed,
        "handshake": {"passed": handshake_ok, "seconds": match.startup, "name": seat.name},
    }
    if not handshake_ok:
        report["handshake"]["fault"] = match.startup_fault
    kinds = summarize(match.decisions, "match")
    for row in kinds.values():
        row["table"] = where({"players": players})
    findings = dict(match.findings)
    if handshake_ok:
        for kind, position in positions(cls, seed, set(kinds)).items():
            kinds[kind], found = check_position(command, position, kind, limits, box)
            findings = found | findings  # the first sighting of each finding
    report["kinds"] = list(kinds.values())
    report["hygiene"] = [{"finding": f, "detail": findings[f]} for f in HYGIENE if f in findings]
    met = {base(k) for k in kinds}
    report["unreached"] = [k for k in declared(cls) if k not in met] if handshake_ok else []
    report["passed"] = handshake_ok and not report["hygiene"] and all(k["passed"] for k in report["kinds"])
    return report


def check(
    command: str,
    variants: list[str],
    seed: int = 1,
    move_time: float = 2.0,
    startup_time: float = 10.0,
    box: Box | None = None,
    sandbox: str | None = None,
) -> dict:
    """The whole conformance report of `command` over `variants`; ConfigError for bad input before any bot runs.
    The bot runs in the sandbox of a tournament (`sandbox`: as `romis play --sandbox`), with what `box` allows, so a
    bot that needs the network or writes its folder fails here as it would there unless its entrant asks."""
    slugs = [find_variant(v).slug for v in variants]
    split_command(command)
    mode = sandbox_mode(sandbox, "--sandbox" if sandbox is not None else SANDBOX_VAR)
    if mode == PIDNS:  # trusted bots: the subreaper, so that processes a bot leaves behind are seen, not hidden
        mode = SUBREAPER
    box = box or Box()
    limits = Limits(move_time=move_time, bank=0.0, startup_time=startup_time, sandbox=mode)
    with guard():
        reports = [check_variant(command, slug, seed, limits, box) for slug in slugs]
    passed = all(r["passed"] for r in reports)
    sandboxed = {"mode": BWRAP if mode == BWRAP else NONE, "network": box.network}
    return {"bot": command, "passed": passed, "sandbox": sandboxed, "variants": reports}


def junit(report: dict[str, Any]) -> bytes:
    """JUnit XML: one testsuite per variant, one testcase for the handshake, one for process hygiene and one per
    decision kind (skipped: a declared kind that neither the match nor the search reached)."""
    root = ET.Element("testsuites", name="romis check")
    for v in report["variants"]:
        suite = ET.SubElement(root, "testsuite", name=v["variant"])
        cases = [("handshake", v["handshake"]["passed"], v["handshake"].get("fault", ""), v["handshake"]["seconds"])]
        hygiene = "\n".join(f"{h['finding']}: {h['detail']}" for h in v.get("hygiene", []))
        cases.append(("process hygiene", not hygiene, hygiene, 0.0))
        for k in v["kinds"]:
            cases.append((k["kind"], k["passed"], failure_text(k), k.get("wall_total", 0.0)))
        for name, passed, text, seconds in cases:
            case = ET.SubElement(suite, "testcase", classname=f"romis.check.{v['variant']}", name=name)
            case.set("time", f"{seconds:.3f}")
            if not passed:
                ET.SubElement(case, "failure", message=text.splitlines()[0] if text else "failed").text = text
        for name in v["unreached"]:
            case = ET.SubElement(suite, "testcase", classname=f"romis.check.{v['variant']}", name=name, time="0")
            ET.SubElement(case, "skipped", message="not reached by the match or the search playouts")
        suite.set("tests", str(len(cases) + len(v["unreached"])))
        suite.set("failures", str(sum(not passed for _, passed, _, _ in cases)))
        suite.set("errors", "0")
        suite.set("skipped", str(len(v["unreached"])))
    root.set("tests", str(sum(int(s.get("tests", 0)) for s in root)))
    root.set("failures", str(sum(int(s.get("failures", 0)) for s in root)))
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


def failure_text(kind: dict[str, Any]) -> str:
    """What went wrong in one decision kind: each illegal play (rule) and fault, with its position as JSON."""
    lines = [f"illegal play, rule {x['rule']}: {json.dumps(x['position'])}" for x in kind["illegal"]]
    lines += [f"fault {x['fault']}: {json.dumps(x['position'])}" for x in kind["faults"]]
    if not lines and not kind["passed"]:
        lines.append("the bot never answered this decision")
    return "\n".join(lines)


def render_text(report: dict[str, Any]) -> str:
    """A readable account: per variant the handshake and each decision kind with its verdict and times."""
    box = report.get("sandbox", {})
    network = "the host's (--network)" if box.get("network") else "none but the bot's own loopback"
    lines = [f"sandbox: {box.get('mode')}; network: {network}"] if box else []
    for v in report["variants"]:
        hs = v["handshake"]
        lines.append(f"{v['variant']} ({v['players']} players, seed {v['seed']}): {'ok' if v['passed'] else 'FAILED'}")
        lines.append(f"  handshake: {'ok' if hs['passed'] else 'FAILED ' + hs['fault']} ({hs['seconds']:.2f} s)")
        lines.append(f"  process hygiene: {'FAILED' if v['hygiene'] else 'ok'}")
        lines += [f"    {h['finding']}: {h['detail']}" for h in v["hygiene"]]
        for k in v["kinds"]:
            times = ", ".join(f"{q} {k[f'wall_{q}'] * 1000:.1f} ms" for q in ("p50", "p95", "max") if "wall_p50" in k)
            verdict = "ok" if k["passed"] else "FAILED"
            lines.append(
                f"  {k['kind']} ({k['source']} at {k['table']}, {k['decisions']} decision(s), {times or 'no timings'}):"
                f" {verdict}"
            )
            lines += [f"    illegal play (rule {x['rule']})" for x in k["illegal"]]
            lines += [f"    fault {x['fault']}" for x in k["faults"]]
        if v["unreached"]:  # declared, but neither the match nor the search playout came to them
            lines.append(f"  NOT REACHED (not judged): {', '.join(v['unreached'])}")
    failed = [v["variant"] for v in report["variants"] if not v["passed"]]
    lines.append("all passed" if not failed else f"failed: {', '.join(failed)}")
    return "\n".join(lines)

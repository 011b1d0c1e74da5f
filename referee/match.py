"""The match loop: drives one Game with bot processes, enforces time limits and the fault policy.

Policy (separate from the rules): by default a faulting seat forfeits the match and the engine's
built-in `fallback` plays its cards so the others can finish; with `retries` > 0 a bot whose play
is illegal is told why (`rejected`) and asked again, up to that many times per decision.
"""

import os
import shlex
import shutil
import sys
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any

import msgspec
import trio

from protocol import messages as m
from referee.process.clocks import watch_cpu
from referee.process.runner import BotFault, BotGroup, BotProcess, Limits, bot_group, decode_reply, timed_receive
from referee.process.sandbox import Box
from referee.records import DETAIL_LENGTH, RecordWriter, final_ranks
from referee.rules.engine import Game, derive_seed
from referee.rules.errors import ConfigError, IllegalAction

STALE_RECORDED = 100  # stale replies written to the record per seat; a bot flooding them is not worth gigabytes
NAME_LENGTH = 64  # characters of the name a bot gives itself, kept for results and reports
# /proc counts CPU in clock ticks of 10 ms: without a record, which writes each decision's CPU, only a seat's total
# is reported, and reading it more often than once a tick (each reading costs ~15 µs) tells that total nothing
CPU_READ_EVERY = 0.01
# A bot that answers within BLOCKING_WAIT is waited for in one poll() of its pipe, trio's scheduler paused: a pass
# through the scheduler and a cancel scope cost the referee more than the rest of a decision. The loop yields to
# the scheduler at least every YIELD_EVERY, so signals, cancellation and the bots' stderr wait no longer than that.
BLOCKING_WAIT = 0.002
YIELD_EVERY = 0.01
# The loop's own times (a request's start, the walls charged to the bots, when to yield or read CPU next) are
# time.perf_counter readings: one C call, where trio's clock is a Python method around it. A deadline handed to
# trio is made relative first (`_exchange_wait`).


@dataclass
class Seat:
    """One seat's bot, clock and record of faults and timings."""

    command: str
    proc: BotProcess | None = None
    name: str = ""
    bank: float = 0.0
    retries: int = 0  # illegal plays retried per decision (the match's --retries; a human seat: no end)
    cursor: int = 0
    fault: str | None = None
    fault_detail: str = ""
    cpu_mark: float = 0.0
    cpu_read_at: float = 0.0  # without a record: the next reading of the bot's CPU is due then (CPU_READ_EVERY)
    stale: int = 0
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)


@dataclass(slots=True)
class Pending:
    """A request whose play was not there at once (`Match._ask`): what waiting for it takes."""

    proc: BotProcess  # the seat's bot
    rest: bytes  # what of the request line its pipe has not taken yet
    budget: float  # the seat's clock: move time and bank
    wall: float  # the wait's wall-time limit, from `start`
    cpu: float  # the bot's CPU when its clock started (the CPU clock)
    start: float  # when its clock started (perf_counter time)


def split_command(command: str) -> list[str]:
    """argv of a bot command (no shell); ConfigError if the program cannot be found.

    A command whose program is plain `python` or `python3` runs under the interpreter running romis,
    so the sample bots (and bots using romis's own modules) work without activating a virtualenv.
    """
    try:
        argv = shlex.split(command)
    except ValueError as e:
        raise ConfigError(f"bot command {command!r}: {e}") from None
    if not argv:
        raise ConfigError("empty bot command")
    if argv[0] in ("python", "python3"):
        argv[0] = sys.executable
    if shutil.which(argv[0]) is None:
        what = "is a directory" if os.path.isdir(argv[0]) else "is not executable (chmod +x?)"
        found = os.sep in argv[0] and os.path.exists(argv[0])
        raise ConfigError(f"bot command {command!r}: program {argv[0]!r} {what if found else 'not found'}")
    return argv


def printable(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, control characters replaced: a bot's words reach terminals and reports."""
    return "".join(c if c.isprintable() else "?" for c in text[:limit])


class Match:
    """One match between bot processes."""

    def __init__(
        self, game: Game, commands: list[str], limits: Limits, retries: int = 0, record: RecordWriter | None = None
    ):
        self.game = game
        self.limits = limits
        self.retries = retries
        self.record = record
        self.on_deal: Callable[[dict[str, Any]], None] | None = None  # told of each deal as it ends (progress)
        self.seats = [Seat(c, bank=limits.bank, retries=retries) for c in commands]
        self.argvs = [split_command(c) for c in commands]
        self.cwds: list[str | None] = [None] * len(commands)  # where each bot runs (None: here); a shipped folder
        self.boxes: list[Box] = [Box()] * len(commands)  # what each bot's sandbox allows beyond the default
        self.next_id = 1
        self._deals_sent = 0  # deal results already sent to the bots
        self._result_line: dict[str, Any] | None = None  # set once the match is decided
        self._nursery: trio.Nursery | None = None  # the bots' nursery, where CPU deadlines are watched
        self._concurrent = False  # several seats are asked at once (each in a task): no blocking wait
        self._yield_at = 0.0  # the loop passes through trio's scheduler then (YIELD_EVERY; perf_counter time)

    async def run(self) -> dict[str, Any]:
        """Play the match to its end; every bot process is gone when this returns.

        If it stops early (Ctrl-C, cancellation), the record ends with an `interrupted` line."""
        reason = "error"
        try:
            async with bot_group() as group:
                self._nursery = group.nursery
                try:
                    await self._start_all(group)
                    await self._play()
                    await self._finish()
                finally:  # a stopped process ignores every signal but SIGKILL: continue it before it is ended
                    self._resume_all()
        except BaseException as e:
            reason = _stop_reason(e)
            raise
        finally:
            if self.record:
                self._write_stderr_tails(self.record)
                # the result (or the interruption) is the last line: it carries the signature
                last = self._result_line or {"type": "interrupted", "deal": self.game.deal_no, "reason": reason}
                self.record.write(last, last=True)
                self.record.close()
        return self.outcome()

    def _write_stderr_tails(self, record: RecordWriter) -> None:
        """What the bots wrote to stderr, for post-mortems: the tail the referee kept (`Limits.stderr_cap`, 64 KiB),
        and how many bytes before it were dropped."""
        for i, seat in enumerate(self.seats):
            if seat.proc and (seat.proc.stderr_tail or seat.proc.stderr_dropped):
                tail = seat.proc.stderr_tail.decode("utf-8", "replace")
                record.write({"type": "stderr", "seat": i, "dropped": seat.proc.stderr_dropped, "tail": tail})

    def outcome(self) -> dict[str, Any]:
        """The match result: per seat bot, name, total, rank, fault, timings."""
        res = self.game.result()
        ranks = final_ranks(self.game, [s.fault is not None for s in self.seats])
        # a variant's extra result fields come along (may-i: the penalty column beside the bonus totals)
        return {**res, "ranks": ranks, "seats": self.seats}

    # --- start and handshake ------------------------------------------------------
    async def _start_all(self, group: BotGroup) -> None:
        async with trio.open_nursery() as starters:
            for i in range(len(self.seats)):
                starters.start_soon(self._start_one, group, i)

    async def _start_one(self, group: BotGroup, i: int) -> None:
        seat, g = self.seats[i], self.game
        try:
            seat.proc = await group.start(self.argvs[i], self.limits, cwd=self.cwds[i], box=self.boxes[i])
            hello = m.Hello(
                m.PROTOCOL_VERSION,
                g.slug,
                g.rules_version,
                i,
                g.n,
                g.opts,
                m.Limits(self.limits.move_time, self.limits.bank, self.limits.startup_time),
                seed=derive_seed(g.seed, "bot", i) % 2**32,
            )
            await seat.proc.send(m.encode(hello))
            line, _, _ = await timed_receive(seat.proc, self.limits.startup_time, fault="startup")
            seat.cpu_mark = seat.proc.cpu_time()
            ready = decode_reply(line)
            if not isinstance(ready, m.Ready):
                raise BotFault("startup", "the first line must be ready")
            if ready.protocol != m.PROTOCOL_VERSION:
                raise BotFault("startup", f"bot speaks protocol {ready.protocol}, the referee {m.PROTOCOL_VERSION}")
            seat.name = printable(ready.name, NAME_LENGTH)
            if self.limits.pause_idle:
                seat.proc.pause()
        except BotFault as f:
            self._fault(i, f.kind, f.detail)
        if self.record:
            self.record.write({"type": "ready", "seat": i, "name": seat.name, "fault": seat.fault})

    # --- the loop ---------------------------------------------------------------------
    async def _play(self) -> None:
        g = self.game
        while not g.is_over():
            seats = g.to_act()
            if len(seats) == 1:  # most decisions: one seat asked, in this task, without a coroutine unless it waits
                i = seats[0]
                decision = g.decision(i)
                rid, reply = self._ask_new_now(i, decision)
                if isinstance(reply, Pending):
                    reply = await self._ask_wait(i, rid, reply)
                answers = [(i, decision, rid, reply)]
            else:
                answers = await self._ask_all(seats)
            for i, decision, rid, reply in answers:
                error = None if reply is None else self._try_apply(i, decision, rid, reply)
                if reply is None or error is not None:
                    await self._settle(i, decision, rid, reply, error)
                if self.seats[i].fault is not None:
                    await self._close_if_faulted(i)
            if len(g.deal_results) > self._deals_sent:  # most decisions end no deal: no coroutine to run
                await self._broadcast_deal_ends()
            # the one checkpoint of decisions whose plays came without a wait: cancellation lands here
            if (now := perf_counter()) >= self._yield_at:
                self._yield_at = now + YIELD_EVERY
                await trio.lowlevel.checkpoint()

    async def _ask_all(self, seats: list[int]) -> list[tuple[int, m.Decision, int, m.Play | None]]:
        """A simultaneous decision: everyone answers on their own clock; the answers in seat order (plays apply
        in that order)."""
        decisions = {i: self.game.decision(i) for i in seats}
        replies: dict[int, tuple[int, m.Play | None]] = {}
        self._concurrent = True
        try:
            async with trio.open_nursery() as nursery:
                for i in seats:
                    nursery.start_soon(self._collect, i, decisions[i], replies)
        finally:
            self._concurrent = False
        return [(i, decisions[i], *replies[i]) for i in sorted(seats)]

    async def _collect(self, i: int, decision: m.Decision, into: dict) -> None:
        into[i] = await self._ask_new(i, decision)

    async def _ask_new(self, i: int, decision: m.Decision) -> tuple[int, m.Play | None]:
        rid, reply = self._ask_new_now(i, decision)
        return rid, await self._ask_wait(i, rid, reply) if isinstance(reply, Pending) else reply

    def _ask_new_now(self, i: int, decision: m.Decision) -> tuple[int, m.Play | Pending | None]:
        rid = self.next_id
        self.next_id += 1
        return rid, self._ask(i, rid, decision)

    def _try_apply(self, i: int, decision: m.Decision, rid: int, reply: m.Play) -> IllegalAction | None:
        """Apply a seat's play and log it: None if it was legal, else why not (nothing changed)."""
        try:
            self.game.apply(i, reply.ops)
        except IllegalAction as e:
            self._log(i, rid, decision, reply.ops, f"illegal:{e.rule}")
            return e
        self._log(i, rid, decision, reply.ops, "ok")
        return None

    async def _settle(
        self, i: int, decision: m.Decision, rid: int, reply: m.Play | None, error: IllegalAction | None = None
    ) -> None:
        """Apply a seat's reply (`error`: it was tried already and was illegal so); on an illegal play retry (if
        allowed) or forfeit; a faulted seat gets the fallback."""
        g = self.game
        tries = 0
        while reply is not None:
            if error is None and (error := self._try_apply(i, decision, rid, reply)) is None:
                return
            if tries >= self.seats[i].retries:
                self._fault(i, "illegal", str(error))
                break
            tries += 1
            await self._send(i, m.Rejected(rid, error.rule, error.message, self.seats[i].retries - tries))
            rid, reply = await self._ask_new(i, decision)
            error = None
        ops = g.fallback(i)
        g.apply(i, ops)
        self._log(i, None, decision, ops, "fallback")

    def _ask(self, i: int, rid: int, decision: m.Decision) -> m.Play | Pending | None:
        """Send a request and take its play if it comes at once (`_quick_play`); None on a fault; else what
        `_ask_wait` needs to wait for it on the seat's clock (move time, then bank)."""
        seat, g, limits = self.seats[i], self.game, self.limits
        events, seat.cursor = g.events_since(i, seat.cursor)
        if seat.fault is not None or seat.proc is None:
            return None
        line = m.encode(m.Request(rid, decision, g.request_view(i), events, m.Clock(limits.move_time, seat.bank)))
        proc, budget = seat.proc, limits.move_time + seat.bank
        if proc.paused:  # --pause-idle: the clock starts only once the bot runs again
            proc.resume()
        cpu_clock = limits.clock == "cpu"
        cpu = proc.cpu_time() if cpu_clock else 0.0
        start = perf_counter()
        # under the CPU clock (watched in the nursery) the wait has a wall-time cap
        wall = limits.wall_cap(budget - limits.move_time) if cpu_clock and self._nursery else budget
        sent = proc.send_nowait(line)
        try:
            reply = self._quick_play(i, proc, rid, start + wall) if sent == len(line) else None
        except BotFault as f:
            self._fault(i, f.kind, f.detail)
            return None
        if reply is None:
            return Pending(proc, line[sent:], budget, wall, cpu, start)
        return self._account(i, proc, reply, budget, cpu, start)

    async def _ask_wait(self, i: int, rid: int, w: Pending) -> m.Play | None:
        """Wait for the play of request `rid`, once `_ask` has found it is not there yet; None on a fault."""
        proc = w.proc
        try:
            reply, why = await self._exchange_wait(i, proc, rid, w)
        except BotFault as f:
            self._fault(i, f.kind, f.detail)
            return None
        if reply is None:  # timed out: why
            if self.limits.pause_idle:
                proc.pause()
            self._fault(i, "timeout", why)
            return None
        return self._account(i, proc, reply, w.budget, w.cpu, w.start)

    def _account(
        self, i: int, proc: BotProcess, reply: m.Play, budget: float, cpu: float, start: float
    ) -> m.Play | None:
        """Charge a play in time to the seat's clock (its bank, its wall and CPU figures); None if, on the CPU
        clock, the bot used more than its budget after all."""
        seat, limits = self.seats[i], self.limits
        if limits.pause_idle:
            proc.pause()
        now = perf_counter()
        used = seat.cpu_mark
        cpu_clock = limits.clock == "cpu"
        if cpu_clock or self.record or now >= seat.cpu_read_at:
            used, seat.cpu_read_at = proc.cpu_time(), now + CPU_READ_EVERY
        charged = used - cpu if cpu_clock else now - start
        if cpu_clock and charged > budget:  # over budget between the watch's polls, or without a watch (no wait)
            self._fault(i, "timeout", cpu_overrun(budget))
            return None
        if charged > limits.move_time:  # the bank pays what the move time did not cover
            seat.bank = max(0.0, seat.bank - (charged - limits.move_time))
        seat.walls.append(now - start)
        seat.cpus.append(used - seat.cpu_mark)  # the bot's CPU since its previous reading (its previous reply)
        seat.cpu_mark = used
        return reply

    async def _exchange_wait(self, i: int, proc: BotProcess, rid: int, w: Pending) -> tuple[m.Play | None, str]:
        """Finish writing the request (`w.rest`) and read its play within the seat's clock: (play, "") or (None,
        why it timed out). Under the CPU clock (`w.cpu`: the bot's CPU when it was continued) the CPU is watched
        and a wall cap applies; a partial line, or a play that takes longer than `_quick_play` waits, is waited
        for here, under a cancel scope and trio's scheduler."""
        cpu_clock = self.limits.clock == "cpu" and self._nursery is not None
        reply, watcher = None, trio.CancelScope() if cpu_clock else None
        # one scope for the write and the read: a bot that stops reading times out too
        # the deadline in perf_counter time made relative for trio; it may have passed already (the referee lost its
        # CPU after the write): the scope then times the bot out at once
        with trio.move_on_after(max(0.0, w.start + w.wall - perf_counter())) as scope:
            if self._nursery and watcher:
                self._nursery.start_soon(watch_cpu, proc.cpu_time, w.cpu, w.budget, scope, watcher)
            try:
                if w.rest:
                    await proc.send(w.rest)
                reply = await self._await_play(i, proc, rid)
            finally:
                if watcher:  # cancelling a scope costs a repr of the task in trio: only where there is a watch
                    watcher.cancel()
        if not scope.cancelled_caught:
            return reply, ""
        if cpu_clock and trio.current_time() < scope.deadline:
            return None, cpu_overrun(w.budget)
        clock = " (the wall-time cap of the CPU clock)" if cpu_clock else ""
        return None, f"no reply within {w.wall:.2f} s" + clock

    def _quick_play(self, i: int, proc: BotProcess, rid: int, deadline: float) -> m.Play | None:
        """The play for request `rid` if it is there now or, while one seat is asked, comes within BLOCKING_WAIT
        (not if the deadline is nearer: the scope of a wait times it out). None if not yet."""
        if self._concurrent or deadline - perf_counter() <= BLOCKING_WAIT:
            return self._ready_play(i, proc, rid)
        line = proc.receive_line_within(BLOCKING_WAIT)
        if line is None:
            return None
        reply = decode_reply(line)
        if isinstance(reply, m.Play) and reply.id == rid:
            return reply
        self._stale(i, reply)
        return self._ready_play(i, proc, rid)

    def _ready_play(self, i: int, proc: BotProcess, rid: int) -> m.Play | None:
        """The play for request `rid` if the bot has written it already, reading no further (None if not yet)."""
        while (line := proc.receive_line_nowait()) is not None:
            reply = decode_reply(line)
            if isinstance(reply, m.Play) and reply.id == rid:
                return reply
            self._stale(i, reply)
        return None

    async def _await_play(self, i: int, proc: BotProcess, rid: int) -> m.Play:
        """Read lines until the play for request `rid`; stale replies and stray readies are ignored, but recorded."""
        while True:
            reply = decode_reply(await proc.receive_line())
            if isinstance(reply, m.Play) and reply.id == rid:
                return reply
            self._stale(i, reply)

    def _stale(self, i: int, reply: m.Ready | m.Play) -> None:
        seat = self.seats[i]
        seat.stale += 1
        if self.record and seat.stale <= STALE_RECORDED:
            self.record.write({"type": "stale", "seat": i, "message": m.to_builtins(reply)})

    async def _send(self, i: int, msg: msgspec.Struct) -> bool:
        seat = self.seats[i]
        if seat.fault is not None or seat.proc is None:
            return False
        try:
            with trio.fail_after(self.limits.move_time + seat.bank):  # a bot that stops reading blocks the pipe
                await seat.proc.send(m.encode(msg))
            return True
        except BotFault as f:
            self._fault(i, f.kind, f.detail)
        except trio.TooSlowError:
            self._fault(i, "timeout", "the bot stopped reading its input")
        return False

    async def _broadcast_deal_ends(self) -> None:
        for result in self.game.deal_results[self._deals_sent :]:
            msg = m.DealOver.of(result)
            if self.record:
                self.record.write(m.to_builtins(msg))
            if self.on_deal:
                self.on_deal(result)
            for i in range(len(self.seats)):
                await self._send(i, msg)
        self._deals_sent = len(self.game.deal_results)

    async def _finish(self) -> None:
        self._resume_all()  # they may read match_over and shut down by themselves
        self._read_cpu_left()
        out = self.outcome()
        faults = [s.fault for s in self.seats]
        self._result_line = {"type": "result", "totals": out["totals"], "ranks": out["ranks"], "faults": faults}
        if out.get("unit") == "chips":  # a chips game: the balances (= the totals) and the bank (chips.py)
            self._result_line.update(chips=out["chips"], bank=out["bank"], unit="chips")
        for i in range(len(self.seats)):
            await self._send(i, m.MatchOver(out["totals"], out["ranks"], faults))
            await self._send(i, m.Shutdown())
        await self._let_go()

    async def _let_go(self) -> None:
        """After `shutdown` every bot has `Limits.shutdown_grace` to read its last messages (a learning bot needs its
        result) and exit by itself, on no one's clock; whoever still runs then is killed with the rest."""
        live = [s.proc for s in self.seats if s.proc is not None and s.proc.returncode is None]
        with trio.move_on_after(self.limits.shutdown_grace):
            while any(proc.returncode is None for proc in live):
                await trio.sleep(0.005)

    def _read_cpu_left(self) -> None:
        """Without a record a seat's CPU may have gone unread since its last reading (CPU_READ_EVERY): it goes to its
        last decision, so that the seat's total is whole."""
        for seat in self.seats:
            if seat.proc is not None and seat.cpus and not self.record:
                used = seat.proc.cpu_time()
                seat.cpus[-1] += used - seat.cpu_mark
                seat.cpu_mark = used

    async def _close_if_faulted(self, i: int) -> None:
        """A forfeited bot is stopped at once (it is told why first, if it still listens)."""
        seat = self.seats[i]
        if seat.fault is not None and seat.proc is not None and seat.proc.returncode is None:
            seat.proc.resume()
            with trio.move_on_after(0.2), suppress(BotFault):  # a bot that closed its input is not told
                await seat.proc.send(m.encode(m.Shutdown(f"forfeit: {seat.fault}")))
            with trio.CancelScope(shield=True):
                await seat.proc.aclose()

    def _resume_all(self) -> None:
        """Continue every paused bot (--pause-idle)."""
        for seat in self.seats:
            if seat.proc is not None:
                seat.proc.resume()

    def _fault(self, i: int, kind: str, detail: str) -> None:
        seat = self.seats[i]
        # a bot that fails to hear the result after the match is decided has not faulted in it
        if seat.fault is None and self._result_line is None:
            seat.fault, seat.fault_detail = kind, printable(detail, DETAIL_LENGTH)
            if self.record:
                self.record.write({"type": "fault", "seat": i, "kind": kind, "detail": seat.fault_detail})

    def _log(self, i: int, rid: int | None, decision: m.Decision, ops: list, verdict: str) -> None:
        if self.record:
            seat = self.seats[i]
            timing = {"wall": round(seat.walls[-1], 6), "cpu": round(seat.cpus[-1], 6)} if rid and seat.walls else {}
            self.record.write(
                {
                    "type": "action",
                    "seat": i,
                    "id": rid,
                    "kind": decision.kind,
                    "phase": decision.phase,
                    "ops": m.to_builtins(ops),
                    "verdict": verdict,
                    **timing,
                }
            )


def cpu_overrun(budget: float) -> str:
    """The detail of a timeout on the CPU clock."""
    return f"used more than {budget:.2f} s of CPU without replying"


def _stop_reason(exc: BaseException) -> str:
    """Why a match stopped early, for its record: Ctrl-C, a cancellation, or an error (a bug: it propagates)."""
    group = exc if isinstance(exc, BaseExceptionGroup) else BaseExceptionGroup("", [exc])
    if group.subgroup(KeyboardInterrupt):
        return "ctrl-c"
    return "error" if group.subgroup(Exception) else "cancelled"

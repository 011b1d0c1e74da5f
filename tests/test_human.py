"""The human seat (`romis play --bot human`): the text syntax of plays, and a whole match typed on a pseudo-terminal."""

import io
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from procs import leftovers
from rich.console import Console

from protocol import messages as m
from referee.human import PlayError, Screen, describe, parse_play
from referee.play import HUMAN_RETRIES
from referee.records import ReplayError, _link, replay
from referee.rules.variants import VARIANTS

ROOT = Path(__file__).resolve().parent.parent
RANDOM = "python -m sample_bots.random"
PROMPT = "your play> "
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.mark.parametrize(
    ("typed", "ops"),
    [
        ("draw", [m.Draw()]),
        ("draw discard", [m.Draw("discard")]),
        ("draw discard 3", [m.Draw("discard", depth=3)]),
        ("discard 7h pile=1", [m.Discard("7h", pile=1)]),
        ("meld 7H 8H 9H; discard KS", [m.Meld(["7H", "8H", "9H"]), m.Discard("KS")]),
        ("meld 7H JK 9H as 7H 8H 9H", [m.Meld(["7H", "JK", "9H"], ["7H", "8H", "9H"])]),
        ("layoff 2 TH high", [m.LayOff(2, ["TH"], end="high")]),
        ("knock 3C", [m.Knock("3C")]),
        ("pass", [m.Pass()]),
        ("bid 3", [m.Bid(3)]),
        ("bid buy", [m.Bid("buy")]),
        ('[{"op": "discard", "card": "7H"}]', [m.Discard("7H")]),
    ],
)
def test_a_typed_play_becomes_the_ops_it_names(typed, ops):
    assert parse_play(typed, None) == ops


def test_a_number_picks_a_listed_option_and_a_bad_one_says_which_exist():
    options = [m.Draw(), m.Draw("discard")]
    assert parse_play(" 2 ", options) == [m.Draw("discard")]
    for typed, words in [("3", "pick 1 to 2"), ("fly", "cannot read"), ("[{", "not a JSON list"), ("", "nothing")]:
        with pytest.raises(PlayError, match=re.escape(words)):
            parse_play(typed, options)


def test_each_option_is_shown_in_a_syntax_that_reads_back_as_that_option():
    options = [m.Draw(), m.Draw("discard", depth=2), m.Discard("7H", pile=1), m.Knock("3C"), m.Pass(), m.Bid("buy")]
    options += [m.Knock(), m.Claim(), m.LayOff(1, ["9H"], end="low"), m.Meld(["7H", "JK", "9H"], ["7H", "8H", "9H"])]
    for op in options:
        assert parse_play(describe(op), None) == [op], describe(op)


@pytest.mark.parametrize("slug", sorted(VARIANTS))
def test_every_variant_s_view_is_shown_with_its_hand_and_options_that_read_back(slug):
    cls = VARIANTS[slug]
    game = cls(cls.min_players, {}, 3)
    out = io.StringIO()
    screen = Screen(io.StringIO(), Console(file=out, width=100, color_system=None))
    for _ in range(40):  # the first decisions of a deal, each shown to the seat that makes it
        if game.is_over():
            break
        seat = game.to_act()[0]
        decision, view = game.decision(seat), game.view(seat)
        out.truncate(0)
        screen.seat = seat
        screen.show_view(view, [])
        screen.show_decision(decision)
        shown = out.getvalue()
        assert f"your hand ({len(view['hand'])}): {' '.join(view['hand'])}" in shown, shown
        assert f"decision: {decision.kind}" in shown
        for k, op in enumerate(decision.options or [], 1):
            assert f"{k:>2}. {describe(op)}" in shown
            assert parse_play(describe(op), None) == [op], describe(op)
        game.apply(seat, game.fallback(seat))


class Terminal:
    """`romis play` on a pseudo-terminal: read the screen (colours removed), type lines."""

    def __init__(self, *args: str):
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "referee", "play", *args],
            cwd=ROOT,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
        )
        os.close(slave)
        self.screen = ""  # everything shown so far
        self.unread = ""  # shown since the last `expect`

    def expect(self, *texts: str, deadline: float = 120.0) -> str:
        """What appeared up to and including the first of `texts` to appear; fails if the screen closes first
        (the deadline only guards against a hang)."""
        end = time.monotonic() + deadline
        text = texts[0]
        while not (found := [t for t in texts if t in self.unread]):
            assert time.monotonic() < end, f"{text!r} never appeared; the screen ends:\n{self.screen[-2000:]}"
            if select.select([self.master], [], [], 1.0)[0]:
                try:
                    data = os.read(self.master, 65536)
                except OSError:  # EIO: the terminal closed
                    data = b""
                assert data, f"the terminal closed before {text!r}; the screen ends:\n{self.screen[-2000:]}"
                shown = _ANSI.sub("", data.decode("utf-8", "replace")).replace("\r", "")
                self.screen += shown
                self.unread += shown
        k = min(self.unread.index(t) + len(t) for t in found)
        seen, self.unread = self.unread[:k], self.unread[k:]
        return seen

    def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\n")

    def rest(self) -> str:
        """Everything shown until the terminal closes, and romis's exit code."""
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                break
            if not data:
                break
            self.screen += _ANSI.sub("", data.decode("utf-8", "replace")).replace("\r", "")
        self.proc.wait(timeout=60)
        os.close(self.master)
        return self.screen


@pytest.mark.e2e
def test_a_person_plays_a_whole_gin_match_against_the_random_bot_by_typing(tmp_path):
    rec = tmp_path / "game.jsonl"
    args = ("--seed", "7", "--option", "max_deals=1", "--record", str(rec))
    term = Terminal("gin", "--bot", "human", "--bot", RANDOM, *args)
    try:
        first = term.expect(PROMPT)
        assert "you are seat 0 of 2" in first
        hand = re.search(r"your hand \(10\): ((?:\w\w ?){10})", first)
        assert hand, first
        assert "1. draw discard" in first and "2. pass" in first  # gin's offer of the up-card
        term.type("fly away")
        assert "error: cannot read 'fly away'" in term.expect(PROMPT)
        card = hand.group(1).split()[0]
        term.type(f"discard {card}")  # a card of the hand, but before taking the up-card: illegal
        refused = term.expect(PROMPT)
        assert re.search(r"illegal play \([\w.-]+\): ", refused), refused
        assert "1. draw discard" in refused  # asked the same decision again
        plays = 0
        while True:  # the first option each time, to the end of the match
            term.type("1")
            plays += 1
            if term.expect(PROMPT, "rank  seat").endswith("rank  seat"):
                break
    except BaseException:  # romis would wait for the next play for ever: stop it (its watchdog ends the bots)
        os.killpg(term.proc.pid, signal.SIGKILL)
        raise
    finally:
        screen = term.rest()
    assert plays > 3
    assert re.search(r"seat 1 discard card=\w\w\n", screen)  # what the bot did, shown before each decision
    assert re.search(r"deal 1: seat \d won", screen) and "seat 1 held" in screen  # the deal's end, hands shown
    assert re.search(r"\d\s+0\s+-?\d+\s+human \(human\)\s+-", screen), screen[-1500:]  # no fault on the seat
    assert term.proc.returncode == 0
    assert leftovers() == []
    replayed = subprocess.run([sys.executable, "-m", "referee", "replay", str(rec)], cwd=ROOT, capture_output=True)
    assert replayed.returncode == 0, replayed  # the refused attempt is in the record, and the record replays
    assert '"verdict":"illegal:' in rec.read_text().replace(" ", "")
    lines = [json.loads(raw) for raw in rec.read_text().splitlines()]
    assert lines[0]["seats"][0] == {"bot": "human", "retries": HUMAN_RETRIES}
    for retries, words in [(0, "is not followed by its fault"), (-1, "seats[0].retries is -1, not a count")]:
        lines[0]["seats"][0]["retries"] = retries  # the seat's own retries decide where replay expects a fault
        chain, out = "", []
        for line in lines:  # a valid hash chain: a careful edit
            line.pop("chain", None)
            chain = _link(chain, line)
            out.append(json.dumps({**line, "chain": chain}) + "\n")
        (altered := tmp_path / "altered.jsonl").write_text("".join(out))
        with pytest.raises(ReplayError, match=re.escape(words)):
            replay(altered)


@pytest.mark.parametrize(
    ("bots", "words"),
    [
        (["human", RANDOM], "--bot human needs a terminal"),
        (["human", "human"], "one human seat per terminal"),
    ],
)
def test_a_human_seat_without_a_terminal_or_twice_is_one_line_and_exit_2(bots, words):
    args = [a for b in bots for a in ("--bot", b)]
    run = subprocess.run(
        [sys.executable, "-m", "referee", "play", "gin", *args],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2 and words in run.stderr and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1

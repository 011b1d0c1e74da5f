"""The fast subset of the fuzzer (`make fuzz` runs 100,000 cases per target): the decoder and the action
validator of every registered variant, with the generators of tests/fuzzing.py and tests/fuzz_lines.py."""

import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import msgspec
import pytest
from fuzz_lines import check_line, random_line
from fuzzing import Case, Stats, fuzz_variant, run_case
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import messages as m
from referee.process.runner import decode_reply
from referee.rules.engine import Game
from referee.rules.errors import IllegalAction
from referee.rules.variants import VARIANTS

HERE = Path(__file__).resolve().parent
FAST_CASES = 300  # per variant: about a second each


@pytest.mark.parametrize("slug", sorted(VARIANTS))
def test_random_plays_are_applied_or_rejected_by_a_rule_leaving_no_trace(slug):
    stats = fuzz_variant(slug, FAST_CASES, seed=1)
    assert not stats.failures, "\n".join(stats.failures[:5])
    # both paths are exercised: the generator makes legal plays as well as illegal ones
    assert stats.applied > 0 and sum(stats.rejected.values()) > 0


def _broken(monkeypatch, slug, wrap):
    """Replace `slug`'s play application by `wrap(original)` for one test."""
    cls = VARIANTS[slug]
    monkeypatch.setattr(cls, "_apply", wrap(cls._apply))


def test_an_exception_escaping_the_validator_is_a_failure_that_replays(monkeypatch):
    def wrap(original):
        def apply(self, seat, ops):
            if any(isinstance(op, m.Bid) for op in ops):  # no sample bot bids: only the fuzzer reaches it
                raise KeyError("a bug")
            return original(self, seat, ops)

        return apply

    _broken(monkeypatch, "gin", wrap)
    stats = fuzz_variant("gin", 400, seed=2)
    assert stats.failures and "KeyError escaped the validator" in stats.failures[0]
    case = Case.parse(":".join(stats.failures[0].split(":")[:5]))
    with pytest.raises(AssertionError, match="KeyError"):  # the printed case runs the failure again
        run_case(case)


def test_a_rejected_play_that_changes_the_state_is_a_failure(monkeypatch):
    def wrap(original):
        def apply(self, seat, ops):
            self.totals = [t + 1 for t in self.totals]  # a change the snapshot does not undo...
            try:
                return original(self, seat, ops)
            except IllegalAction:
                self.__dict__["leak"] = True  # ...and one only a full comparison of the state sees
                raise

        return apply

    _broken(monkeypatch, "classic", wrap)
    monkeypatch.setattr(Game, "_restore", lambda self, snap: None)
    stats = fuzz_variant("classic", 50, seed=3)
    assert stats.failures and "the rejected play" in stats.failures[0] and "changed the state" in stats.failures[0]


def test_a_rule_id_must_name_an_area_and_a_rule(monkeypatch):
    def wrap(original):
        def apply(self, seat, ops):
            try:
                return original(self, seat, ops)
            except IllegalAction as e:
                raise IllegalAction(e.rule.replace(".", " "), e.message) from None

        return apply

    _broken(monkeypatch, "stairs", wrap)
    stats = fuzz_variant("stairs", 50, seed=4)
    assert stats.failures and "not area.name" in stats.failures[0]


# --- the decoder -------------------------------------------------------------------------------------------
@settings(max_examples=300)
@given(st.randoms(use_true_random=False))
def test_hostile_lines_decode_to_a_reply_or_a_fault(rng):
    check_line(random_line(rng), Counter())


def test_the_decoder_generator_makes_every_kind_of_outcome():
    outcomes: Counter = Counter()
    rng = random.Random(5)
    for _ in range(2000):
        check_line(random_line(rng), outcomes)
    assert {"ready", "play", "fault:malformed", "fault:unknown_message"} <= set(outcomes)


cards = st.sampled_from(["7H", "TD", "AS", "JK", "7h", "10d", "ZZ", ""])
ints = st.integers(-(2**63), 2**63 - 1)
ops = st.one_of(
    st.builds(m.Draw, st.sampled_from(["stock", "discard"]), ints, ints),
    st.builds(m.Meld, st.lists(cards, max_size=5), st.none() | st.lists(cards, max_size=3), st.none() | st.text()),
    st.builds(m.LayOff, ints, st.lists(cards, max_size=3), st.none(), st.sampled_from([None, "low", "high"])),
    st.builds(m.Take, ints, st.lists(cards, max_size=3)),
    st.builds(m.Rearrange, st.lists(ints, max_size=3), st.lists(st.builds(m.Meld, st.lists(cards)), max_size=2)),
    st.builds(m.Exchange, ints, cards),
    st.builds(m.Discard, cards, ints),
    st.builds(m.Knock, st.none() | cards),
    st.builds(m.Pass),
    st.builds(m.Claim, ints),
    st.builds(m.Bid, ints | st.text(max_size=10)),
)


@given(ints, st.lists(ops, max_size=8))
def test_every_play_of_the_op_grammar_decodes_to_itself(rid, play_ops):
    play = m.Play(rid, play_ops)
    assert decode_reply(m.encode(play).rstrip(b"\n")) == play


@given(st.sampled_from(list(VARIANTS)), st.integers(0, 2**32 - 1), st.integers(0, 60), st.integers(0, 2**32 - 1))
@settings(max_examples=30, deadline=None)
def test_a_case_from_anywhere_holds_the_properties(slug, game_seed, step, play_seed):
    cls = VARIANTS[slug]
    players = cls.min_players + game_seed % (cls.max_players - cls.min_players + 1)
    run_case(Case(slug, players, game_seed, step, play_seed), stats=Stats())


def test_the_atheris_target_runs():
    pytest.importorskip("atheris", reason="atheris is not installed (pip install atheris)")
    out = subprocess.run(
        [sys.executable, str(HERE / "fuzz_main.py"), "--only", "decoder-atheris", "--cases", "2000"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr[-2000:]
    assert "decoder (atheris): 2000 cases" in out.stdout


def test_decode_from_bot_raises_only_what_decode_reply_turns_into_faults():
    deep = b'{"type":"play","id":1,"ops":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    with pytest.raises((msgspec.DecodeError, RecursionError)):
        m.decode_from_bot(deep)

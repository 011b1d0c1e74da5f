"""`romis duel`: the SPRT arithmetic against hand-computed values, the duplicate-paired bookkeeping, bad input,
and the CI gate end to end with real subprocess bots (greedy against random at gin, both ways round)."""

import math

import pytest
from procs import leftovers

from referee.cli import run
from tournaments.duel import Duel, DuelConfig, configure, pair_score, set_score
from tournaments.run import game_specs
from tournaments.spec import GameResult, SeatResult
from tournaments.sprt import Sprt, bounds, elo_to_score, grid, llr, mle, score_to_elo

GREEDY, RANDOM = "python -m sample_bots.greedy", "python -m sample_bots.random"


def romis(capsys, *args):
    """(exit code, stdout, stderr) of one in-process command line."""
    code = run(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# --- the SPRT arithmetic -------------------------------------------------------------------------------------
def test_bounds_are_walds():
    # ln(0.05 / 0.95) and ln(0.95 / 0.05); ln(0.1 / 0.95), ln(0.9 / 0.05)
    assert bounds(0.05, 0.05) == pytest.approx((-2.944438979, 2.944438979))
    assert bounds(0.05, 0.1) == pytest.approx((-2.251291799, 2.890371758))


def test_logistic_elo():
    assert elo_to_score(0) == 0.5
    assert elo_to_score(400) == pytest.approx(10 / 11)
    assert elo_to_score(-400) == pytest.approx(1 / 11)
    assert score_to_elo(10 / 11) == pytest.approx(400)
    assert score_to_elo(1.0) == math.inf and score_to_elo(0.0) == -math.inf


def test_llr_of_two_values_is_the_bernoulli_sprt():
    # 70 wins, 30 losses; H0 s = 0.5, H1 s = 0.6: 70 ln(0.6/0.5) + 30 ln(0.4/0.5) = 12.762509 - 6.694307
    assert llr({0.0: 30, 1.0: 70}, 0.5, 0.6) == pytest.approx(6.068202, abs=1e-6)
    # 30 wins, 70 losses: 30 ln(1.2) + 70 ln(0.8) = 5.469647 - 15.620049
    assert llr({0.0: 70, 1.0: 30}, 0.5, 0.6) == pytest.approx(-10.150402, abs=1e-6)


def test_mle_of_three_values_solves_the_quadratic_by_hand():
    # values 0, 1/2, 1 seen 1/4, 1/2, 1/4 of the time; the MLE with mean s = 0.6 has
    # p_i = q_i / (1 + t a_i), a = x - s = (-0.6, -0.1, 0.4), and t solves sum q_i a_i / (1 + t a_i) = 0, i.e.
    # (after multiplying out) A t^2 + B t + C = 0 with the coefficients below.
    q, a = (0.25, 0.5, 0.25), (-0.6, -0.1, 0.4)
    big_c = sum(qi * ai for qi, ai in zip(q, a))  # -0.2
    big_b = sum(q[i] * a[i] * sum(a[j] for j in range(3) if j != i) for i in range(3))
    big_a = sum(q[i] * a[i] * math.prod(a[j] for j in range(3) if j != i) for i in range(3))
    t = (-big_b - math.sqrt(big_b**2 - 4 * big_a * big_c)) / (2 * big_a)
    assert all(1 + t * ai > 0 for ai in a)  # the root inside the bracket
    p = mle([0.0, 0.5, 1.0], list(q), 0.6)
    assert p == pytest.approx([qi / (1 + t * ai) for qi, ai in zip(q, a)], abs=1e-9)
    assert sum(p) == pytest.approx(1) and sum(x * pi for x, pi in zip((0, 0.5, 1), p)) == pytest.approx(0.6)
    # at the empirical mean the MLE is the empirical distribution itself
    assert mle([0.0, 0.5, 1.0], list(q), 0.5) == pytest.approx(list(q))


def test_pentanomial_grid_and_mirror_symmetry():
    assert grid(2) == [0, 0.25, 0.5, 0.75, 1]
    ahead, behind = Sprt(2, -30, 30), Sprt(2, -30, 30)
    ahead.extend([1, 0.75, 0.75, 0.5, 0.25, 1])
    behind.extend([0, 0.25, 0.25, 0.5, 0.75, 0])  # the same deal sets seen from the other side
    assert ahead.llr() > 0
    assert behind.llr() == pytest.approx(-ahead.llr())


def test_sprt_decides_at_the_bounds_and_not_before():
    s = Sprt(2)  # defaults: elo0 0, elo1 50, alpha = beta = 0.05
    s.extend([0.5] * 3)
    assert s.verdict() is None
    wins = Sprt(2)
    while wins.verdict() is None:
        wins.add(1.0)
    assert wins.verdict() == "H1" and wins.llr() >= wins.upper
    losses = Sprt(2)
    while losses.verdict() is None:
        losses.add(0.0)
    assert losses.verdict() == "H0" and losses.llr() <= losses.lower
    assert 5 < wins.sets < 100 and 5 < losses.sets < 100


def test_a_level_duel_drifts_to_h0_when_elo0_is_zero():
    s = Sprt(2)
    s.extend([0.5, 0.25, 0.75] * 200)  # exactly level: score 0.5, nearer H0 (0 Elo) than H1 (50 Elo)
    assert s.llr() < s.lower


# --- duplicate-paired bookkeeping ---------------------------------------------------------------------------
def result(deal_set: int, rotation: int, ranks: dict[str, int]) -> GameResult:
    seats = [SeatResult(name, i, 0.0, rank) for i, (name, rank) in enumerate(ranks.items())]
    return GameResult(f"t0-d{deal_set}-r{rotation}", 0, deal_set, rotation, 1, 1, seats)


def test_pair_and_set_scores():
    assert pair_score(result(0, 0, {"new": 1, "old": 2})) == 1
    assert pair_score(result(0, 1, {"old": 1, "new": 2})) == 0
    assert pair_score(result(0, 0, {"new": 1, "old": 1})) == 0.5
    assert pair_score(result(0, 0, {"filler1": 1, "new": 2, "old": 3})) == 1  # only new against old counts
    assert set_score([result(0, 0, {"new": 1, "old": 2}), result(0, 1, {"old": 1, "new": 1})]) == 0.75


def test_deal_sets_are_counted_in_order_and_failed_sets_left_out():
    d = Duel(Sprt(2), 2)
    d.add(result(1, 0, {"new": 1, "old": 2}))
    d.add(result(1, 1, {"new": 1, "old": 2}))
    assert d.sprt.sets == 0  # deal set 1 is complete, but set 0 is not in yet
    d.add(result(0, 0, {"new": 2, "old": 1}))
    assert d.sprt.sets == 0
    d.add(result(0, 1, {"new": 2, "old": 1}))
    assert dict(d.sprt.counts) == {0.0: 1, 1.0: 1}
    d.add(result(3, 0, {"new": 1, "old": 2}))
    d.add(result(3, 1, {"new": 1, "old": 2}))
    d.fail(2)
    assert d.sprt.sets == 3 and d.failed == {2} and d.games == 6


def test_fillers_sit_in_both_orders_on_the_same_decks():
    cfg = configure("classic", GREEDY, RANDOM, [RANDOM], 12)
    assert isinstance(cfg, DuelConfig) and cfg.seats == 3 and cfg.deal_sets == 2  # 6 games a deal set
    specs = game_specs(cfg)
    assert len(specs) == 12
    for d in range(2):
        games = [s for s in specs if s.deal_set == d]
        assert len({s.seed for s in games}) == 1  # one deck for the whole deal set
        for who in ("new", "old", "filler1"):
            assert sorted(s.entrants.index(who) for s in games) == [0, 0, 1, 1, 2, 2]
        ahead = [s.entrants.index("new") - s.entrants.index("old") for s in games]
        assert {x % 3 for x in ahead} == {1, 2}  # old sits just after new, and just before it
    assert len({s.seed for s in specs}) == 2


# --- bad input ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "extra,line",
    [
        (["--alpha", "0"], "--alpha and --beta must lie between 0 and 1"),
        (["--elo0", "10", "--elo1", "5"], "--elo0 must be less than --elo1"),
        (["--max-games", "1"], "--max-games must be at least 2"),
    ],
)
def test_bad_settings_are_one_line_and_exit_2(capsys, extra, line):
    code, out, err = romis(capsys, "duel", "gin", "--new", GREEDY, "--old", RANDOM, *extra)
    assert code == 2 and out == ""
    assert err.startswith("romis: ") and line in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "args,line",
    [
        (["gin", "--new", "no-such-bot-x", "--old", RANDOM], "program 'no-such-bot-x' not found"),
        (["gni", "--new", GREEDY, "--old", RANDOM], "gin"),
        (["persian", "--new", GREEDY, "--old", RANDOM, "--filler", RANDOM, "--filler", RANDOM], "partnership"),
        (["gin", "--new", GREEDY, "--old", RANDOM, "--filler", RANDOM, "--filler", RANDOM], "seats"),
    ],
)
def test_bad_bots_and_tables_are_one_line_and_exit_2(capsys, args, line):
    code, out, err = romis(capsys, "duel", *args)
    assert code == 2 and out == "" and line in err and len(err.strip().splitlines()) == 1


# --- the CI gate end to end ---------------------------------------------------------------------------------
# elo1 300 rather than the default 50, and matches to 25 points rather than 100, keep these to a dozen short games
# or so; the exit codes and the evidence are the same machinery (the acceptance run, with the defaults, is
# measured in the report, not here).
FAST = ["--elo1", "300", "--max-games", "40", "--option", "target=25"]


@pytest.mark.e2e
def test_greedy_is_better_than_random(capsys):
    code, out, err = romis(capsys, "duel", "gin", "--new", GREEDY, "--old", RANDOM, *FAST)
    assert code == 0, out + err
    assert "verdict: new is better" in out
    llr_line = next(line for line in out.splitlines() if line.startswith("LLR "))
    value, upper = float(llr_line.split()[1].rstrip(",")), float(llr_line.split("]")[0].split(", ")[-1])
    assert value >= upper
    games = int(out.split("games: ")[1].split(";")[0])
    counted = int(out.split("deal sets counted: ")[1].split(" ")[0])
    # stopped early, on whole deal sets of 2 games; games of a later set may have finished before the verdict
    assert 2 * counted <= games < 40
    assert leftovers() == []  # the games still in play when it stopped were abandoned, their bots killed


@pytest.mark.e2e
def test_random_is_not_better_than_greedy(capsys):
    code, out, err = romis(capsys, "duel", "gin", "--new", RANDOM, "--old", GREEDY, *FAST)
    assert code == 1, out + err
    assert "verdict: new is not better" in out


@pytest.mark.e2e
def test_fillers_play_and_one_deal_set_is_inconclusive(capsys, tmp_path):
    code, out, err = romis(
        capsys,
        *("duel", "classic", "--new", GREEDY, "--old", RANDOM, "--filler", RANDOM, "--max-games", "6"),
        *("--option", "max_deals=1", "--records", str(tmp_path / "records")),
    )
    assert code == 3, out + err  # one deal set can never reach the bounds
    assert "duel classic at 3 seats" in out and "games: 6; deal sets counted: 1 of 6 games each" in out
    assert "verdict: inconclusive" in out
    assert len(list((tmp_path / "records").glob("*.jsonl"))) == 6  # a record per game, for romis replay


@pytest.mark.e2e
def test_a_crashing_new_version_is_not_better_and_its_faults_are_counted(capsys):
    code, out, err = romis(capsys, "duel", "gin", "--new", "python -m sample_bots.bad.crash", "--old", RANDOM, *FAST)
    assert code == 1, out + err
    faults = next(line for line in out.splitlines() if line.startswith("faults: "))
    assert faults.startswith("faults: new ") and "old" not in faults

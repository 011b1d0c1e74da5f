"""`romis tournament run|report`: thin commands over tournaments.run and tournaments.report."""

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from referee.rules.errors import ConfigError

if TYPE_CHECKING:
    from tournaments.duel import Duel
    from tournaments.spec import GameResult
    from tournaments.store import Failure

app = typer.Typer(no_args_is_help=True, help="Round-robin and gauntlet tournaments with durable results.")


@app.command()
def run(
    config: Annotated[Path | None, typer.Argument(help="tournament TOML file (see docs/tournaments.md)")] = None,
    entrant: Annotated[
        list[str] | None, typer.Option("--entrant", help="NAME=COMMAND; replaces the file's entrants")
    ] = None,
    variant: Annotated[str | None, typer.Option(help="variant slug")] = None,
    seats: Annotated[int | None, typer.Option(help="seats per table")] = None,
    deal_sets: Annotated[int | None, typer.Option(help="duplicate deal sets per table")] = None,
    concurrency: Annotated[int | None, typer.Option(help="games at once (default: number of cores)")] = None,
    seed: Annotated[
        int | None, typer.Option(help="master seed (default: the database's, else a secret one drawn at the first run)")
    ] = None,
    db: Annotated[str | None, typer.Option(help="results database (SQLite)")] = None,
    records: Annotated[str | None, typer.Option(help="directory for game records")] = None,
    partnerships: Annotated[
        str | None, typer.Option(help="a team variant's partnerships: fixed (one entrant per team) or mixed")
    ] = None,
    executor: Annotated[
        str | None, typer.Option(help="where games run: local (worker processes, the default) or dask")
    ] = None,
    scheduler: Annotated[
        str | None,
        typer.Option(help="with --executor dask: the scheduler, tls://HOST:PORT (default: a local cluster)"),
    ] = None,
    sandbox: Annotated[
        str | None, typer.Option(help="bwrap (every bot in a sandbox of its own, the default) or none (trusted bots)")
    ] = None,
) -> None:
    """Play a tournament (or resume it: games already in the database are skipped) and print the standings."""
    from tournaments.config import load, parse_entrant_flags
    from tournaments.event import report
    from tournaments.run import run_tournament
    from tournaments.store import StoreError

    if entrant is None:
        entrant = []
    cfg = load(
        config,
        {
            "entrants": parse_entrant_flags(entrant),
            "variant": variant,
            "seats": seats,
            "deal_sets": deal_sets,
            "concurrency": concurrency,
            "seed": seed,
            "db": db,
            "records": records,
            "partnerships": partnerships,
            "executor": executor,
            "scheduler": scheduler,
            "sandbox": sandbox,
        },
    )
    try:
        store = run_tournament(cfg)
    except KeyboardInterrupt:
        typer.echo(f"romis: interrupted; finished games are kept in {cfg.db}: run the same command to resume", err=True)
        raise typer.Exit(130) from None
    except StoreError as e:  # a full or read-only disk: every game stored before is kept
        typer.echo(
            f"romis: {e}; the run stopped, the games stored so far are kept in {cfg.db}: make room and "
            "run the same command to resume",
            err=True,
        )
        raise typer.Exit(3) from None
    typer.echo(report(store.results(), store.about(), "table"))
    failed = store.failures()
    for line in failure_lines(failed):
        typer.echo(line)
    typer.echo(f"results: {cfg.db}" + (f"; records: {cfg.records}" if cfg.records else ""))
    if failed:  # the standings are incomplete: say so in the exit code
        total = len(failed) + len(store.finished_keys())
        typer.echo(f"romis: {len(failed)} of {total} games failed; run the same command to play them again", err=True)
        raise typer.Exit(1)


def failure_lines(failed: list["Failure"]) -> list[str]:
    """The failed games' section of a report: how many, then each game with its entrants and reason."""
    if not failed:
        return []
    lines = [f"failed games: {len(failed)} (not in the standings; the same `romis tournament run` plays them again)"]
    for f in failed:
        tries = f" [{f.attempts} attempts]" if f.attempts > 1 else ""
        lines.append(f"  {f.key} ({', '.join(f.entrants)}): {f.reason}{tries}")
    return lines


@app.command()
def report(
    db: Annotated[Path, typer.Argument(help="results database written by `romis tournament run`")],
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            help="table, md, csv, json or html. Every format states what was played, except csv: it is the "
            "standings table only, and with -o FILE.csv the metadata goes to FILE.meta.csv (key,value rows)",
        ),
    ] = "table",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="write to this file instead of stdout")] = None,
    replays: Annotated[
        Path | None,
        typer.Option(
            help="html only: the directory of the game records; write each game's replay page (romis view) beside "
            "its record and link it from the report"
        ),
    ] = None,
) -> None:
    """Standings, head-to-head, ratings and duplicate-deal figures of a tournament, with what was played."""
    from tournaments.event import report as event_report
    from tournaments.report import FORMATS, meta_csv, meta_path, with_replays
    from tournaments.store import Store

    if fmt not in FORMATS:
        raise ConfigError(f"--format must be one of {', '.join(FORMATS)}")
    store = Store(db, readonly=True)  # no lock, no write: it works during a run and in a read-only directory
    about = store.about()
    text = event_report(store.results(), about, fmt)
    if replays is not None:
        if fmt != "html":
            raise ConfigError("--replays needs --format html")
        text = with_replays(text, store.results(), _replay_pages(store.results(), replays, output))
    if not output:
        typer.echo(text)
        for line in failure_lines(store.failures()):  # on stderr: it must not break a csv or json report
            typer.echo(line, err=True)
        return
    _write(output, text)
    if fmt == "csv":
        _write(meta_path(output), meta_csv(about))
        typer.echo(f"romis: standings in {output}, what was played in {meta_path(output)}", err=True)
    for line in failure_lines(store.failures()):
        typer.echo(line, err=True)


def _replay_pages(games: "list[GameResult]", records: Path, report: Path | None) -> dict[str, str]:
    """Each game's replay page, written beside its record unless already newer than it; the links, relative to
    the report's directory. A record that cannot be viewed is named on stderr and left out."""
    from referee.view import write

    if not records.is_dir():
        raise ConfigError(f"--replays: {records} is not a directory")
    links = {}
    for game in games:
        record = records / f"{game.key}.jsonl"
        page = records / f"{game.key}.html"
        if not record.exists():
            continue
        try:
            if not page.exists() or page.stat().st_mtime < record.stat().st_mtime:
                write(record, page)
        except ConfigError as e:
            typer.echo(f"romis: no replay for game {game.key}: {e}", err=True)
            continue
        links[game.key] = os.path.relpath(page, report.parent if report else Path.cwd())
    return links


def _write(path: Path, text: str) -> None:
    """Write a report file; a path that cannot be written is the user's mistake, not a crash."""
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"cannot write {path}: {e.strerror}") from None


DUEL_EXIT_CODES = "Exit codes: 0 new is better, 1 new is not better, 3 inconclusive at --max-games, 2 bad input."


def duel(
    variant: Annotated[str, typer.Argument(help="variant slug")],
    new: Annotated[str, typer.Option("--new", help="command of the new version of the bot")],
    old: Annotated[str, typer.Option("--old", help="command of the old version")],
    filler: Annotated[
        list[str] | None, typer.Option("--filler", help="command of a bot for another seat (once per extra seat)")
    ] = None,
    option: Annotated[list[str] | None, typer.Option("--option", help="variant option KEY=VALUE")] = None,
    max_games: Annotated[
        int, typer.Option(help="stop after this many games (whole deal sets), inconclusive (exit 3)")
    ] = 1000,
    elo0: Annotated[float, typer.Option(help="H0: new is at most this many Elo better")] = 0.0,
    elo1: Annotated[float, typer.Option(help="H1: new is at least this many Elo better")] = 50.0,
    alpha: Annotated[float, typer.Option(help="false 'better' rate (accepting H1 when H0 holds)")] = 0.05,
    beta: Annotated[float, typer.Option(help="false 'not better' rate (accepting H0 when H1 holds)")] = 0.05,
    seed: Annotated[int, typer.Option(help="master seed of the decks")] = 1,
    concurrency: Annotated[int | None, typer.Option(help="games at once (default: number of cores)")] = None,
    records: Annotated[str | None, typer.Option(help="directory for the game records (to see why a bot lost)")] = None,
) -> None:
    """Is the new version better than the old? Duplicate deals and an SPRT; stops as soon as the answer is clear."""
    from referee.cli import parse_options
    from tournaments.duel import EXIT, configure, evidence, games_per_set, run_duel
    from tournaments.sprt import Sprt, check

    problem = check(alpha, beta, elo0, elo1)
    if problem:
        raise ConfigError(problem)
    cfg = configure(
        variant,
        new,
        old,
        filler or [],
        max_games,
        seed=seed,
        concurrency=concurrency,
        records=records,
        options=parse_options(option or []),
    )
    sprt = Sprt(games_per_set(len(cfg.entrants)), elo0, elo1, alpha, beta)

    def progress(d: "Duel") -> None:
        mean, _ = d.sprt.score()
        typer.echo(f"[{d.games} games] deal set {d.sprt.sets}: score {mean:.3f}, LLR {d.sprt.llr():.3f}", err=True)

    try:
        result = run_duel(cfg, sprt, progress)
    except KeyboardInterrupt:
        typer.echo("romis: interrupted", err=True)
        raise typer.Exit(130) from None
    typer.echo(f"duel {cfg.variant} at {len(cfg.entrants)} seats: new {new!r} against old {old!r}")
    for line in evidence(result):
        typer.echo(line)
    raise typer.Exit(EXIT[result.sprt.verdict()])

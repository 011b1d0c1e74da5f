"""The `romis` command line: thin commands over plain functions; domain errors become exit codes."""

import json
import random
import sys
from pathlib import Path
from typing import Annotated

import typer

from protocol.cards import CardError, parse_cards
from referee.rules.errors import ConfigError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="romis: a referee and tournament runner for rummy-family card-game bots.",
)


def _add_tournaments() -> None:
    from tournaments.cli import app as tournament_app

    app.add_typer(tournament_app, name="tournament")


_add_tournaments()


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print one clear line on stderr and return the Exit to raise."""
    typer.echo(f"romis: {message}", err=True)
    return typer.Exit(code)


def parse_options(pairs: list[str]) -> dict[str, str]:
    """KEY=VALUE pairs from --option."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ConfigError(f"--option expects KEY=VALUE, got {pair!r}")
        out[key.strip()] = value.strip()
    return out


@app.command()
def variants(as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False) -> None:
    """List the variants romis can referee."""
    from referee.rules.variants import VARIANTS

    rows = [
        {
            "slug": v.slug,
            "name": v.name,
            "local_name": v.local_name,
            "family": v.family,
            "players": [v.min_players, v.max_players],
            "rules_version": v.rules_version,
            "options": {k: o.default for k, o in v.all_options().items()},
        }
        for v in VARIANTS.values()
    ]
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    for r in rows:
        typer.echo(
            f"{r['slug']:<14} {r['name']:<22} {r['local_name']:<22} {r['players'][0]}-{r['players'][1]} players  {r['family']}"
        )


@app.command()
def play(
    variant: Annotated[str, typer.Argument(help="variant slug (see `romis variants`)")],
    bot: Annotated[list[str], typer.Option("--bot", help="bot command, once per seat in seat order")],
    seed: Annotated[int | None, typer.Option(help="master seed (random if omitted)")] = None,
    record: Annotated[Path | None, typer.Option(help="write the game record (JSONL) here")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the result as JSON")] = False,
    timings: Annotated[bool, typer.Option(help="include timing figures in the JSON")] = False,
    move_time: Annotated[float, typer.Option(help="seconds per decision")] = 2.0,
    bank: Annotated[float, typer.Option(help="per-match time bank for overruns, seconds")] = 30.0,
    startup_time: Annotated[float, typer.Option(help="seconds for a bot to answer hello")] = 10.0,
    retries: Annotated[int, typer.Option(help="illegal plays a bot may retry per decision (0: forfeit at once)")] = 0,
    option: Annotated[list[str] | None, typer.Option("--option", help="variant option KEY=VALUE")] = None,
) -> None:
    """Play one match between bot programs and print the result."""
    from referee.play import play_match, render_text

    if option is None:
        option = []
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    try:
        out = play_match(variant, bot, seed, parse_options(option), record, move_time, bank, startup_time, retries)
    except KeyboardInterrupt:  # every bot is gone by now; the record keeps what was played
        raise fail("interrupted", 130)
    if as_json:
        typer.echo(json.dumps(out.summary(timings), indent=2))
    else:
        typer.echo(render_text(out))


@app.command()
def replay(file: Annotated[Path, typer.Argument(help="a game record written by `romis play --record`")]) -> None:
    """Re-validate a game record without the bots; exit 1 if it does not replay."""
    from referee.records import ReplayError
    from referee.records import replay as run_replay

    try:
        res = run_replay(file)
    except ReplayError as e:
        raise fail(f"{file}: {e.headline}", 1)
    typer.echo(f"{file}: ok ({res['variant']}, seed {res['seed']}, totals {res['totals']})")


@app.command()
def schema() -> None:
    """Print the JSON Schema of protocol v1."""
    from protocol.messages import json_schema

    typer.echo(json.dumps(json_schema(), indent=2))


@app.command(name="eval")
def evaluate(
    variant: Annotated[str, typer.Argument(help="variant slug")],
    hand: Annotated[str | None, typer.Option(help="cards, e.g. '7H 8H 9H KD'")] = None,
    hands_file: Annotated[Path | None, typer.Option(help="one hand per line; one JSON object per line out")] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """The variant's end-of-deal value of a hand: best melds, deadwood and points."""
    from referee.rules.variants import find_variant

    cls = find_variant(variant)
    if (hand is None) == (hands_file is None):
        raise ConfigError("give exactly one of --hand and --hands-file")
    if hand is not None:
        res = cls.evaluate(parse_cards(hand))
        if as_json:
            typer.echo(json.dumps(res))
        else:
            melds = "  ".join(" ".join(x) for x in res["melds"]) or "-"
            typer.echo(f"melds: {melds}\ndeadwood: {' '.join(res['deadwood']) or '-'}\npoints: {res['points']}")
        return
    try:
        lines = hands_file.read_text().splitlines()
    except OSError as e:
        raise ConfigError(f"cannot read {hands_file}: {e.strerror}") from None
    for n, text in enumerate(lines, 1):
        if text.strip():
            try:
                typer.echo(json.dumps(cls.evaluate(parse_cards(text))))
            except CardError as e:
                raise ConfigError(f"{hands_file}:{n}: {e}") from None


def main() -> None:
    """Console entry point: user errors exit 2 with one line."""
    try:
        app()
    except (ConfigError, CardError) as e:
        typer.echo(f"romis: {e}", err=True)
        sys.exit(2)

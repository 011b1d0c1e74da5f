"""The `romis` command line: thin commands over plain functions; domain errors become exit codes."""

import difflib
import json
import os
import signal
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
import typer.main

from protocol.cards import CardError, parse_cards
from referee.rules.dmd import DrawMeldDiscard
from referee.rules.errors import ConfigError
from referee.rules.exchange import Exchange
from referee.rules.knock import KnockGame
from referee.rules.rounds import Rounds

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="romis: a referee and tournament runner for rummy-family card-game bots.",
)


def _add_tournaments() -> None:
    from tournaments.cli import DUEL_EXIT_CODES, duel
    from tournaments.cli import app as tournament_app

    app.add_typer(tournament_app, name="tournament")
    app.command(epilog=DUEL_EXIT_CODES)(duel)


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


SANDBOX_HELP = (
    "bwrap: every bot in a bubblewrap sandbox (its own uid, namespaces, files and loopback); none: no sandbox, for "
    "bots you trust only (default: $ROMIS_SANDBOX, else bwrap, refused where the machine cannot sandbox; the "
    "help's last line says which is in force here)"
)
NETWORK_HELP = "give the bot in this seat (0, 1, ...) the host's network; others have only a loopback (repeatable)"
WRITABLE_HELP = "give the bot in this seat a private writable copy of its folder (repeatable)"
PATH_HELP = "let the bot in seat SEAT read the host path PATH, read-only at the same place (repeatable)"


def seat_boxes(seats: int, network: list[int], writable: list[int], paths: list[str]) -> list:
    """Each seat's sandbox settings from --network SEAT, --writable SEAT and --path SEAT=PATH; ConfigError for a
    seat out of range or a malformed pair."""
    from referee.process.sandbox import Box

    def seat_of(flag: str, text: Any) -> int:
        try:
            seat = int(text)
        except ValueError:
            raise ConfigError(f"{flag} expects a seat number, got {text!r}") from None
        if not 0 <= seat < seats:
            raise ConfigError(f"{flag} {seat}: seats are 0 to {seats - 1}")
        return seat

    extra: dict[int, list[str]] = {}
    for pair in paths:
        seat, sep, path = pair.partition("=")
        if not sep or not path:
            raise ConfigError(f"--path expects SEAT=PATH, got {pair!r}")
        extra.setdefault(seat_of("--path", seat), []).append(os.path.abspath(path))
    net = {seat_of("--network", s) for s in network}
    rw = {seat_of("--writable", s) for s in writable}
    return [Box(network=i in net, writable=i in rw, paths=tuple(extra.get(i, ()))) for i in range(seats)]


@app.command()
def variants(
    as_json: Annotated[
        bool, typer.Option("--json", help="machine-readable output, with each variant's reference")
    ] = False,
    markdown: Annotated[
        bool, typer.Option("--markdown", help="the per-variant reference page (docs/reference.md)")
    ] = False,
) -> None:
    """List the variants romis can referee."""
    from referee.reference import descriptions, render_reference

    rows = descriptions()
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    if markdown:
        typer.echo(render_reference(rows), nl=False)
        return
    table = []
    for r in rows:
        low, high = r["players"]
        table.append(
            (r["slug"], r["name"], r["local_name"], f"{low} players" if low == high else f"{low}-{high} players")
        )
    widths = [max(len(row[i]) for row in table) for i in range(4)]  # columns as wide as their longest entry
    for row, r in zip(table, rows):
        typer.echo(" ".join(cell.ljust(w) for cell, w in zip(row, widths)) + " " + r["family"])


@app.command()
def rules(
    variant: Annotated[
        str | None, typer.Argument(help="variant slug; omit it for the index, `general` for the shared conventions")
    ] = None,
    path: Annotated[bool, typer.Option("--path", help="print the file's absolute path instead")] = False,
) -> None:
    """Show a variant's rules (docs/rules/VARIANT.md) in the terminal."""
    from referee.reference import rules_file

    file = rules_file(variant)
    if not file.is_file():
        raise fail(f"the rules file for {variant or 'the index'} is missing: {file} (it ships in docs/rules/)", 1)
    if path:
        typer.echo(str(file))
        return
    from rich.console import Console
    from rich.markdown import Markdown

    Console().print(Markdown(file.read_text(encoding="utf-8")))


PLAY_EXIT_CODES = (
    "Exit codes: 0 the match was played (a faulted seat forfeits, but the match counts); "
    "1 a seat faulted and --strict was given; 2 bad input (one line on stderr); "
    "3 the disk refused the record (full or read-only: the match stops, no partial record is left); "
    "130 interrupted by Ctrl-C (143: stopped by SIGTERM). Every bot is gone in every case."
)


@app.command(epilog=PLAY_EXIT_CODES)
def play(
    variant: Annotated[str, typer.Argument(help="variant slug (see `romis variants`)")],
    bot: Annotated[
        list[str],
        typer.Option("--bot", help="bot command, once per seat in seat order (`human`: you, at this terminal)"),
    ],
    seed: Annotated[int | None, typer.Option(help="master seed (if omitted: a secret one, 62 random bits)")] = None,
    record: Annotated[Path | None, typer.Option(help="write the game record (JSONL) here")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the result as JSON")] = False,
    timings: Annotated[bool, typer.Option(help="include timing figures in the JSON")] = False,
    move_time: Annotated[float, typer.Option(help="seconds per decision (more than 0)")] = 2.0,
    bank: Annotated[float, typer.Option(help="per-match time bank for overruns, seconds (0: none)")] = 30.0,
    startup_time: Annotated[float, typer.Option(help="seconds for a bot to answer hello (more than 0)")] = 10.0,
    retries: Annotated[int, typer.Option(help="illegal plays a bot may retry per decision (0: forfeit at once)")] = 0,
    clock: Annotated[
        str,
        typer.Option(
            help="judge move time and bank by `wall` time or by the `cpu` time of the bot's process tree "
            "(then a wall cap of 10x move time + bank + 5 s still applies)"
        ),
    ] = "wall",
    pause_idle: Annotated[
        bool, typer.Option("--pause-idle", help="stop (SIGSTOP) each bot while it is not its decision")
    ] = False,
    shutdown_grace: Annotated[
        float, typer.Option(help="seconds a bot may take to exit by itself after shutdown before it is killed")
    ] = 1.0,
    option: Annotated[list[str] | None, typer.Option("--option", help="variant option KEY=VALUE")] = None,
    strict: Annotated[bool, typer.Option(help="exit 1 if any seat faulted (for scripts and CI)")] = False,
    progress: Annotated[
        bool | None, typer.Option("--progress/--no-progress", help="a line per deal on stderr [default: on a terminal]")
    ] = None,
    sign_key: Annotated[
        Path | None, typer.Option(help="sign the record with this key file (HMAC-SHA256; `romis replay --key`)")
    ] = None,
    sandbox: Annotated[str | None, typer.Option(help=SANDBOX_HELP)] = None,
    network: Annotated[list[int] | None, typer.Option("--network", help=NETWORK_HELP, metavar="SEAT")] = None,
    writable: Annotated[list[int] | None, typer.Option("--writable", help=WRITABLE_HELP, metavar="SEAT")] = None,
    path: Annotated[list[str] | None, typer.Option("--path", help=PATH_HELP, metavar="SEAT=PATH")] = None,
    no_network: Annotated[
        bool, typer.Option("--no-network", hidden=True, help="the default; kept for scripts")
    ] = False,
) -> None:
    """Play one match between bot programs and print the result."""
    from referee.play import HUMAN, new_match, render_text, run_match
    from referee.process.reaper import guard
    from referee.records import RecordError

    if seed is None:
        from referee.play import secret_seed

        seed = secret_seed()
    human = HUMAN in bot  # a person at this terminal: show every deal's end, and the hands revealed
    live = (human or (not as_json and sys.stderr.isatty())) if progress is None else progress
    match = None
    try:
        opts = parse_options(option or [])
        match = new_match(
            variant,
            bot,
            seed,
            opts,
            record,
            move_time,
            bank,
            startup_time,
            retries,
            sandbox=sandbox,
            boxes=seat_boxes(len(bot), network or [], writable or [], path or []),
            sign_key=sign_key,
            clock=clock,
            pause_idle=pause_idle,
            shutdown_grace=shutdown_grace,
        )
        match.on_deal = _deal_printer(hands=human) if live else None
        with guard():  # a SIGKILLed referee cannot kill its bots: the watchdog does (referee/process/reaper.py)
            out = run_match(match, stop_on=(signal.SIGTERM,))
    except KeyboardInterrupt as e:  # every bot is gone by now; the record keeps what was played
        raise _interrupted(getattr(e, "signum", signal.SIGINT), record) from None
    except RecordError as e:  # every bot is gone by now; a record already at that path is left as it was
        raise fail(f"{e}; " + ("the match was stopped" if match else "nothing was played"), 3) from None
    if as_json:
        typer.echo(json.dumps(out.summary(timings), indent=2))
    else:  # the deal lines are already on the screen when the progress shared it
        typer.echo(render_text(out, deals=not (live and sys.stdout.isatty())))
    faulted = [f"seat {s['seat']} ({s['fault']})" for s in out.summary()["seats"] if s["fault"]]
    if strict and faulted:
        raise fail(f"--strict: {', '.join(faulted)} faulted", 1)


def _deal_printer(hands: bool = False) -> Callable[[dict[str, Any]], None]:
    """Progress for a terminal: each deal's line on stderr as the deal ends (and the hands it revealed)."""
    from rich.console import Console
    from rich.text import Text

    from referee.play import deal_line

    console = Console(stderr=True, highlight=False, soft_wrap=True)

    def show(deal: dict[str, Any]) -> None:
        label, _, rest = deal_line(deal).partition(":")
        console.print(Text.assemble((f"{label}:", "bold"), rest))  # one write: Ctrl-C cannot split the line
        for i, hand in enumerate(deal.get("hands", []) if hands else []):
            console.print(f"  seat {i} held {' '.join(hand) or '-'}", markup=False)

    return show


def _interrupted(signum: int, record: Path | None) -> typer.Exit:
    """The one line and the exit code (128 + the signal) of a stopped match."""
    what = "interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}"
    kept = f"; the record so far is in {record}" if record else ""
    return fail(what + kept, 128 + signum)


@app.command()
def replay(
    file: Annotated[Path, typer.Argument(help="a game record written by `romis play --record`")],
    key: Annotated[
        Path | None, typer.Option(help="the key file the record was signed with: prove nobody without it changed it")
    ] = None,
) -> None:
    """Re-validate a game record without the bots (and its signature, with --key); exit 1 if it does not replay."""
    from referee.records import SIGNATURE_WORDS, ReplayError, load_key
    from referee.records import replay as run_replay

    secret = load_key(key, "--key") if key is not None else None
    try:
        res = run_replay(file, secret)
    except ReplayError as e:
        raise fail(f"{file}: {e.headline}", 1) from None
    words = SIGNATURE_WORDS[res["signature"]]
    typer.echo(f"{file}: ok ({res['variant']}, seed {res['seed']}, totals {res['totals']}); {words}")


CHECK_EXIT_CODES = "Exit codes: 0 everything passed; 1 something failed (the report says what); 2 bad input."


@app.command(epilog=CHECK_EXIT_CODES)
def check(
    bot: Annotated[str, typer.Argument(help="the bot command to check")],
    variant: Annotated[list[str] | None, typer.Option("--variant", help="a variant to check (repeatable)")] = None,
    every: Annotated[bool, typer.Option("--all", help="check every registered variant")] = False,
    junit: Annotated[Path | None, typer.Option(help="write the results as JUnit XML here")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
    seed: Annotated[int, typer.Option(help="seed of the matches and of the crafted positions")] = 1,
    move_time: Annotated[float, typer.Option(help="seconds per decision (more than 0)")] = 2.0,
    startup_time: Annotated[float, typer.Option(help="seconds for the bot to answer hello (more than 0)")] = 10.0,
    sandbox: Annotated[str | None, typer.Option(help=SANDBOX_HELP)] = None,
    network: Annotated[bool, typer.Option("--network", help="give the bot the host's network")] = False,
    writable: Annotated[bool, typer.Option("--writable", help="a private writable copy of the bot's folder")] = False,
    path: Annotated[list[str] | None, typer.Option("--path", help="a host path the bot may read (repeatable)")] = None,
    no_network: Annotated[
        bool, typer.Option("--no-network", hidden=True, help="the default; kept for scripts")
    ] = False,
) -> None:
    """Check that a bot speaks the protocol and plays every decision kind of each variant legally (default:
    classic): a seeded match against the fallback policy, then crafted positions for the rarer decisions."""
    from referee.check import check as run_check
    from referee.check import junit as to_junit
    from referee.check import render_text as check_text
    from referee.play import check_limits
    from referee.rules.variants import VARIANTS

    if every and variant:
        raise ConfigError("give --variant or --all, not both")
    check_limits({"move_time": move_time, "startup_time": startup_time})
    if junit is not None and not junit.parent.is_dir():
        raise ConfigError(f"--junit {junit}: no such directory {junit.parent}")
    slugs = sorted(VARIANTS) if every else variant or ["classic"]
    box = seat_boxes(1, [0] if network else [], [0] if writable else [], [f"0={p}" for p in path or []])[0]
    report = run_check(bot, slugs, seed, move_time, startup_time, box, sandbox)
    if junit is not None:
        try:
            junit.write_bytes(to_junit(report))
        except OSError as e:
            raise ConfigError(f"cannot write --junit {junit}: {e.strerror}") from None
    typer.echo(json.dumps(report, indent=2) if as_json else check_text(report))
    if not report["passed"]:
        raise typer.Exit(1)


@app.command()
def view(
    file: Annotated[Path, typer.Argument(help="a game record written by `romis play --record`")],
    out: Annotated[Path, typer.Option("--out", "-o", help="the HTML file to write")] = Path("replay.html"),
) -> None:
    """Write one self-contained HTML page that replays a game record in the browser (no network, no server)."""
    from referee.view import write

    steps = write(file, out)
    typer.echo(f"{out}: {steps} steps of {file}")


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
    """The variant's end-of-deal value of a hand: best melds, deadwood and points (two-candles: its five features)."""
    from referee.rules.variants import find_variant

    cls = find_variant(variant)
    if (hand is None) == (hands_file is None):
        raise ConfigError("give exactly one of --hand and --hands-file")
    if not issubclass(cls, (DrawMeldDiscard, Exchange, Rounds)):
        raise ConfigError(f"romis eval does not know how to value {cls.slug} hands yet")
    largest = cls(cls.max_players, {}, 0)  # the deck of its largest table, default options
    if hand is not None:
        res = cls.evaluate(_holdable(largest, hand))
        if as_json:
            typer.echo(json.dumps(res))
        elif "same_rank" in res:  # two-candles: no melds, five features
            typer.echo(_features(res))
        else:
            # named kinds (liverpool) and combination types (panguingue) follow their melds
            kinds = res.get("kinds") or res.get("types") or [""] * len(res["melds"])
            melds = "  ".join(" ".join(x) + (f" ({k})" if k else "") for x, k in zip(res["melds"], kinds)) or "-"
            typer.echo(f"melds: {melds}\ndeadwood: {' '.join(res['deadwood']) or '-'}")
            if "points" in res:
                typer.echo(f"points: {res['points']}")
            if "may_knock" in res:  # carousel: whether the free points allow a knock
                typer.echo(f"may knock: {'yes' if res['may_knock'] else 'no'}")
            if "conditions" in res:  # panguingue: what melding each would collect from every other participant
                each = " ".join(map(str, res["conditions"])) or "-"
                typer.echo(f"conditions: {each} chip(s) from each other participant ({res['condition_chips']} in all)")
                typer.echo(f"goes out: {'yes' if res['goes_out'] else 'no'}")
            if "meld_values" in res:  # persian: melds score for their side, so the hand has a value
                typer.echo(f"meld values: {' '.join(map(str, res['meld_values'])) or '-'}\nvalue: {res['value']}")
            if "verdict" in res:  # continental: whether the hand can be laid down, and how
                typer.echo(f"laying down: {res['verdict']}")
            if "quartets" in res:  # orija: each suit's best simple quartet and its showing value
                typer.echo("quartets: " + ("  ".join(f"{k} {q['value']}" for k, q in res["quartets"].items()) or "-"))
            if "requirements" in res:  # liverpool: the places whose requirement the hand meets
                met = [f"{r['place']} ({r['name']})" for r in res["requirements"] if r["met"]]
                typer.echo(f"meets the requirement of places: {', '.join(met) or 'none'}")
        return
    assert hands_file is not None
    try:
        lines = hands_file.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise ConfigError(f"cannot read {hands_file}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{hands_file}: not a text file of hands") from None
    hands = [(n, text) for n, text in enumerate(lines, 1) if text.strip()]
    if not hands:
        raise ConfigError(f"{hands_file}: no hands in it (one hand per line)")
    for n, text in hands:
        try:
            typer.echo(json.dumps(cls.evaluate(_holdable(largest, text))))
        except (CardError, ConfigError) as e:
            raise ConfigError(f"{hands_file}:{n}: {e}") from None


_FEATURES = {  # rules/two-candles.md, Valid combinations
    "same_rank": ("largest same-rank group", "card"),
    "suit": ("longest suit", "card"),
    "quartets": ("similar quartets", "quartet"),
    "colour": ("larger colour", "card"),
    "pairs": ("identical pairs", "pair"),
}


def _features(res: dict[str, Any]) -> str:
    """A two-candles evaluation as one line per feature (what it counts and its points), then the total."""
    lines = []
    for key, (label, unit) in _FEATURES.items():
        count, points = res[key]["count"], res[key]["points"]
        lines.append(f"{label}: {count} {unit}{'' if count == 1 else 's'}, {points} points")
    return "\n".join(lines + [f"points: {res['points']}"])


def _holdable(game: DrawMeldDiscard | Exchange | Rounds, text: str) -> list[str]:
    """The cards of `text`; ConfigError if the players of `game` (the variant's largest table) could never hold them."""
    cards, deck, slug = parse_cards(text), Counter(game.cards_in_play()), game.slug
    if not cards:
        raise ConfigError("the hand is empty")
    for card, count in sorted(Counter(cards).items()):
        if deck[card] == 0:
            raise ConfigError(f"{card} is not in the {slug} deck")
        if count > deck[card]:
            raise ConfigError(f"{card} is in the hand {count} times, but the {slug} deck has {deck[card]}")
    most = game.hand_size + 1  # knock games hold a hand, one more mid-turn
    if isinstance(game, KnockGame) and len(cards) > most:
        raise ConfigError(f"{slug} hands hold at most {most} cards, this one has {len(cards)}")
    return cards


def main(argv: list[str] | None = None) -> None:
    """Console entry point. Every failure is one line on stderr: bad input exits 2, Ctrl-C 130."""
    code = run(sys.argv[1:] if argv is None else argv)
    if code == 130:
        # a Ctrl-C that lands in code run by exec() (dataclasses, namedtuples: imports) sets CPython to kill
        # itself by SIGINT at exit, although the interrupt was handled; the documented code is 130
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


def run(argv: list[str]) -> int:
    """Run the command line `argv`; the exit code."""
    if "play" in argv:
        _describe_sandbox_in_help()
    command = typer.main.get_command(app)
    try:
        with command.make_context("romis", list(argv)) as ctx:
            command.invoke(ctx)
    except typer.Exit as e:
        return e.exit_code
    except typer.TyperException as e:  # typer's usage errors, made one line like ours
        return _usage_error(e)
    except typer.Abort:
        typer.echo("romis: aborted", err=True)
        return 1
    except (ConfigError, CardError) as e:
        typer.echo(f"romis: {e}", err=True)
        return 2
    except KeyboardInterrupt:
        typer.echo("romis: interrupted", err=True)
        return 130
    except BrokenPipeError:  # `romis ... | head`: the reader has gone; so has any point in writing
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 0


def _describe_sandbox_in_help() -> None:
    """Add the sandbox in force to `romis play --help`; only then, because finding it out starts processes."""
    from referee.process.sandbox import describe as describe_sandbox

    for info in app.registered_commands:
        if info.callback is play:
            info.epilog = f"{PLAY_EXIT_CODES}\n\n{describe_sandbox()}"


def _usage_error(e: typer.TyperException) -> int:
    """Print a usage error as one line, with the nearest option for a misspelt one; its exit code."""
    message = " ".join(e.format_message().split())
    if not message:  # `romis` alone: typer has printed the help
        return e.exit_code
    options = getattr(e, "possibilities", None)
    if options:  # click lists every option sharing a prefix; name the nearest, as for variants
        close = difflib.get_close_matches(getattr(e, "option_name", ""), options, n=1, cutoff=0)
        message = f"{message.partition(' (Possible')[0]} (did you mean {close[0]}?)"
    ctx = getattr(e, "ctx", None)
    hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
    typer.echo(f"romis: {message.rstrip('.')}{hint}", err=True)
    return e.exit_code

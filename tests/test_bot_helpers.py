"""The bot helpers (protocol/bot.py, sample_bots/js/romis.js, sample_bots/c/romis.h): each copied alone next to a
tiny bot that uses it, with no romis on the bot's path, and played by `romis play`."""

import io
import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from protocol.bot import run

ROOT = Path(__file__).resolve().parent.parent
GREEDY = "python -m sample_bots.greedy"
HELLO = {"type": "hello", "protocol": 1, "variant": "gin", "seat": 0, "players": 2, "seed": 9}
REQUEST = {"type": "request", "id": 4, "decision": {"kind": "turn", "options": [{"op": "draw"}]}, "view": {}}


def lines(*msgs) -> bytes:
    return b"".join(json.dumps(m).encode() + b"\n" for m in msgs)


def play(*bots: str, variant: str = "gin", extra: tuple[str, ...] = ()) -> dict:
    args = [a for b in bots for a in ("--bot", b)]
    r = subprocess.run(
        [sys.executable, "-m", "referee", "play", variant, *args, "--seed", "2", "--json", *extra],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_the_python_helper_alone_runs_a_bot_that_plays_a_whole_match(tmp_path):
    shutil.copy(ROOT / "protocol/bot.py", tmp_path / "bot.py")
    (tmp_path / "tiny.py").write_text(
        "from bot import run\n"
        "seen = []\n"
        "def decide(request):\n"
        "    assert seen == ['hello'], seen  # the hook saw hello before the first request\n"
        "    return [request['decision']['options'][-1]]\n"
        "run(decide, name='last-option', on_hello=lambda m: seen.append(m['type']))\n"
    )
    # -S: no site-packages, so neither romis nor msgspec can be imported; the helper must not need them
    res = play(f"{sys.executable} -S {tmp_path / 'tiny.py'}", GREEDY)
    assert [(s["name"], s["fault"]) for s in res["seats"]] == [("last-option", None), ("greedy", None)]


def test_the_python_helper_answers_in_order_and_stops_at_shutdown():
    seen: list[str] = []
    out = io.BytesIO()
    hooks = {f"on_{k}": (lambda m: seen.append(m["type"])) for k in ("hello", "rejected", "deal_over", "match_over")}
    stdin = io.BytesIO(lines(HELLO, REQUEST, {"type": "deal_over"}, {"type": "shutdown"}, REQUEST))
    run(lambda r: [r["decision"]["options"][0]], "t", stdin=stdin, stdout=out, **hooks)
    assert [json.loads(x) for x in out.getvalue().splitlines()] == [
        {"type": "ready", "name": "t", "version": "1"},
        {"type": "play", "id": 4, "ops": [{"op": "draw"}]},
    ]
    assert seen == ["hello", "deal_over"]  # nothing after shutdown


@pytest.mark.parametrize(
    ("data", "said"),
    [(lines(REQUEST), "a request came before hello"), (b"{oops\n", "cannot read a line from the referee")],
    ids=["request-before-hello", "not-json"],
)
def test_the_python_helper_stops_with_one_line_on_input_it_cannot_use(data, said):
    with pytest.raises(SystemExit) as stop:
        run(lambda r: [], "t", stdin=io.BytesIO(data), stdout=io.BytesIO())
    assert str(stop.value).startswith("t: ") and said in str(stop.value)


def test_the_javascript_helper_alone_runs_a_bot_that_plays_a_whole_match(tmp_path):
    shutil.copy(ROOT / "sample_bots/js/romis.js", tmp_path / "romis.js")
    (tmp_path / "tiny.js").write_text(
        'const { run } = require("./romis");\n'
        "let hellos = 0;\n"
        "run((r) => [r.decision.options[hellos - 1]], { name: 'first-option', onHello: () => hellos++ });\n"
    )
    res = play(f"node {tmp_path / 'tiny.js'}", GREEDY)
    assert [(s["name"], s["fault"]) for s in res["seats"]] == [("first-option", None), ("greedy", None)]


@pytest.mark.parametrize("bot", ["js", "c"])
@pytest.mark.parametrize(
    ("data", "said"),
    [(lines(REQUEST), "a request came before hello"), (b"{oops\n", "cannot read a line from the referee")],
    ids=["request-before-hello", "not-json"],
)
def test_the_javascript_and_c_helpers_stop_with_one_line_on_input_they_cannot_use(bot, data, said, c_bot):
    cmd = ["node", str(ROOT / "sample_bots/js/random.js")] if bot == "js" else [c_bot]
    r = subprocess.run(cmd, input=data, capture_output=True, timeout=60)
    err = r.stderr.decode()
    assert r.returncode == 1 and r.stdout == b"" and said in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("bot", ["js", "c"])
def test_the_javascript_and_c_bots_answer_hello_and_echo_a_listed_option(bot, c_bot):
    cmd = ["node", str(ROOT / "sample_bots/js/random.js")] if bot == "js" else [c_bot]
    options = [{"op": "discard", "card": c} for c in ("7H", "TD", "AS")]
    request = {**REQUEST, "id": 12, "decision": {"kind": "turn", "phase": "play", "options": options}}
    r = subprocess.run(cmd, input=lines(HELLO, request, {"type": "shutdown"}), capture_output=True, timeout=60)
    ready, answer = [json.loads(x) for x in r.stdout.splitlines()]
    assert r.returncode == 0 and ready["type"] == "ready" and ready["name"] == f"random-{bot}"
    assert answer["type"] == "play" and answer["id"] == 12 and len(answer["ops"]) == 1 and answer["ops"][0] in options


def test_the_examples_in_the_guide_play_legally_at_one_table(tmp_path):
    import re

    guide = (ROOT / "docs/bots.md").read_text().split("## Writing a bot: the helpers")[1].split("\n## ")[0]
    code = dict(re.findall(r"```(python|js|c)\n(.*?)```", guide, re.S))
    shutil.copy(ROOT / "protocol/bot.py", tmp_path / "bot.py")
    shutil.copy(ROOT / "sample_bots/js/romis.js", tmp_path / "romis.js")
    for lang, ext in [("python", "py"), ("js", "js"), ("c", "c")]:
        (tmp_path / f"first.{ext}").write_text(code[lang])
    cc = [
        "gcc",
        "-std=c99",
        "-I",
        str(ROOT / "sample_bots/c"),
        "-o",
        str(tmp_path / "first"),
        str(tmp_path / "first.c"),
    ]
    assert subprocess.run(cc, capture_output=True).returncode == 0
    bots = [f"{sys.executable} -S {tmp_path / 'first.py'}", f"node {tmp_path / 'first.js'}", str(tmp_path / "first")]
    res = play(*bots, variant="gin-three", extra=("--option", "max_deals=1"))
    assert [(s["name"], s["fault"]) for s in res["seats"]] == [("first-option", None)] * 3


def test_the_guides_first_bot_passes_romis_check(tmp_path):
    """The quick start of docs/bots.md, as a stranger runs it: the helper copied beside the bot, and the guide's
    `romis check` command exits 0."""
    import re

    start = (ROOT / "docs/bots.md").read_text().split("## From a fresh clone")[1].split("\n## ")[0]
    (code,) = re.findall(r"```python\n(.*?)```", start, re.S)
    (command,) = re.findall(r"^romis check (.*?)(?:  +#.*)?$", start, re.M)
    shutil.copy(ROOT / "protocol/bot.py", tmp_path / "bot.py")
    (tmp_path / "mybot.py").write_text(code)
    args = [a.replace("mybot/", f"{tmp_path}/") for a in shlex.split(command)]
    r = subprocess.run([sys.executable, "-m", "referee", "check", *args], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.endswith("all passed\n"), r.stdout + r.stderr

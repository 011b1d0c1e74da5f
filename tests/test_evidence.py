"""Records as evidence: a record edited and re-chained with the public algorithm does not replay, and a signed
record proves, with its key, that nobody without the key changed what replay cannot re-derive."""

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from referee.cli import run
from referee.play import play_match
from referee.records import RecordInterrupted, ReplayError, SignatureError, replay, sign_record
from tournaments import config
from tournaments.run import game_specs, play_game

ROOT = Path(__file__).resolve().parent.parent
RANDOM = "python -m sample_bots.random"
ILLEGAL = "python -m sample_bots.bad.illegal"  # legal for three requests, then an illegal discard


def _play(path: Path, bots: list[str], key: Path | None) -> Path:
    cwd = os.getcwd()
    os.chdir(ROOT)  # the bots run as `python -m sample_bots...`
    try:
        play_match("gin", bots, 3, {"max_deals": 2}, path, sign_key=key)
    finally:
        os.chdir(cwd)
    return path


@pytest.fixture(scope="module")
def key(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("keys") / "organiser.key"
    path.write_bytes(b"the organiser's secret, 32 bytes")
    return path


@pytest.fixture(scope="module")
def clean(tmp_path_factory, key) -> Path:
    """A signed record of two random bots playing two deals of gin."""
    return _play(tmp_path_factory.mktemp("clean") / "gin.jsonl", [RANDOM, RANDOM], key)


@pytest.fixture(scope="module")
def faulty(tmp_path_factory, key) -> Path:
    """A signed record in which seat 0 makes an illegal play, faults, and the fallback plays its cards."""
    return _play(tmp_path_factory.mktemp("faulty") / "gin.jsonl", [ILLEGAL, RANDOM], key)


def lines_of(path: Path) -> list[dict]:
    """The record's lines without their chain and signature."""
    out = [json.loads(raw) for raw in path.read_text().splitlines()]
    for line in out:
        line.pop("chain")
        line.pop("signature", None)
    return out


def signature_of(path: Path) -> dict | None:
    return json.loads(path.read_text().splitlines()[-1]).get("signature")


def rechain(lines: list[dict], path: Path, signature: dict | None = None) -> Path:
    """Write `lines` with a valid chain, as anyone can compute it (sha256 over the previous chain and the line),
    keeping the original signature in the last line (all a forger without the key can do)."""
    chain, out = "", []
    for line in lines:
        canonical = json.dumps(line, sort_keys=True, separators=(",", ":"))
        chain = hashlib.sha256(chain.encode() + canonical.encode()).hexdigest()
        out.append({**line, "chain": chain})
    if signature is not None:
        out[-1]["signature"] = signature
    path.write_text("".join(json.dumps(x) + "\n" for x in out))
    return path


def index(lines: list[dict], kind: str, pred: Callable[[dict], bool] = lambda line: True) -> int:
    return next(i for i, line in enumerate(lines) if line["type"] == kind and pred(line))


def romis(argv: list[str], capsys) -> tuple[int, str, str]:
    code = run(argv)
    out, err = capsys.readouterr()
    return code, out, err


# --- tampering with what replay re-derives: refused without any key ------------------------------------------
def _deal_field(field: str, value: Callable[[dict], object]) -> Callable[[list[dict]], None]:
    def change(lines: list[dict]) -> None:
        line = lines[index(lines, "deal_over")]
        line[field] = value(line)

    return change


def _result_field(field: str, value: Callable[[dict], object]) -> Callable[[list[dict]], None]:
    def change(lines: list[dict]) -> None:
        line = lines[index(lines, "result")]
        line[field] = value(line)

    return change


def _move(kind: str, by: int, pred: Callable[[dict], bool] = lambda line: True) -> Callable[[list[dict]], None]:
    def change(lines: list[dict]) -> None:
        i = index(lines, kind, pred)
        lines.insert(i + by, lines.pop(i))

    return change


def _drop(kind: str) -> Callable[[list[dict]], None]:
    return lambda lines: lines.pop(index(lines, kind)) and None


def _ok_to_fallback(lines: list[dict]) -> None:
    lines[index(lines, "action", lambda line: line["seat"] == 1 and line["verdict"] == "ok")]["verdict"] = "fallback"


def _fault_detail(lines: list[dict]) -> None:
    lines[index(lines, "fault")]["detail"] = "illegal: took too long"


def _fault_kind(lines: list[dict]) -> None:
    lines[index(lines, "fault")]["kind"] = "timeout"


def _fault_seat(lines: list[dict]) -> None:
    lines[index(lines, "fault")]["seat"] = 1


def _header_after_result(lines: list[dict]) -> None:
    lines.append(dict(lines[0], seed=lines[0]["seed"] + 1))


def _retries(lines: list[dict]) -> None:
    lines[0]["limits"]["retries"] = 2


def _swap_winner(line: dict) -> int:
    return 0 if line.get("winner") != 0 else 1


# (record, change, words the refusal names)
DERIVED = {
    "deal_over scores changed": ("clean", _deal_field("scores", lambda ln: [s + 10 for s in ln["scores"]]), "scores"),
    "deal_over totals changed": ("clean", _deal_field("totals", lambda ln: [t + 10 for t in ln["totals"]]), "totals"),
    "deal_over winner changed": ("clean", _deal_field("winner", _swap_winner), "winner"),
    "deal_over hands changed": ("clean", _deal_field("hands", lambda ln: [[], []]), "hands"),
    "result ranks changed": (
        "clean",
        _result_field("ranks", lambda ln: [3 - r for r in ln["ranks"]]),
        "the result's ranks",
    ),
    "result faults changed": ("faulty", _result_field("faults", lambda ln: [None, None]), "the result's faults"),
    "result faults added": ("clean", _result_field("faults", lambda ln: [None, "timeout"]), "the result's faults"),
    "a fault line deleted": ("faulty", _drop("fault"), "is not followed by its fault"),
    "a fault line moved later": ("faulty", _move("fault", 2), "is not followed by its fault"),
    "a fault line moved earlier": ("faulty", _move("fault", -2), "that no play on replay explains"),
    "a fault's reason changed": ("faulty", _fault_detail, "seat 0's fault differs on replay"),
    "a fault's kind changed": ("faulty", _fault_kind, "seat 0's fault differs on replay"),
    "a fault blamed on the other seat": ("faulty", _fault_seat, "that no play on replay explains"),
    "a verdict ok changed to fallback": ("clean", _ok_to_fallback, "a fallback play for seat 1, which has no fault"),
    "a deal_over deleted": ("clean", _drop("deal_over"), "the deal_over of deal 0 is missing"),
    "a deal_over moved later": ("clean", _move("deal_over", 1), "the deal_over of deal 0 is missing"),
    "a deal_over moved earlier": ("clean", _move("deal_over", -1), "but no deal ends here on replay"),
    "a second header after the result": ("clean", _header_after_result, "a header line after the result"),
    "retries raised in the header": ("faulty", _retries, "that no play on replay explains"),
}


@pytest.mark.parametrize("case", DERIVED)
def test_a_rechained_record_with_a_derived_field_changed_does_not_replay(case, clean, faulty, tmp_path, capsys):
    which, change, words = DERIVED[case]
    original = {"clean": clean, "faulty": faulty}[which]
    assert replay(original)["signature"] == "unchecked"  # the untouched record replays
    lines = lines_of(original)
    change(lines)
    path = rechain(lines, tmp_path / "forged.jsonl", signature_of(original))
    with pytest.raises(ReplayError, match=words) as caught:
        replay(path)
    assert not isinstance(caught.value, SignatureError)  # refused by re-derivation alone, without a key
    code, out, err = romis(["replay", str(path)], capsys)
    assert code == 1 and out == "" and err.count("\n") == 1 and words in err


def test_the_faulty_record_shows_the_fault_and_its_fallback(faulty):
    lines = lines_of(faulty)
    fault = index(lines, "fault")
    assert lines[fault]["seat"] == 0 and lines[fault]["kind"] == "illegal"
    assert lines[fault - 1]["verdict"].startswith("illegal:") and lines[fault + 1]["verdict"] == "fallback"
    assert lines[-1]["type"] == "result" and lines[-1]["faults"] == ["illegal", None] and lines[-1]["ranks"][0] == 2


# --- what replay cannot re-derive: only the key protects it --------------------------------------------------
def _limit(lines: list[dict]) -> None:
    lines[0]["limits"]["move_time"] = 60.0


def _command(lines: list[dict]) -> None:
    lines[0]["seats"][1]["bot"] = "python -m sample_bots.greedy"


def _name(lines: list[dict]) -> None:
    lines[index(lines, "ready", lambda line: line["seat"] == 1)]["name"] = "someone else"


UNDERIVABLE = {
    "a header limit changed": (_limit, "the header's 'limits' was changed after the record was signed"),
    "a bot command changed": (_command, "the header's 'seats' was changed after the record was signed"),
    "a bot's name changed": (_name, "the record was changed after it was signed (and re-chained without the key)"),
}


@pytest.mark.parametrize("case", UNDERIVABLE)
def test_a_change_replay_cannot_derive_is_refused_with_the_key(case, clean, key, tmp_path, capsys):
    change, words = UNDERIVABLE[case]
    lines = lines_of(clean)
    change(lines)
    path = rechain(lines, tmp_path / "forged.jsonl", signature_of(clean))
    code, out, err = romis(["replay", str(path)], capsys)  # without the key it cannot be told
    assert code == 0 and out.rstrip().endswith("; signed; signature not checked (no --key)")
    code, out, err = romis(["replay", str(path), "--key", str(key)], capsys)
    assert (code, out) == (1, "") and err == f"romis: {path}: signature refused: {words}\n"


def test_a_signed_record_replays_with_its_key(clean, key, capsys):
    code, out, err = romis(["replay", str(clean), "--key", str(key)], capsys)
    assert (
        code == 0 and err == "" and out.startswith(f"{clean}: ok (gin, seed 3") and out.endswith("; signed, key ok\n")
    )


@pytest.mark.parametrize("name", ["clean", "faulty"])
def test_a_record_signed_after_it_was_written_is_byte_for_byte_the_one_signed_while_written(name, key, request):
    """What a tournament on a Dask cluster does: the worker writes the record unsigned, the client signs it."""
    signed = request.getfixturevalue(name).read_bytes()
    *lines, last = signed.decode().splitlines()
    unsigned = json.loads(last)
    del unsigned["signature"]
    lines.append(json.dumps(unsigned, separators=(",", ":")))  # as RecordWriter writes a line
    assert sign_record("".join(line + "\n" for line in lines).encode(), key.read_bytes()) == signed


def test_a_wrong_key_is_refused(clean, tmp_path, capsys):
    other = tmp_path / "other.key"
    other.write_bytes(b"not the organiser's key")
    code, _, err = romis(["replay", str(clean), "--key", str(other)], capsys)
    assert code == 1 and err.count("\n") == 1 and "signature refused: signed with another key (key id " in err


def test_a_stripped_signature_is_refused_with_the_key(clean, key, tmp_path, capsys):
    path = rechain(lines_of(clean), tmp_path / "stripped.jsonl")
    code, out, _ = romis(["replay", str(path)], capsys)
    assert code == 0 and out.endswith("; unsigned\n")
    code, _, err = romis(["replay", str(path), "--key", str(key)], capsys)
    assert (
        code == 1
        and err == f"romis: {path}: signature refused: the record is not signed (its last line has no signature)\n"
    )


def test_a_signature_on_an_earlier_line_is_refused(clean, tmp_path):
    raw = clean.read_text().splitlines()
    last = json.loads(raw[-1])
    moved = json.loads(raw[-2])
    moved["signature"] = last.pop("signature")
    raw[-2:] = [json.dumps(moved), json.dumps(last)]
    path = tmp_path / "moved.jsonl"
    path.write_text("\n".join(raw) + "\n")
    with pytest.raises(ReplayError, match="a signature on a line that is not the last"):
        replay(path)


@pytest.mark.parametrize(
    "flag",
    [
        ["replay", "{record}", "--key"],
        ["play", "gin", "--bot", RANDOM, "--bot", RANDOM, "--record", "{record}", "--sign-key"],
    ],
)
@pytest.mark.parametrize("content", [None, b""])
def test_a_missing_or_empty_key_file_is_one_line_and_exit_2(flag, content, clean, tmp_path, capsys):
    keyfile = tmp_path / "k.key"
    if content is not None:
        keyfile.write_bytes(content)
    record = clean if flag[0] == "replay" else tmp_path / "new.jsonl"
    code, out, err = romis([a.format(record=record) for a in flag] + [str(keyfile)], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and str(keyfile) in err
    assert ("is empty" if content is not None else "cannot read key file") in err
    assert flag[0] == "replay" or not record.exists()  # nothing was played


def test_sign_key_without_a_record_is_bad_input(key, capsys):
    code, _, err = romis(["play", "gin", "--bot", RANDOM, "--bot", RANDOM, "--sign-key", str(key)], capsys)
    assert code == 2 and err == "romis: --sign-key signs the game record: give --record FILE too\n"


# --- tournaments --------------------------------------------------------------------------------------------
def test_a_tournament_signs_its_records_with_sign_key(key, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    toml = tmp_path / "t.toml"
    toml.write_text(
        f'variant = "gin"\nrecords = "{tmp_path / "records"}"\nsign_key = "{key}"\noptions = {{max_deals = 1}}\n'
        '[[entrants]]\nname = "a"\ncommand = "python -m sample_bots.random"\n'
        '[[entrants]]\nname = "b"\ncommand = "python -m sample_bots.random"\n'
    )
    cfg = config.load(toml, {})
    (tmp_path / "records").mkdir()
    spec = game_specs(cfg)[0]
    assert play_game(spec) is not None
    assert replay(spec.record, key.read_bytes())["signature"] == "ok"


@pytest.mark.parametrize(
    "setting, words",
    [
        ('sign_key = "{missing}"\nrecords = "r"', "sign_key: cannot read key file"),
        ('sign_key = "{empty}"\nrecords = "r"', "is empty"),
        ('sign_key = "{key}"', "sign_key signs the game records: set records = DIRECTORY too"),
        ("sign_key = 3", "sign_key must be the path of a key file"),
    ],
)
def test_a_bad_sign_key_setting_is_a_config_error(setting, words, key, tmp_path):
    (tmp_path / "empty.key").write_bytes(b"")
    text = setting.format(missing=tmp_path / "none.key", empty=tmp_path / "empty.key", key=key)
    toml = tmp_path / "t.toml"
    toml.write_text(
        f'variant = "gin"\n{text}\n[[entrants]]\nname = "a"\ncommand = "python3"\n'
        '[[entrants]]\nname = "b"\ncommand = "python3"\n'
    )
    with pytest.raises(config.ConfigError, match=words):
        config.load(toml, {})


def test_a_match_stopped_before_its_deal_over_replays_as_interrupted(clean, tmp_path):
    lines = lines_of(clean)
    cut = index(lines, "deal_over")  # stopped after the deal's last play, before its deal_over was written
    tail = [{"type": "stderr", "seat": 0, "dropped": 0, "tail": "bye"}, {"type": "interrupted", "deal": 1}]
    with pytest.raises(RecordInterrupted, match="interrupted at deal 2"):
        replay(rechain([*lines[:cut], *tail], tmp_path / "stopped.jsonl"))

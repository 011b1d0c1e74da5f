"""The rules subpackage is pure: it imports no I/O module and nothing of the referee's I/O side."""

import ast
from pathlib import Path

import referee.rules

RULES = Path(referee.rules.__file__).parent
FORBIDDEN = {"trio", "subprocess", "os", "time", "socket", "shutil", "signal", "asyncio", "threading"}
IO_SIDE = {"referee.runner", "referee.match", "referee.records", "referee.play", "referee.cli", "tournaments"}


def imported_modules(path: Path) -> set[str]:
    """Every module name an ``import`` or ``from ... import`` statement in ``path`` names."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def offending(path: Path) -> set[str]:
    """The imports of ``path`` that break the purity of the rules subpackage."""
    bad = set()
    for name in imported_modules(path):
        if name.split(".")[0] in FORBIDDEN or any(name == io or name.startswith(io + ".") for io in IO_SIDE):
            bad.add(name)
    return bad


def test_rules_subpackage_imports_no_io() -> None:
    found = {str(p.relative_to(RULES)): offending(p) for p in sorted(RULES.rglob("*.py"))}
    assert len(found) > 20, "the rules subpackage should hold the engine and the variants"
    assert {f: bad for f, bad in found.items() if bad} == {}


def test_the_check_catches_an_io_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import os.path\nfrom referee.runner import BotProcess\nfrom trio import sleep\n")
    assert offending(bad) == {"os.path", "referee.runner", "trio"}

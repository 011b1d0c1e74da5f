"""The rules subpackage is pure: it imports no I/O module and nothing of the referee's I/O side."""

import ast
from pathlib import Path

import referee.rules

RULES = Path(referee.rules.__file__).parent
FORBIDDEN = {"trio", "subprocess", "os", "time", "socket", "shutil", "signal", "asyncio", "threading"}
IO_SIDE = {"referee.process.runner", "referee.match", "referee.records", "referee.play", "referee.cli", "tournaments"}


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
    bad.write_text("import os.path\nfrom referee.process.runner import BotProcess\nfrom trio import sleep\n")
    assert offending(bad) == {"os.path", "referee.process.runner", "trio"}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of `graph` (module -> the modules it imports), or None."""
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done

    def walk(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt] if nxt in path else [node, nxt]
            if nxt not in state and (found := walk(nxt, path + [nxt])):
                return found
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := walk(start, [start])):
            return found
    return None


def test_the_process_package_has_no_import_circle() -> None:
    # every import counts, those under TYPE_CHECKING too: a circle there is a circle in the design
    import referee.process

    package = Path(referee.process.__file__).parent
    names = {p.stem for p in package.glob("*.py")}
    graph = {
        p.stem: {m.rsplit(".", 1)[-1] for m in imported_modules(p) if m.startswith("referee.process.")} & names
        for p in package.glob("*.py")
    }
    assert {"runner", "spawn", "clocks", "reaper", "pidns"} <= names
    assert _cycle(graph) is None, _cycle(graph)


def test_the_circle_finder_finds_a_circle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None

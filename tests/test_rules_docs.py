"""The rules travel with the project: docs/rules/ is the specification, every document points at it, and
`romis rules` shows it."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import referee.reference
from referee.cli import app
from referee.rules.variants import VARIANTS

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules"
SHARED = ROOT.parent / "shared" / "rules"  # the specification the project was built from, where it is at hand
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` by its relative path, with its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("name", ["rules", "seeds"])
def test_docs_rules_and_seeds_are_the_shared_specification_byte_for_byte(name):
    shared, copy = SHARED.parent / name, ROOT / "docs" / name
    if not shared.is_dir():
        pytest.skip(f"no shared specification at {shared} to compare docs/{name}/ with")
    ours, theirs = tree(copy), tree(shared)
    assert sorted(set(theirs) - set(ours)) == [], f"files missing from docs/{name}/"
    assert sorted(set(ours) - set(theirs)) == [], f"files in docs/{name}/ that the specification does not have"
    assert [f for f in theirs if ours[f] != theirs[f]] == [], (
        f"files of docs/{name}/ that differ from the specification"
    )


@pytest.mark.parametrize("name", ["DESIGN.md", "STYLE.md"])
def test_design_and_style_are_the_shared_ones(name):
    shared = SHARED.parent / name
    if not shared.is_file():
        pytest.skip(f"no {shared} to compare docs/{name} with")
    assert (ROOT / "docs" / name).read_bytes() == shared.read_bytes(), f"docs/{name} differs from {shared}"


def test_every_variant_has_its_rules_file():
    assert [slug for slug in VARIANTS if not (RULES / f"{slug}.md").is_file()] == []


def test_romis_variants_lists_the_35_variants_one_per_rules_file():
    out = subprocess.run([sys.executable, "-m", "referee", "variants", "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    listed = sorted(v["slug"] for v in json.loads(out.stdout))
    specified = sorted(p.stem for p in RULES.glob("*.md") if p.stem != "README" and not p.stem.startswith("_"))
    assert listed == specified and len(listed) == 35


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_links_in_the_docs_lead_to_files_of_the_project(doc):
    broken = []
    for target in LINK.findall(doc.read_text(encoding="utf-8")):
        path = target.split("#")[0]
        if path and not re.match(r"[a-z]+:", path) and not (doc.parent / path).exists():
            broken.append(target)
    assert broken == []


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_no_doc_sends_readers_to_the_shared_folder(doc):
    text = doc.read_text(encoding="utf-8")
    assert re.findall(r".*(?:shared (?:`?rules/?`? )?folder|shared/rules|\.\./shared).*", text) == []


# --- romis rules ---------------------------------------------------------------------------------------------
def test_rules_renders_the_markdown_in_the_terminal():
    result = CliRunner().invoke(app, ["rules", "gin"])
    assert result.exit_code == 0
    assert "Gin (Džinas)" in result.stdout  # the file's title, rendered as a heading
    assert "# Gin" not in result.stdout and "**" not in result.stdout  # not the raw Markdown


def test_rules_path_prints_the_files_absolute_path():
    result = CliRunner().invoke(app, ["rules", "Tonk", "--path"])
    assert result.exit_code == 0
    path = Path(result.stdout.strip())
    assert path.is_absolute() and path == RULES / "tonk.md" and path.is_file()


def test_rules_without_a_variant_shows_the_index_and_general_the_conventions():
    assert "Rules specifications: index" in CliRunner().invoke(app, ["rules"]).stdout
    assert CliRunner().invoke(app, ["rules", "general", "--path"]).stdout.strip() == str(RULES / "_general.md")


def test_rules_of_an_unknown_variant_is_one_line_and_exit_2():
    r = subprocess.run([sys.executable, "-m", "referee", "rules", "nosuch"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and r.stdout == ""
    assert "unknown variant 'nosuch'" in r.stderr and "classic" in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_rules_when_the_file_is_missing_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(referee.reference, "RULES_DIR", tmp_path)  # an installation without the docs
    for args in (["rules", "classic"], ["rules", "classic", "--path"]):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 1 and result.stdout == ""
        assert result.stderr.strip() == (
            f"romis: the rules file for classic is missing: {tmp_path / 'classic.md'} (it ships in docs/rules/)"
        )

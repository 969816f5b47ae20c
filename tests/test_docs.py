"""The documentation stays true to the code (datasette's docs tests, adapted).

* every built-in component, of every family, has a row in its family's table in
  ``docs/flavour-model.md`` (and no row documents a component that does not exist);
* every convention and every hookspec is documented;
* every flavour quoted in the docs parses (the ones shown as errors fail with the
  message the docs give), and the canonical-form table is what ``str()`` returns;
* the worked examples' numbers are what evalkit computes.
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import re
from pathlib import Path

import numpy as np
import pytest

import evalkit
import evalkit.registry as registry_mod
from evalkit import FlavourError, Qrels, Run, build_registry, evaluate, expand_spec, parse_flavour
from evalkit.components import FAMILIES
from evalkit.flavour import CONVENTIONS

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
FLAVOUR_MODEL = DOCS / "flavour-model.md"
PLUGINS = DOCS / "plugins.md"
PLUGIN_DIR = REPO / "plugins" / "evalkit-rbp"

#: Flavours the docs quote *as errors*, with a fragment of the message they promise.
INVALID_EXAMPLES = {
    "ndcg(gain=cube)": "unknown gain 'cube' (known: ",
    "ndcg(discount=log(base=1))": "discount 'log': parameter 'base' must be > 1, got 1.0",
    "precision(idcg=judged)": "does not use a idcg component",
    "ndcg(gain=exp2": "at position 14: expected ',' or ')', got end of text",
    "ndcg(discount=rbp(p=1))": "discount 'rbp': parameter 'p' must be < 1, got 1.0",
    "ndcg(depth=1e400)": "parameter 'depth' must be finite, got inf",
}


@pytest.fixture(scope="module")
def builtins():
    return build_registry(disable_plugins=True)


@pytest.fixture(scope="module")
def with_rbp():
    """Built-ins plus the evalkit-rbp and evalkit-search-relevance plugins loaded from
    their source folders, so the plugin flavours quoted in the docs parse too."""
    mp = pytest.MonkeyPatch()
    mp.syspath_prepend(str(PLUGIN_DIR))
    mp.syspath_prepend(str(REPO / "plugins" / "evalkit-search-relevance"))
    mp.setattr(registry_mod, "_entry_points",
               lambda: [md.EntryPoint(name="rbp", value="evalkit_rbp", group="evalkit"),
                        md.EntryPoint(name="search_relevance", value="evalkit_search_relevance", group="evalkit")])
    try:
        yield build_registry(disable_plugins=False)
    finally:
        mp.undo()


def _doc_files() -> list[Path]:
    files = sorted(DOCS.glob("*.md"))
    readme = REPO / "README.md"
    return files + ([readme] if readme.exists() else [])


def _table_after(text: str, marker: str) -> list[list[str]]:
    """Body rows (cells stripped) of the Markdown table that follows ``marker``."""
    assert marker in text, f"marker {marker!r} not found"
    lines = text.split(marker, 1)[1].lstrip("\n").splitlines()
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if all(re.fullmatch(r":?-+:?", c) for c in cells):
            continue
        rows.append(cells)
    return rows[1:]  # without the header


def _span(cell: str) -> str:
    m = re.fullmatch(r"`([^`]+)`", cell)
    assert m, f"expected a single code span, got {cell!r}"
    return m.group(1)


# ----------------------------------------------------------------------------- components

@pytest.mark.parametrize("family", list(FAMILIES))
def test_every_builtin_component_is_documented(builtins, family):
    text = FLAVOUR_MODEL.read_text()
    rows = _table_after(text, f"<!-- family: {family} -->")
    documented = [_span(row[0]) for row in rows]
    registered = builtins.names(family)
    missing = sorted(set(registered) - set(documented))
    stale = sorted(set(documented) - set(registered))
    assert not missing, f"docs/flavour-model.md: add {family} row(s) for {missing}"
    assert not stale, f"docs/flavour-model.md documents {family}(s) {stale} that are not registered"
    assert len(documented) == len(set(documented))
    for row in rows:
        assert len(row) >= 3 and all(row), f"incomplete {family} row: {row}"
        assert builtins.get(family, _span(row[0])).origin == "evalkit (built-in)"


def test_every_preset_row_shows_its_flavour(builtins):
    rows = _table_after(FLAVOUR_MODEL.read_text(), "<!-- family: preset -->")
    for row in rows:
        preset = builtins.preset(_span(row[0]))
        assert parse_flavour(_span(row[1]), builtins) == parse_flavour(preset.spec, builtins), row


def test_every_component_parameter_is_documented(builtins):
    text = FLAVOUR_MODEL.read_text()
    for family in ("gain", "discount", "idcg", "ties", "metric"):
        rows = {_span(r[0]): " | ".join(r) for r in _table_after(text, f"<!-- family: {family} -->")}
        for name, comp in builtins.components[family].items():
            for param in comp.params:
                assert f"`{param.name}`" in rows[name], f"{family} '{name}': parameter '{param.name}' undocumented"


def test_every_convention_is_documented():
    text = FLAVOUR_MODEL.read_text()
    section = text.split("## Conventions", 1)[1].split("\n## ", 1)[0]
    for name, param in CONVENTIONS.items():
        assert re.search(rf"^\| `{name}` \|", section, re.M), f"convention '{name}' missing"
        for choice in param.choices or ():
            assert f"`{choice}`" in section, f"convention '{name}': value '{choice}' undocumented"


def test_every_hookspec_is_documented():
    tree = ast.parse(Path(evalkit.hookspecs.__file__).read_text())
    hooks = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)
             and any(getattr(d, "id", None) == "hookspec" for d in n.decorator_list)]
    assert len(hooks) == len(FAMILIES)
    text = PLUGINS.read_text()
    missing = [h for h in hooks if f"`{h}`" not in text]
    assert not missing, f"docs/plugins.md does not document hooks {missing}"


def test_plugin_components_are_documented(with_rbp):
    text = PLUGINS.read_text()
    ours = [(fam, name) for fam, table in with_rbp.components.items()
            for name, comp in table.items() if comp.origin.startswith("unknown distribution")]
    assert sorted(ours) == [("discount", "rbp"), ("idcg", "judged_all"), ("metric", "rbp"), ("metric", "rre_ndcg"),
                            ("preset", "quepid.ndcg"), ("preset", "quepid.ndcg_cut"), ("preset", "rre.ndcg"),
                            ("preset", "trec_eval.rbp")]
    for fam, name in ours:
        assert f"`{name}`" in text


# ----------------------------------------------------------------------------- flavours in the docs

_FLAVOURISH = re.compile(r"[A-Za-z_][\w.\-]*(\(.*\)|\(.*)?(@\d+)?")
_COMPONENT_KEY = re.compile(r"\b(gain|discount|idcg|ties)=")


def _candidate(span: str, registry) -> bool:
    """Is this code span meant as a flavour or a preset spec?"""
    if any(ch.isspace() for ch in span) or not _FLAVOURISH.fullmatch(span):
        return False
    head = re.match(r"[A-Za-z_][\w.\-]*", span).group(0)
    if head in registry.components["metric"] or head in registry.components["preset"]:
        return True
    # a call naming flavour components but an unknown head: a typo'd metric
    return "(" in span and bool(_COMPONENT_KEY.search(span))


def _quoted_flavours(registry) -> list[tuple[str, str]]:
    found = []
    for path in _doc_files():
        text = path.read_text()
        spans = re.findall(r"(?<!`)`([^`\n]+)`(?!`)", re.sub(r"```.*?```", "", text, flags=re.S))
        for block in re.findall(r"```[ \t]*\n(.*?)```", text, flags=re.S):  # bare fenced blocks
            spans += [line.strip() for line in block.splitlines() if line.strip()]
        found += [(path.name, s) for s in spans if _candidate(s, registry)]
    return found


def test_docs_quote_flavours(with_rbp):
    quoted = _quoted_flavours(with_rbp)
    names = {s for _, s in quoted}
    # the extraction itself works: these are certainly quoted
    assert {"ndcg@10", "ndcg(discount=rbp(p=0.9))@10", "trec_eval.ndcg_cut@10"} <= names
    assert set(INVALID_EXAMPLES) <= names
    assert len(names) >= 30


def test_every_quoted_flavour_parses(with_rbp):
    failures = []
    for where, spec in _quoted_flavours(with_rbp):
        if spec in INVALID_EXAMPLES:
            continue
        try:
            flavours = expand_spec(spec, with_rbp)
        except FlavourError as exc:
            failures.append(f"{where}: `{spec}`: {exc}")
            continue
        for f in flavours:
            assert parse_flavour(str(f), with_rbp) == f
    assert not failures, "flavours in the docs that do not parse:\n" + "\n".join(failures)


@pytest.mark.parametrize("spec, message", sorted(INVALID_EXAMPLES.items()))
def test_error_examples_fail_as_documented(with_rbp, spec, message):
    with pytest.raises(FlavourError) as info:
        parse_flavour(spec, with_rbp)
    assert message in str(info.value)


def test_canonical_form_table(builtins):
    rows = _table_after(FLAVOUR_MODEL.read_text(), "<!-- canonical-examples -->")
    assert len(rows) >= 5
    for row in rows:
        written, canonical = _span(row[0]), _span(row[1])
        f = parse_flavour(written, builtins)
        assert str(f) == canonical
        assert parse_flavour(canonical, builtins) == f and hash(parse_flavour(canonical, builtins)) == hash(f)


# ----------------------------------------------------------------------------- worked examples

def _approach_data():
    corpus = [5, 5, 4, 3, 3, 2, 2, 1, 1, 0]  # the seeds' corpus relevances, items 0-9
    returned = [7, 2, 9, 5, 4]  # the seeds' returned items, best first
    qrels = Qrels.from_rows([("q", f"item{i}", g) for i, g in enumerate(corpus)])
    run = Run.from_rows([("q", f"item{i}", float(10 - r)) for r, i in enumerate(returned)], name="sys")
    return qrels, run


def test_approach_example_numbers(builtins):
    rows = _table_after(FLAVOUR_MODEL.read_text(), "<!-- worked-example: approach -->")
    assert len(rows) == 6
    qrels, run = _approach_data()
    for row in rows:
        f = parse_flavour(_span(row[0]), builtins)
        dcg = parse_flavour(f"dcg(gain={f.gain},discount={f.discount},ties={f.ties})@{f.k}", builtins)
        values = evaluate(qrels, run, [f, dcg], registry=builtins).values[0, :, 0]
        ndcg_value, dcg_value = values
        expected_dcg, expected_idcg, expected_ndcg = (float(c) for c in row[1:4])
        assert round(dcg_value, 4) == expected_dcg, row
        assert round(dcg_value / ndcg_value, 4) == expected_idcg, row
        assert round(ndcg_value, 4) == expected_ndcg, row
    # the seeds' own formulas (Approach 1: IDCG from the corpus; Approach 2: from the returned list)
    discount = 1.0 / np.log2(np.arange(2, 7))
    dcg5 = np.sum((2.0 ** np.array([1, 4, 0, 2, 3]) - 1) * discount)
    assert float(rows[0][3]) == round(dcg5 / np.sum((2.0 ** np.array([5, 5, 4, 3, 3]) - 1) * discount), 4)
    assert float(rows[1][3]) == round(dcg5 / np.sum((2.0 ** np.array([4, 3, 2, 1, 0]) - 1) * discount), 4)


def test_tie_example_numbers(builtins):
    rows = _table_after(FLAVOUR_MODEL.read_text(), "<!-- worked-example: ties -->")
    grades, scores = [3, 2, 1, 0, 0], [0.9, 0.8, 0.8, 0.8, 0.1]
    qrels = Qrels.from_rows([("q", f"d{i}", g) for i, g in enumerate(grades)])
    run = Run.from_rows([("q", f"d{i}", s) for i, s in enumerate(scores)], name="sys")
    specs = [_span(r[0]) for r in rows]
    values = evaluate(qrels, run, specs, registry=builtins).values[0, :, 0]
    assert [round(v, 4) for v in values] == [float(r[1]) for r in rows]

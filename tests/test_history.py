"""evalkit history: means per label, significant changes, the HTML page with trend plots."""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.stats

from evalkit.cli import main
from evalkit.history import history
from evalkit.runner import run_config
from evalkit.store import ResultsStore

from gate_data import TOPICS, write_benchmark, write_run


def _cli(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def three_labels(tmp_path, registry):
    """Labels v1 (candidate = baseline), v2 (<b>v2</b>: every topic of the candidate
    reversed), v3 (as v2): the reports of each."""
    config = write_benchmark(tmp_path, "baseline")
    reports = [run_config(config, registry=registry, store=True, label="v1")]
    write_run(tmp_path / "candidate.run", "reversed-all", "cand")
    text = (tmp_path / "candidate.run").read_text().splitlines()
    lines = [f"{q} Q0 {d} {r} {11 - float(s)} {t}" for q, _q0, d, r, s, t in (x.split() for x in text)]
    (tmp_path / "candidate.run").write_text("\n".join(lines) + "\n")
    reports.append(run_config(config, registry=registry, store=True, label="<b>v2</b>"))
    reports.append(run_config(config, registry=registry, store=True, label="v3"))
    return config, reports


def test_means_per_label_and_significant_changes(three_labels, registry):
    config, reports = three_labels
    with ResultsStore(config.parent / ".evalkit" / "results.sqlite") as store:
        h = history(store, registry=registry)
    assert h.config == "config.yaml" and h.labels == ("v1", "<b>v2</b>", "v3")
    assert h.flavours == ("ndcg@5", "ndcg@10", "exp@5", "exp@10") and h.systems == ("baseline", "candidate")
    np.testing.assert_allclose(h.means, np.stack([r.means for r in reports]))
    sig = h.significant
    # the candidate changes from v1 to v2 under every flavour; nothing else changes
    assert {(c.flavour, c.system, c.before, c.after) for c in sig} == \
        {(f, "candidate", "v1", "<b>v2</b>") for f in h.flavours}
    c = next(c for c in sig if c.flavour == "ndcg@10")
    f = reports[0].labels.index("ndcg@10")
    d = reports[1].results.values[1, f] - reports[0].results.values[1, f]
    # constant differences (every topic the same): p computed as 0; else scipy's paired t-test
    expected = 0.0 if np.ptp(d) == 0 else scipy.stats.ttest_rel(reports[1].results.values[1, f],
                                                                 reports[0].results.values[1, f]).pvalue
    assert c.p == pytest.approx(expected) and c.n == len(TOPICS)
    assert c.difference == pytest.approx(d.mean())


def test_cli_prints_and_writes_an_escaped_html_page(three_labels, capsys, tmp_path):
    config, reports = three_labels
    out_dir = tmp_path / "hist"
    code, out, err = _cli(capsys, "--no-plugins", "history", str(config), "--output-dir", str(out_dir))
    assert code == 0, err
    assert "History of config.yaml: 3 labels" in out
    m = re.search(r"ndcg@10 .*\n.*\n.*\nv1 +([\d.]+) +([\d.]+)", out)
    assert m and float(m.group(2)) == pytest.approx(reports[0].means[1, 1], abs=5e-5)
    assert "candidate: v1 -> <b>v2</b>" in out
    page = (out_dir / "history.html").read_text()
    assert "<b>v2</b>" not in page and "&lt;b&gt;v2&lt;/b&gt;" in page
    assert page.count('src="data:image/png;base64,') == 4
    # the same through the store path
    code, out2, _ = _cli(capsys, "--no-plugins", "history", str(config.parent / ".evalkit" / "results.sqlite"))
    assert code == 0 and out2.splitlines()[:12] == out.splitlines()[:12]


def test_errors(tmp_path, capsys):
    config = write_benchmark(tmp_path / "c")
    code, _, err = _cli(capsys, "--no-plugins", "history", str(config))
    assert code == 2 and "no results store at" in err
    missing = tmp_path / "none.sqlite"
    code, _, err = _cli(capsys, "--no-plugins", "history", str(missing))
    assert code == 2 and not missing.exists()


def test_a_store_with_several_configs(tmp_path, capsys, registry):
    a = write_benchmark(tmp_path / "a", "baseline")
    b = write_benchmark(tmp_path / "b", "tied")
    b = b.rename(tmp_path / "b" / "other.yaml")
    store = tmp_path / "shared.sqlite"
    run_config(a, registry=registry, store=store, label="x")
    run_config(b, registry=registry, store=store, label="y")
    code, _, err = _cli(capsys, "--no-plugins", "history", str(store))
    assert code == 2 and "several configs (config.yaml, other.yaml): name one" in err
    code, out, _ = _cli(capsys, "--no-plugins", "history", str(store), "--config-name", "other.yaml")
    assert code == 0 and "History of other.yaml: 1 label," in out
    code, _, err = _cli(capsys, "--no-plugins", "history", str(store), "--config-name", "nope.yaml")
    assert code == 2 and "no evaluation of config 'nope.yaml'" in err

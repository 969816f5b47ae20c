"""The entry-point cache (:func:`evalkit.registry.cached_entry_points`): a later
process reads the ``evalkit`` entry points back from the cache instead of reading
every installed distribution's metadata; a distribution installed, removed, upgraded
or edited is seen at the next start. The fake distributions are real ``*.dist-info``
folders on ``sys.path`` (as ``tests/test_registry.py`` writes them), found by
``importlib.metadata`` itself on a cache miss."""

from __future__ import annotations

import importlib.metadata as md
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import evalkit.registry as registry_mod
from evalkit.registry import CACHE_ENV, ENTRY_POINT_GROUP, CachedEntryPoint, build_registry, cached_entry_points

REPO = Path(__file__).resolve().parent.parent


def write_dist(site: Path, dist: str, value: str, version: str = "1.0", ep_name: str = "flat") -> Path:
    """A distribution ``dist`` with one ``evalkit`` entry point ``ep_name = value``."""
    info = site / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[evalkit]\n{ep_name} = {value}\n")
    return info


def listed(eps: list) -> list[tuple[str, str, str | None, str | None]]:
    return [(ep.name, ep.value, ep.dist.name if ep.dist else None, ep.dist.version if ep.dist else None)
            for ep in eps]


def truth() -> list[tuple[str, str, str | None, str | None]]:
    return listed(list(md.entry_points(group=ENTRY_POINT_GROUP)))


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "site"
    root.mkdir()
    (root / "evk_cache_plugin.py").write_text(textwrap.dedent("""
        from evalkit import hookimpl
        from evalkit.components import Discount

        import numpy as np

        @hookimpl
        def evalkit_register_discounts(register):
            register(Discount("cached_flat", lambda ranks: np.ones(len(ranks))))

        class Holder:
            class Inner:
                value = 42
    """))
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    yield root
    sys.modules.pop("evk_cache_plugin", None)


def test_second_read_comes_from_the_cache_and_loads_the_same_object(site: Path) -> None:
    write_dist(site, "evalkit-cached-flat", "evk_cache_plugin")
    first = cached_entry_points(ENTRY_POINT_GROUP)
    assert listed(first) == truth() and ("flat", "evk_cache_plugin", "evalkit-cached-flat", "1.0") in truth()
    again = cached_entry_points(ENTRY_POINT_GROUP)
    assert all(isinstance(ep, CachedEntryPoint) for ep in again)
    assert listed(again) == listed(first)
    cached = next(ep for ep in again if ep.name == "flat")
    assert cached.load() is next(ep for ep in first if ep.name == "flat").load()
    reg = build_registry(disable_plugins=False)  # through the cache, as the CLI builds it
    assert reg.get("discount", "cached_flat").origin == "evalkit-cached-flat 1.0 (entry point 'flat')"


def test_module_attribute_values_load_as_importlib_loads_them(site: Path) -> None:
    write_dist(site, "evalkit-attr", "evk_cache_plugin:Holder.Inner")
    cached_entry_points(ENTRY_POINT_GROUP)
    ep = next(ep for ep in cached_entry_points(ENTRY_POINT_GROUP) if ep.name == "flat")
    assert isinstance(ep, CachedEntryPoint)
    real = next(ep for ep in md.entry_points(group=ENTRY_POINT_GROUP) if ep.name == "flat")
    assert ep.load() is real.load() and ep.load().value == 42


def test_installed_removed_upgraded_or_edited_distributions_are_seen(site: Path) -> None:
    cached_entry_points(ENTRY_POINT_GROUP)  # the cache, before anything is installed
    info = write_dist(site, "evalkit-cached-flat", "evk_cache_plugin")  # installed
    assert listed(cached_entry_points(ENTRY_POINT_GROUP)) == truth()
    assert ("flat", "evk_cache_plugin", "evalkit-cached-flat", "1.0") in truth()
    upgraded = info.with_name("evalkit_cached_flat-2.0.dist-info")  # upgraded: pip writes a new folder
    info.rename(upgraded)
    (upgraded / "METADATA").write_text("Metadata-Version: 2.1\nName: evalkit-cached-flat\nVersion: 2.0\n")
    assert ("flat", "evk_cache_plugin", "evalkit-cached-flat", "2.0") in listed(cached_entry_points(ENTRY_POINT_GROUP))
    entry = upgraded / "entry_points.txt"  # an entry point edited in place
    entry.write_text("[evalkit]\nflat2 = evk_cache_plugin\n")
    os.utime(entry, ns=(entry.stat().st_atime_ns, entry.stat().st_mtime_ns + 1_000_000))
    assert [e[0] for e in listed(cached_entry_points(ENTRY_POINT_GROUP)) if e[1] == "evk_cache_plugin"] == ["flat2"]
    for f in upgraded.iterdir():  # removed
        f.unlink()
    upgraded.rmdir()
    assert listed(cached_entry_points(ENTRY_POINT_GROUP)) == truth()
    assert not [e for e in truth() if e[1] == "evk_cache_plugin"]


def test_a_cache_that_cannot_be_written_or_read_is_skipped(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_dist(site, "evalkit-cached-flat", "evk_cache_plugin")
    blocker = site.parent / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv(CACHE_ENV, str(blocker / "cache"))
    assert listed(cached_entry_points(ENTRY_POINT_GROUP)) == truth()
    monkeypatch.setenv(CACHE_ENV, str(site.parent / "cache"))
    cached_entry_points(ENTRY_POINT_GROUP)
    (cache_file,) = (site.parent / "cache").iterdir()
    cache_file.write_text("{not a cache")
    assert listed(cached_entry_points(ENTRY_POINT_GROUP)) == truth()
    assert registry_mod.read_cache(str(cache_file))["group"] == ENTRY_POINT_GROUP  # rewritten


def test_a_warm_start_does_not_read_distribution_metadata(tmp_path: Path) -> None:
    """The second ``evalkit eval`` process finds the plugins without importing
    ``importlib.metadata`` (what the cache saves); the first one reads it."""
    qs = REPO / "examples" / "quickstart"
    code = ("import sys, io, contextlib; from evalkit.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    assert main(sys.argv[1:]) == 0\n"
            "print('importlib.metadata' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": str(REPO), CACHE_ENV: str(tmp_path / "cache")}
    argv = [sys.executable, "-c", code, "eval", str(qs / "qrels.txt"), str(qs / "system_a.run"), "-m", "ndcg_cut.10"]
    seen = [subprocess.run(argv, env=env, capture_output=True, text=True, check=True, timeout=300).stdout.split()[-1]
            for _ in range(2)]
    assert seen == ["True", "False"]
    assert registry_mod.CACHE_ENV == "EVALKIT_CACHE_DIR"


def test_every_builtin_component_passes_the_probe() -> None:
    """``build_registry`` probes only third-party components at start-up; the built-in
    ones are probed here (a wrong built-in kernel is a bug the tests must catch)."""
    from evalkit.probe import probe_registry
    from evalkit.registry import BUILTIN_ORIGIN

    reg = build_registry(disable_plugins=True)
    families = ("gain", "discount", "ties", "idcg", "metric")
    assert all(c.origin == BUILTIN_ORIGIN for f in families for c in reg.components[f].values())
    assert sum(len(reg.components[f]) for f in families) > 50
    probe_registry(reg)  # raises RegistryError naming the first failing component


def test_one_cache_file_per_sys_path_and_old_ones_pruned(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = site.parent / "cache"
    cached_entry_points(ENTRY_POINT_GROUP)
    for i in range(registry_mod.CACHE_FILES + 3):  # another sys.path: another file, the first one kept ...
        extra = site.parent / f"path{i}"
        extra.mkdir()
        monkeypatch.syspath_prepend(str(extra))
        cached_entry_points(ENTRY_POINT_GROUP)
    assert len(list(cache.iterdir())) == registry_mod.CACHE_FILES  # ... up to CACHE_FILES of them


def test_earlier_versions_json_caches_are_removed_when_a_cache_is_written(site: Path) -> None:
    """An earlier version's cache (``entry-points-<crc32>.json``) is never read; the next
    cache written removes it, and nothing else of the folder."""
    cache = site.parent / "cache"
    cache.mkdir()
    legacy = cache / "entry-points-0123abcd.json"
    legacy.write_text(json.dumps({"group": ENTRY_POINT_GROUP, "entry_points": []}))
    other = cache / "notes.json"
    other.write_text("{}")
    cached_entry_points(ENTRY_POINT_GROUP)
    names = sorted(p.name for p in cache.iterdir())
    assert "entry-points-0123abcd.json" not in names and "notes.json" in names
    assert len(names) == 2 and names[0].startswith("entry-points-") and names[0].endswith(".txt")


def test_no_home_folder_no_cache(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without an absolute place for the cache (no ``$HOME``), nothing is written (not
    a ``~`` folder in the working directory) and the entry points are read as before."""
    write_dist(site, "evalkit-cached-flat", "evk_cache_plugin")
    monkeypatch.delenv(CACHE_ENV)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.setattr(os.path, "expanduser", lambda p: p)  # what it returns without a home
    monkeypatch.chdir(site.parent)
    assert registry_mod._cache_dir() is None
    assert listed(cached_entry_points(ENTRY_POINT_GROUP)) == truth()
    assert not (site.parent / "~").exists()


def _age(folder: Path, seconds: float = 60.0) -> None:
    """Set ``folder``'s modification time ``seconds`` in the past (older than
    :data:`~evalkit.registry.RACY_NS`)."""
    old = os.stat(folder).st_mtime_ns - int(seconds * 1e9)
    os.utime(folder, ns=(old, old))


def _counting_scandir(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    listed: list[str] = []
    real = os.scandir

    def scandir(path: str = ".") -> object:
        listed.append(os.path.abspath(path))
        return real(path)

    monkeypatch.setattr(registry_mod.os, "scandir", scandir)
    return listed


def test_an_unchanged_folder_is_not_listed_again(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``sys.path`` folder whose modification time is the cached one (and not recent
    when it was cached) is not listed again; only its ``entry_points.txt`` files are
    looked at, so an entry point edited in place is still seen."""
    info = write_dist(site, "evalkit-cached-flat", "evk_cache_plugin")
    _age(site)
    cached_entry_points(ENTRY_POINT_GROUP)  # lists every folder
    scanned = _counting_scandir(monkeypatch)
    assert listed(cached_entry_points(ENTRY_POINT_GROUP)) == truth()
    assert str(site) not in scanned
    entry = info / "entry_points.txt"
    entry.write_text("[evalkit]\nflat3 = evk_cache_plugin\n")
    os.utime(entry, ns=(entry.stat().st_atime_ns, entry.stat().st_mtime_ns + 1_000_000))
    _age(site)  # the edit does not touch the folder
    assert [e[0] for e in listed(cached_entry_points(ENTRY_POINT_GROUP)) if e[1] == "evk_cache_plugin"] == ["flat3"]


def test_a_change_in_the_same_clock_tick_as_the_cache_is_seen(site: Path) -> None:
    """A distribution installed after the cache was written, in the same tick of the
    file system's clock (the folder's modification time unchanged), is seen: a folder
    modified shortly before its listing was cached is listed again. (Read through
    :func:`~evalkit.registry.installed_state`: in one process importlib.metadata's own
    listing cache is keyed by the same modification time.)"""
    cached_entry_points(ENTRY_POINT_GROUP)  # the folder was modified just now
    (cache_file,) = (site.parent / "cache").iterdir()
    cache = registry_mod.read_cache(str(cache_file))
    before = os.stat(site).st_mtime_ns
    assert cache["folders"][str(site)] == before
    write_dist(site, "evalkit-cached-flat", "evk_cache_plugin")
    os.utime(site, ns=(before, before))  # as if within the same tick
    (row,) = [row for row in registry_mod.installed_state(cache) if row[0] == str(site)]
    assert ["evalkit_cached_flat-1.0.dist-info", (site / "evalkit_cached_flat-1.0.dist-info" / "entry_points.txt")
            .stat().st_mtime_ns, True] in row[1:]
    assert cache["state"] != registry_mod.installed_state(cache)
    cache["taken"] = before + registry_mod.RACY_NS + 1  # listed long after the change: trusted
    assert cache["state"] == registry_mod.installed_state(cache)


def test_a_folder_changed_without_its_distributions_keeps_the_cache(site: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A file written into a ``sys.path`` folder (a module, a report in the working
    directory) changes the folder's time, not the entry points: the folder is listed
    again, the distributions are not read again."""
    write_dist(site, "evalkit-cached-flat", "evk_cache_plugin")
    cached_entry_points(ENTRY_POINT_GROUP)
    (site / "another_module.py").write_text("")
    reads: list[str] = []
    real = md.entry_points
    monkeypatch.setattr(md, "entry_points", lambda **kw: reads.append(kw["group"]) or real(**kw))
    assert listed(cached_entry_points(ENTRY_POINT_GROUP)) == listed(real(group=ENTRY_POINT_GROUP))
    assert reads == []


def test_a_corrupt_truncated_or_foreign_cache_is_read_again_and_rewritten(site: Path) -> None:
    """The cache is a text file read with string methods (no :mod:`json` at start-up);
    a file that is not exactly what this version writes -- another version's header,
    an earlier version's JSON, a truncated, garbled or non-UTF-8 file -- is not trusted:
    the distributions are read again (the same entry points) and the file rewritten."""
    write_dist(site, "evalkit-cached-flat", "evk_cache_plugin")
    cached_entry_points(ENTRY_POINT_GROUP)
    (cache_file,) = (site.parent / "cache").iterdir()
    good = cache_file.read_bytes()
    assert good.startswith(registry_mod.CACHE_HEADER.encode() + b"\n") and good.endswith(b"\nend\n")
    assert b"ep\tflat\tevk_cache_plugin\tevalkit-cached-flat\t1.0\n" in good
    legacy = json.dumps({"group": ENTRY_POINT_GROUP, "state": [], "folders": {}, "taken": 0,
                         "entry_points": [["flat", "elsewhere", ["evalkit-fake", "9.9"]]]})
    bad = [b"", b"\xff\xfe\x00", legacy.encode(), good[:-4], good.replace(b"cache 1", b"cache 2"),
           good.replace(b"\ttaken\t", b"\ttaken\tx").replace(b"\ntaken\t", b"\ntaken\tx"),
           good.replace(b"\nep\tflat\tevk_cache_plugin\t", b"\nep\tflat\t\\q\t"),
           good.replace(b"\nep\t", b"\nentry\t", 1), good.replace(b"\nend\n", b"\nend\nep\tx\ty\n")]
    for text in bad:
        cache_file.write_bytes(text)
        assert registry_mod.read_cache(str(cache_file)) is None, text
        reads: list[str] = []
        real, expected = md.entry_points, truth()
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(md, "entry_points", lambda **kw: reads.append(kw["group"]) or real(**kw))
            assert listed(cached_entry_points(ENTRY_POINT_GROUP)) == expected
        assert reads == [ENTRY_POINT_GROUP], text  # read again ...
        assert cache_file.read_bytes().endswith(b"\nend\n")  # ... and rewritten
        assert registry_mod.read_cache(str(cache_file))["group"] == ENTRY_POINT_GROUP


def test_paths_with_tabs_newlines_and_undecodable_bytes_round_trip(tmp_path: Path) -> None:
    """Every string the cache holds (``sys.path`` entries, file names, entry points) is
    read back as written, whatever characters it holds."""
    odd = ["/a\tb\\n", "x\u2028y\x1c\x0b\udc80", "c\r\nd\\", "\\t"]
    data = {"group": "evalkit", "taken": 123, "folders": {odd[0]: 5, odd[1]: -7},
            "state": [[odd[0], [odd[2], 3, True], ["z.pth", -1, False]], [odd[3], 9], ["gone", None], [odd[1]]],
            "entry_points": [["a", "m:x", None], [odd[3], odd[2], [odd[1], "1.0"]]]}
    path = tmp_path / "entry-points-test.txt"
    registry_mod._write_cache(str(tmp_path), str(path), data)
    assert registry_mod.read_cache(str(path)) == data
    assert path.read_bytes().count(b"\n") == 12  # 12 records, one a line: no raw newline inside a field


def test_reading_the_cache_imports_neither_json_nor_zlib(tmp_path: Path) -> None:
    """Finding the entry points from the cache (issue 27) imports no :mod:`json` (the
    file is plain text) and no :mod:`zlib` (its name is a 64-bit FNV-1a hash)."""
    code = ("import sys; from evalkit.registry import cached_entry_points as c\n"
            "c('evalkit'); before = {'json', 'zlib'} & set(sys.modules); eps = c('evalkit')\n"
            "print(sorted({'json', 'zlib', 'importlib.metadata'} & set(sys.modules)), sorted(before))")
    env = {**os.environ, "PYTHONPATH": str(REPO), CACHE_ENV: str(tmp_path / "cache")}
    runs = [subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
                           timeout=300).stdout.split("\n")[0] for _ in range(2)]
    assert runs[1] == "[] []"  # the second process reads the cache the first one wrote
    assert registry_mod._fnv1a(b"") == 0xCBF29CE484222325 and registry_mod._fnv1a(b"a") == 0xAF63DC4C8601EC8C

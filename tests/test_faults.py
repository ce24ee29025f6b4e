"""Faults and hostile input: a cache that heals itself, work that is never lost, every option checked.

Each test plays a user who is hostile but fair: a cache file half-written, emptied, bit-flipped or
holding the wrong rows; a run killed (SIGKILL, in a subprocess) while it writes; an output folder
that is a file or read-only; a gzip that inflates far past what its header declares; data that are
almost right (columns in another order, a reader that drops a chunk, y = 0, complex numbers);
options of the wrong type or range. Each asserts the message a user reads and that nothing is lost.
Nothing here touches the user's cache: every test has its own ``TGREEDY_CACHE_DIR``. Subprocesses
have timeouts; the whole file runs in well under a minute.
"""
from __future__ import annotations

import gzip
import io
import json
import os
import pathlib
import shutil
import signal
import struct
import subprocess
import sys
import tarfile
import textwrap
import time
import tracemalloc
import warnings

import numpy as np
import pytest
import torch

from tgreedy_lib import DomainStatistics, TGreedy, datasets, features, tgreedy_path
from tgreedy_lib.domain_adaptation import baselines, stopping
from tgreedy_course import cli
from tgreedy_course.any_data import run_on_data
from tgreedy_lib.features import _cache, probe
from tgreedy_lib.features.dbn import RBMTraining

TESTS = pathlib.Path(__file__).resolve().parent
TINY = features.FeatureConfig(layer_sizes=(784, 12, 6), visible="bernoulli",
                              training=(RBMTraining(epochs=1, batch_size=500), RBMTraining(epochs=1, batch_size=500)))
SUBPROCESS_TIMEOUT = 120
#: The array in which a cache entry records what it holds (features._cache).
_META = "cache_meta_json"


@pytest.fixture(autouse=True)
def isolated(monkeypatch, tmp_path):
    """No test reads the user's data or writes into the user's cache."""
    monkeypatch.delenv(datasets.ENV_DATA_DIR, raising=False)
    monkeypatch.setenv(datasets.ENV_CACHE_DIR, str(tmp_path / "cache"))
    getattr(_cache, "_UNWRITABLE_WARNED", set()).clear()  # one warning per folder and process
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _python(script: str, *, env=None, prefix=(), timeout=SUBPROCESS_TIMEOUT, **kwargs):
    """Run ``script`` in a fresh interpreter (with a timeout) that imports this checkout of the library."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS.parent), str(TESTS)]), **(env or {})}
    return subprocess.run([*prefix, sys.executable, "-c", textwrap.dedent(script)], env=environment,
                          capture_output=True, text=True, timeout=timeout, **kwargs)


def _readonly_prefix() -> list[str]:
    """A command prefix under which permission bits hold (root ignores them); skip where none can be made."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    prefix = [setpriv, "--inh-caps=-dac_override,-dac_read_search", "--bounding-set=-dac_override,-dac_read_search",
              "--"] if setpriv else None
    if prefix is None or subprocess.run([*prefix, "true"], capture_output=True).returncode != 0:
        pytest.skip("running as root, and no setpriv to drop the capability that ignores read-only folders")
    return prefix


def _read_only(folder: pathlib.Path) -> pathlib.Path:
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o555)
    return folder


# ============================================================================ the feature cache


def _tiny(tmp_path, **kwargs):
    data = tmp_path / "no-data"
    data.mkdir(exist_ok=True)
    return features.load_features("mnist", data_dir=data, config=TINY, progress=False, device="cpu", probe=False,
                                  **kwargs)


def _entry(fs) -> dict:
    return features.feature_cache_paths("mnist", fs.info["cache_key"])


def _cache_warnings(caught) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, _cache.CacheWarning)]


def _rewrite(path: pathlib.Path, arrays: dict) -> None:
    """Write ``arrays`` as a well-formed entry with a record that matches them: only the checks of content refuse it."""
    key = json.loads(str(_arrays(path)[_META]))["key"]
    _cache.write_entry(path, {k: v for k, v in arrays.items() if k != _META}, key)


def _arrays(path) -> dict:
    with np.load(path, allow_pickle=False) as stored:
        return {name: stored[name] for name in stored.files}


def _half(path):
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _empty(path):
    path.write_bytes(b"")


def _crc(path):
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF  # inside an array's data: the zip's CRC-32 no longer matches
    path.write_bytes(bytes(raw))


def _missing_array(path):
    arrays = _arrays(path)
    del arrays["test_labels"]
    _rewrite(path, arrays)


def _no_record(path):
    np.savez(path, **{k: v for k, v in _arrays(path).items() if k != _META})


def _missing_recorded_array(path):
    arrays = _arrays(path)
    del arrays["test_labels"]
    np.savez(path, **arrays)  # the record still lists it


def _missing_weight(path):
    arrays = _arrays(path)
    del arrays["layer1_weights"]
    _rewrite(path, arrays)


def _wrong_rows(path):
    arrays = _arrays(path)
    arrays["train_features"], arrays["train_labels"] = arrays["train_features"][:-7], arrays["train_labels"][:-7]
    _rewrite(path, arrays)  # a valid file, but with 7 rows too few


def _other_key(path):
    arrays = _arrays(path)
    info = json.loads(str(arrays["info_json"]))
    info["cache_key"] = "0" * 64
    arrays["info_json"] = np.asarray(json.dumps(info))
    _rewrite(path, arrays)


def _changed_under_its_record(path):
    arrays = _arrays(path)
    arrays["test_features"] = arrays["test_features"] + np.float32(0.25)  # a valid zip; the record disagrees
    np.savez(path, **arrays)


def _nan_rows(path):
    arrays = _arrays(path)
    arrays["train_features"][3, 2] = np.nan
    _rewrite(path, arrays)


@pytest.mark.parametrize("damage, which, reason", [
    (_half, "features", "cannot be read whole"),
    (_empty, "features", "it is empty"),
    (_crc, "features", "cannot be read whole"),
    (_missing_array, "features", "no test_labels"),
    (_no_record, "features", "it has no record"),
    (_missing_recorded_array, "features", "the array 'test_labels' it records is missing"),
    (_missing_weight, "weights", "cannot rebuild the feature learner"),
    (_wrong_rows, "features", "rows for"),
    (_other_key, "features", "another key"),
    (_changed_under_its_record, "features", "does not match its recorded SHA-256"),
    (_nan_rows, "features", "NaN"),
])
def test_a_damaged_cache_entry_is_named_and_rebuilt(tmp_path, damage, which, reason):
    first = _tiny(tmp_path)
    paths = _entry(first)
    damage(paths[which])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(LookupError, match="damaged"):
            _tiny(tmp_path, only_cached=True)  # never BadZipFile, EOFError or KeyError
    [message] = _cache_warnings(caught)
    assert paths[which].name in message and reason in message and "rebuilding" in message
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        healed = _tiny(tmp_path)
    assert not healed.info["from_cache"] and len(_cache_warnings(caught)) == 1
    np.testing.assert_array_equal(healed.test_features, first.test_features)  # rebuilt, the same for the seed
    with warnings.catch_warnings():
        warnings.simplefilter("error", _cache.CacheWarning)
        again = _tiny(tmp_path)  # healed for good: read back without a word
    assert again.info["from_cache"]


def test_an_entry_missing_its_weights_file_is_rebuilt_with_a_warning(tmp_path):
    first = _tiny(tmp_path)
    _entry(first)["weights"].unlink()
    with pytest.warns(_cache.CacheWarning, match=r"weights file .*-dbn\.npz is missing"):
        healed = _tiny(tmp_path)
    assert not healed.info["from_cache"] and _entry(first)["weights"].is_file()


def test_a_probe_report_is_read_back_and_a_damaged_one_recomputed(tmp_path, monkeypatch):
    fs = _tiny(tmp_path)
    fs.train_features, fs.train_labels = fs.train_features[::20], fs.train_labels[::20]
    report = features.feature_probe(fs)
    path = _entry(fs)["linear_probe"]
    calls = []
    real = probe.validated_probe
    monkeypatch.setattr(probe, "validated_probe", lambda *a, **k: calls.append(1) or real(*a, **k))
    with warnings.catch_warnings():
        warnings.simplefilter("error", _cache.CacheWarning)
        assert features.feature_probe(fs)["test_accuracy"] == report["test_accuracy"]
    assert calls == []
    damaged = dict(report)
    del damaged["test_accuracy"]  # valid JSON, but not a report any more
    path.write_text(json.dumps(damaged))
    with pytest.warns(_cache.CacheWarning, match=r"linear-probe\.json .* 'test_accuracy' is missing"):
        assert features.feature_probe(fs)["test_accuracy"] == report["test_accuracy"]
    path.write_text(json.dumps(report)[:40])  # truncated
    with pytest.warns(_cache.CacheWarning, match="not readable JSON"):
        features.feature_probe(fs)
    assert calls == [1, 1]


def test_a_writer_killed_mid_write_leaves_no_half_entry_and_its_leftovers_are_removed(tmp_path):
    cache = tmp_path / "cache"
    marker = tmp_path / "writing"
    (tmp_path / "no-data").mkdir()
    script = f"""
        import os, pathlib, time, torch
        torch.set_num_threads(1)
        from tgreedy_lib import features
        from tgreedy_lib.features.dbn import RBMTraining
        TINY = features.FeatureConfig(layer_sizes=(784, 12, 6), visible="bernoulli",
                                      training=(RBMTraining(epochs=1, batch_size=500),) * 2)
        replace = os.replace
        def stalled(src, dst):
            if str(dst).endswith("-features.npz"):
                pathlib.Path({str(marker)!r}).write_text("writing")
                time.sleep(120)
            return replace(src, dst)
        os.replace = stalled
        features.load_features("mnist", data_dir={str(tmp_path / 'no-data')!r}, config=TINY, progress=False,
                               device="cpu", probe=False)
    """
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS.parent), str(TESTS)]),
                   datasets.ENV_CACHE_DIR: str(cache)}
    environment.pop(datasets.ENV_DATA_DIR, None)
    process = subprocess.Popen([sys.executable, "-c", textwrap.dedent(script)], env=environment,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not marker.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marker.exists(), f"the writer never reached its rename: {process.communicate(timeout=10)}"
        process.send_signal(signal.SIGKILL)
    finally:
        process.kill()
        process.wait(timeout=10)
    folder = cache / "features"
    leftovers = [p for p in folder.iterdir() if p.name.endswith(".tmp")]
    assert leftovers and not list(folder.glob("*-features.npz"))  # killed before the rename: no half entry
    with pytest.warns(_cache.CacheWarning, match="is missing"):  # the weights alone: an interrupted build
        healed = _tiny(tmp_path)
    assert not healed.info["from_cache"] and not any(p.exists() for p in leftovers)
    assert _tiny(tmp_path).info["from_cache"]


def test_a_write_that_fails_midway_leaves_the_old_file_and_no_temporary_one(tmp_path):
    from tgreedy_lib import files

    target = tmp_path / "claims.json"
    target.write_text('{"claims": "the earlier, complete table"}')
    with pytest.raises(RuntimeError, match="disk went away"):
        with files.atomic_writer(target) as handle:
            handle.write('{"claims": [')
            raise RuntimeError("disk went away")
    assert target.read_text() == '{"claims": "the earlier, complete table"}'
    assert [p.name for p in tmp_path.iterdir()] == ["claims.json"]
    with pytest.raises(TypeError, match="not JSON serializable"):  # a value that cannot be written: nothing is
        files.write_json(target, {"claims": object()})
    assert target.read_text() == '{"claims": "the earlier, complete table"}'


def test_leftovers_of_killed_writers_go_and_a_live_writers_file_stays(tmp_path):
    from tgreedy_lib import files

    folder = tmp_path / "cache" / "features"
    folder.mkdir(parents=True)
    stale = folder / "mnist-0123456789abcdef-features.npz.123@another-host.k2j3h4ab.tmp"
    fresh = folder / "mnist-0123456789abcdef-dbn.npz.123@another-host.x8y9z0cd.tmp"
    alive = folder / f"mnist-0123456789abcdef-dbn.npz.{os.getpid()}@{files._HOST}.abcd.tmp"
    for path in (stale, fresh, alive):
        path.write_bytes(b"half")
    past = time.time() - 2 * files.STALE_SECONDS
    os.utime(stale, (past, past))
    _tiny(tmp_path)
    assert not stale.exists() and fresh.exists() and alive.exists()  # a live writer's file is never taken


def test_a_cache_that_cannot_be_written_computes_without_storing_and_warns_once(tmp_path, monkeypatch):
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    monkeypatch.setenv(datasets.ENV_CACHE_DIR, str(blocked / "cache"))  # no folder can be made under a file
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fs = _tiny(tmp_path)
        fs.train_features, fs.train_labels = fs.train_features[::10], fs.train_labels[::10]
        features.feature_probe(fs)  # the probe's JSON cannot be stored either: still one warning
    messages = _cache_warnings(caught)
    assert len(messages) == 1 and "cannot be written" in messages[0] and "TGREEDY_CACHE_DIR" in messages[0]
    assert fs.train_features.shape[1] == 6 and not fs.info["from_cache"]


# ============================================================================ read-only folders


@pytest.fixture(scope="module")
def read_only_run(tmp_path_factory) -> dict:
    """One subprocess (permission bits enforced even for root) that meets every read-only folder of a user:
    ``reproduce --out`` an existing read-only folder, ``--out`` a folder under one, and a read-only cache."""
    prefix = _readonly_prefix()
    base = tmp_path_factory.mktemp("read-only")
    locked, cache = _read_only(base / "locked"), _read_only(base / "cache")
    (base / "no-data").mkdir()
    script = f"""
        import contextlib, io, json, warnings
        from tgreedy_course import cli
        from tgreedy_lib import features
        from tgreedy_lib.features.dbn import RBMTraining
        out = {{}}

        def computed(*args, **kwargs):
            print("computed")
            raise SystemExit(1)

        for where, folder in (("read-only", {str(locked)!r}), ("under", {str(locked / 'results')!r})):
            err, printed = io.StringIO(), io.StringIO()
            cli.load_experiment_features = computed
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(printed):
                try:
                    status = cli.main(["mnist-2-vs-other", "--quick", "--out", folder])
                except BaseException as error:  # what a user would see: a traceback
                    status = f"{{type(error).__name__}}: {{error}}"
            out[where] = {{"status": status, "stderr": err.getvalue(), "stdout": printed.getvalue()}}
        TINY = features.FeatureConfig(layer_sizes=(784, 12, 6), visible="bernoulli",
                                      training=(RBMTraining(epochs=1, batch_size=500),) * 2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                fs = features.load_features("mnist", data_dir={str(base / 'no-data')!r}, config=TINY,
                                            progress=False, device="cpu", probe=False)
                shape = list(fs.train_features.shape)
            except Exception as error:  # what a user would see: the features built, then lost
                shape = f"{{type(error).__name__}}: {{error}}"
        out["cache"] = {{"shape": shape, "warnings": [f"{{w.category.__name__}}: {{w.message}}" for w in caught]}}
        print(json.dumps(out))
    """
    done = _python(script, env={datasets.ENV_CACHE_DIR: str(cache)}, prefix=prefix)
    assert done.returncode == 0, done.stderr
    return {"outcome": json.loads(done.stdout.strip().splitlines()[-1]), "locked": locked, "cache": cache}


@pytest.mark.parametrize("where", ["read-only", "under"])
def test_reproduce_refuses_a_read_only_output_folder_before_any_work(read_only_run, where):
    outcome = read_only_run["outcome"][where]
    folder = read_only_run["locked"] / ("results" if where == "under" else "")
    lines = outcome["stderr"].strip().splitlines()
    assert outcome["status"] == 2 and len(lines) == 1
    assert f"--out {str(folder).rstrip('/')}" in lines[0] and "Permission denied" in lines[0]
    assert "computed" not in outcome["stdout"] and list(read_only_run["locked"].iterdir()) == []


def test_a_read_only_cache_folder_keeps_the_features_that_were_built(read_only_run):
    outcome = read_only_run["outcome"]["cache"]
    assert outcome["shape"] == [8004, 6]  # built, and given to the caller, though it could not be stored
    [warning] = outcome["warnings"]
    assert warning.startswith("CacheWarning") and "cannot be written" in warning and "TGREEDY_CACHE_DIR" in warning
    assert list(read_only_run["cache"].iterdir()) == []


# ============================================================================ results and the command line


_FAST_CLI = """
from test_experiments import synthetic_features
from tgreedy_course import cli


def loader(dataset, feature_map="dbn", **kwargs):
    if dataset == "cifar10":
        raise FileNotFoundError("CIFAR-10 python batches not found")
    fs = synthetic_features(per_class=30, p=16)
    fs.info["feature_map"] = "dbn"
    return fs


SETTINGS = {"mnist-2-vs-other": {"n_steps": 3, "targets": (9,)},
            "mnist-similarity": {"n_steps": 3, "targets": (9,), "n_positive": 30, "n_negative": 30}}
"""
_FAST_CLI_NAMES: dict = {}
exec(_FAST_CLI, _FAST_CLI_NAMES)


def fast_cli(monkeypatch):
    """``reproduce`` on small synthetic features with few steps (:data:`_FAST_CLI`, also run in subprocesses)."""
    monkeypatch.setattr(cli, "load_experiment_features", _FAST_CLI_NAMES["loader"])
    for name, value in _FAST_CLI_NAMES["SETTINGS"].items():
        monkeypatch.setitem(cli.QUICK, name, value)


def _cli_script(out, marker=None, argv=("mnist-2-vs-other", "mnist-similarity")) -> str:
    """``reproduce`` on small synthetic features in a subprocess; with ``marker``, it stalls (until killed)
    just before renaming the second experiment's JSON into place, after writing it to its temporary file."""
    lines = [_FAST_CLI, "import os, pathlib, sys, time", "cli.load_experiment_features = loader",
             "cli.QUICK.update(SETTINGS)"]
    if marker is not None:
        lines += ["replace = os.replace",
                  "def stalled(src, dst):",
                  "    if pathlib.Path(dst).name == 'mnist-similarity.json':",
                  f"        pathlib.Path({str(marker)!r}).write_text('writing')",
                  "        time.sleep(120)",
                  "    return replace(src, dst)",
                  "os.replace = stalled"]
    lines.append(f"sys.exit(cli.main([*{list(argv)!r}, '--quick', '--no-figures', '--out', {str(out)!r}]))")
    return "\n".join(lines)


def test_a_run_killed_while_writing_keeps_what_it_finished_and_a_rerun_resumes(tmp_path, monkeypatch, capsys):
    out, marker = tmp_path / "results", tmp_path / "writing"
    process = subprocess.Popen([sys.executable, "-c", textwrap.dedent(_cli_script(out, marker))],
                               env={**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS.parent), str(TESTS)])},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not marker.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marker.exists(), f"the run never reached its second write: {process.communicate(timeout=10)}"
        process.send_signal(signal.SIGKILL)
    finally:
        process.kill()
        process.wait(timeout=10)
    finished = json.loads((out / "mnist-2-vs-other.json").read_text())  # whole, written before the kill
    assert finished["experiment"] and not (out / "mnist-similarity.json").exists()
    assert [p for p in out.iterdir() if p.name.endswith(".tmp")]  # the killed writer's temporary file
    assert not (out / "claims.json").exists()
    mine = out / "notes.x1y2z3ab.part"  # a user's own file, named like an earlier writer's: never taken
    mine.write_text("mine")
    os.utime(mine, (0, 0))

    fast_cli(monkeypatch)
    assert cli.main(["mnist-2-vs-other", "mnist-similarity", "--quick", "--no-figures", "--resume",
                     "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "mnist-2-vs-other: kept from the earlier run" in printed and "mnist-similarity: running" in printed
    assert json.loads((out / "mnist-2-vs-other.json").read_text()) == finished
    assert json.loads((out / "claims.json").read_text())["counts"]
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")] and mine.read_text() == "mine"
    # --resume keeps only what the same settings made: another design reruns it
    assert cli.main(["mnist-2-vs-other", "--quick", "--no-figures", "--resume", "--design", "earlier",
                     "--out", str(out)]) == 0
    assert "mnist-2-vs-other: running" in capsys.readouterr().out


def test_a_truncated_result_from_a_killed_run_is_named_and_the_claims_still_written(tmp_path, monkeypatch, capsys):
    fast_cli(monkeypatch)
    out = tmp_path / "results"
    out.mkdir()
    (out / "mnist-2-vs-other.json").write_text('{"experiment": "mnist-2-vs-other", "splits": [{"la')
    assert cli.main(["mnist-similarity", "--quick", "--no-figures", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "mnist-2-vs-other.json is damaged" in err and "left out of the figures and claims" in err
    claims = json.loads((out / "claims.json").read_text())
    assert "mnist-similarity" in claims["results_used"] and "mnist-2-vs-other" not in claims["results_used"]
    with pytest.raises(ValueError, match=r"mnist-2-vs-other\.json is damaged"):
        cli.read_results(out)


def test_a_damaged_per_seed_result_is_named_by_the_summary(tmp_path, monkeypatch):
    fast_cli(monkeypatch)
    out = tmp_path / "seeds"
    assert cli.main(["mnist-2-vs-other", "--quick", "--no-figures", "--seeds", "2", "--out", str(out)]) == 0
    damaged = out / "learned" / "seed-1" / "mnist-2-vs-other.json"
    damaged.write_text(damaged.read_text()[:100])
    with pytest.raises(ValueError, match=r"seed-1/mnist-2-vs-other\.json is damaged"):
        cli.summarize(out, figures=False)


@pytest.mark.parametrize("where", ["a file", "under a file"])
def test_reproduce_refuses_an_output_path_it_cannot_write_before_any_work(tmp_path, monkeypatch, capsys, where):
    monkeypatch.setattr(cli, "load_experiment_features", lambda *a, **k: pytest.fail("computed before checking --out"))
    blocked = tmp_path / "taken"
    blocked.write_text("notes")
    out = blocked if where == "a file" else blocked / "results"
    assert cli.main(["mnist-2-vs-other", "--quick", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"--out {out}" in err[0] and "is a file" in err[0]
    assert blocked.read_text() == "notes"


def test_every_command_checks_its_outputs_before_any_work(tmp_path, monkeypatch, capsys):
    from tgreedy_course import __main__ as entry
    from tgreedy_course import assignments, notebooks
    from tgreedy_course import compare_tables
    from tgreedy_course.verify import registry

    blocked = tmp_path / "a-file"
    blocked.write_text("")
    never = lambda *a, **k: pytest.fail("computed before checking the outputs")  # noqa: E731
    monkeypatch.setattr(compare_tables, "run_compare", never)
    monkeypatch.setattr(registry, "run_checks", never)
    monkeypatch.setattr(notebooks, "execute_notebook", never)
    monkeypatch.setattr(assignments, "_run", never)
    monkeypatch.setattr(datasets, "find_mnist_file", never)
    notebook_dir = tmp_path / "nb"
    notebook_dir.mkdir()
    (notebook_dir / "00_x.ipynb").write_text("{}")
    commands = [
        (["compare", "--quick", "--out", str(blocked)], "--out"),
        (["verify", "--quick", "--json", str(blocked / "v.json")], "--json"),
        (["verify", "--quick", "--json", str(tmp_path)], "is a folder, not a file"),
        (["verify", "--readme", str(tmp_path / "no-README.md")], "does not exist"),
        (["execute-notebooks", "--notebooks", str(notebook_dir), "--out", str(blocked)], "--out"),
        (["grade", str(tmp_path), "--out", str(tmp_path)], "is a folder, not a file"),
        (["assignments", "generate", "--out", str(blocked)], "--out"),
        (["download", "mnist", "--cache-dir", str(blocked)], "the cache folder"),
        (["reference", str(tmp_path), "--readme", str(tmp_path / "no-README.md")], "--readme"),
    ]
    for argv, expected in commands:
        assert entry.main(argv) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and expected in err[0], (argv, err)


# ============================================================================ bounded reading


def _idx_header(n_images: int) -> bytes:
    return struct.pack(">BBBBIII", 0, 0, 0x08, 3, n_images, 28, 28)


@pytest.fixture(scope="module")
def gzip_bomb(tmp_path_factory) -> pathlib.Path:
    """A gzipped IDX whose header declares 10 images but which inflates to 256 MiB (a quarter-MB file)."""
    path = tmp_path_factory.mktemp("bomb") / "t10k-images-idx3-ubyte.gz"
    megabyte = gzip.compress(bytes(1 << 20), compresslevel=9)  # a gzip file may be many members, read as one
    path.write_bytes(gzip.compress(_idx_header(10) + bytes(7840)) + megabyte * 256)
    return path


def _peak_bytes(call) -> int:
    tracemalloc.start()
    try:
        call()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


def test_a_gzip_bomb_is_refused_without_inflating_it(gzip_bomb):
    assert gzip_bomb.stat().st_size < 2**20

    def read():
        with pytest.raises(ValueError, match=r"t10k-images-idx3-ubyte\.gz: more than 1048576 unexpected bytes"):
            datasets.read_idx(gzip_bomb)

    assert _peak_bytes(read) < 16 * 2**20  # the old reader inflated all 256 MiB


def test_load_mnist_refuses_the_bomb_too(gzip_bomb, tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    shutil.copy(gzip_bomb, folder / gzip_bomb.name)
    labels = folder / "t10k-labels-idx1-ubyte.gz"
    labels.write_bytes(gzip.compress(struct.pack(">BBBBI", 0, 0, 0x08, 1, 10) + bytes(10)))

    def load():
        with pytest.raises(ValueError, match="unexpected bytes"):
            datasets.load_mnist("test", data_dir=folder)

    assert _peak_bytes(load) < 16 * 2**20


def test_a_header_that_declares_more_than_the_file_can_hold_is_refused_before_reading(tmp_path):
    path = tmp_path / "train-images-idx3-ubyte.gz"
    path.write_bytes(gzip.compress(_idx_header(10**9) + bytes(784)))  # 784 GB promised by a tiny file

    def read():
        with pytest.raises(ValueError, match=r"cannot hold that many"):
            datasets.read_idx(path)

    assert _peak_bytes(read) < 2**20
    raw = tmp_path / "raw-idx3-ubyte"
    raw.write_bytes(_idx_header(5) + bytes(784))
    with pytest.raises(ValueError, match="cannot hold that many"):
        datasets.read_idx(raw)


def test_valid_idx_files_still_read_exactly(tmp_path):
    images = np.arange(3 * 28 * 28, dtype=np.uint64).astype(np.uint8).reshape(3, 28, 28)
    for name, payload in (("a-idx3-ubyte", _idx_header(3) + images.tobytes()),
                          ("b-idx3-ubyte.gz", gzip.compress(_idx_header(3) + images.tobytes()))):
        (tmp_path / name).write_bytes(payload)
        np.testing.assert_array_equal(datasets.read_idx(tmp_path / name), images)
    empty = tmp_path / "c-idx3-ubyte.gz"
    empty.write_bytes(gzip.compress(_idx_header(0)))
    assert datasets.read_idx(empty).shape == (0, 28, 28)


def _tar_gz(members) -> bytes:
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb") as zipped:
        for info, payload in members:
            zipped.write(info.tobuf(format=tarfile.GNU_FORMAT) + payload)
        zipped.write(bytes(1024))
    return buffer.getvalue()


def test_a_cifar_archive_that_unpacks_too_large_or_too_many_is_refused_before_writing(tmp_path):
    huge = tarfile.TarInfo("cifar-10-batches-py/data_batch_1")
    huge.size = 4 * 2**30  # declared: 4 GiB (the bytes are not even there)
    archive = tmp_path / "cifar-10-python.tar.gz"
    archive.write_bytes(_tar_gz([(huge, b"")]))
    out = tmp_path / "out"
    with pytest.raises(ValueError, match="MiB unpacked"):
        datasets.formats.extract_safely(archive, out)
    assert not out.exists()
    many = []
    for i in range(datasets.formats.ARCHIVE_MEMBER_LIMIT + 1):
        info = tarfile.TarInfo(f"cifar-10-batches-py/part_{i}")
        info.size = 512
        many.append((info, bytes(512)))
    archive.write_bytes(_tar_gz(many))
    with pytest.raises(ValueError, match="more than 64 members"):
        datasets.formats.extract_safely(archive, out)
    assert not out.exists()


def test_a_cifar_batch_far_too_large_is_refused_without_reading_it(tmp_path):
    batch = tmp_path / "data_batch_1"
    with open(batch, "wb") as handle:
        handle.truncate(200 * 2**20)  # sparse: 200 MiB on paper, nothing on disk

    def read():
        with pytest.raises(ValueError, match="far more than a CIFAR-10 batch holds"):
            datasets.read_cifar10_batch(batch)

    assert _peak_bytes(read) < 2**20


# ============================================================================ almost-right data


def _problem(seed=0, n=3, per=40, p=5):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n * per, p))
    y = X[:, 0] - 0.5 * X[:, 3] + 0.2 * rng.standard_normal(n * per)
    return X, y, np.repeat(np.arange(n), per)


def test_dataframes_of_the_domains_are_matched_by_column_name():
    pd = pytest.importorskip("pandas")
    X, y, d = _problem()
    names = ["age", "dose", "weight", "site_a", "site_b"]
    frames = [pd.DataFrame(X[d == k], columns=names) for k in range(3)]
    aligned = DomainStatistics.from_domains([(f, y[d == k]) for k, f in enumerate(frames)])
    shuffled = [frames[0], frames[1][names[::-1]], frames[2][["weight", "age", "site_b", "dose", "site_a"]]]
    reordered = DomainStatistics.from_domains([(f, y[d == k]) for k, f in enumerate(shuffled)])
    np.testing.assert_array_equal(reordered.xy, aligned.xy)
    np.testing.assert_array_equal(tgreedy_path(reordered, 3).features, tgreedy_path(aligned, 3).features)
    renamed = [frames[0], frames[1].rename(columns={"dose": "dosage"}), frames[2]]
    with pytest.raises(ValueError, match=r"X of domain 1 has columns .*\(missing \[.dose.\], unexpected \[.dosage.\]\)"):
        DomainStatistics.from_domains([(f, y[d == k]) for k, f in enumerate(renamed)])


def test_dataframe_chunks_and_unlabeled_rows_are_matched_by_column_name():
    pd = pytest.importorskip("pandas")
    X, y, d = _problem()
    names = list("abcde")
    frame = pd.DataFrame(X, columns=names)
    chunks = [(frame.iloc[i:i + 40][names if i == 0 else names[::-1]], y[i:i + 40], d[i:i + 40])
              for i in range(0, 120, 40)]
    np.testing.assert_allclose(DomainStatistics.from_chunks(chunks).xy, DomainStatistics.from_samples(X, y, d).xy,
                               rtol=1e-12)
    unlabeled = frame[names[::-1]]
    by_name = DomainStatistics.from_samples(frame, y, d, unlabeled_X=unlabeled).unlabeled_xx
    np.testing.assert_allclose(by_name, X.T @ X / len(X), rtol=1e-12)
    selector = TGreedy(n_features_to_select=2, denominator="unlabeled").fit(frame, y, domains=d, unlabeled_X=unlabeled)
    reference = TGreedy(n_features_to_select=2, denominator="unlabeled").fit(frame, y, domains=d, unlabeled_X=frame)
    np.testing.assert_array_equal(selector.coef_, reference.coef_)
    with pytest.raises(ValueError, match="unlabeled_X has columns"):
        DomainStatistics.from_samples(frame, y, d, unlabeled_X=unlabeled.rename(columns={"a": "z"}))


@pytest.mark.parametrize("fault", ["drops", "repeats", "changes"])
def test_a_chunk_reader_that_changes_between_passes_is_refused(fault):
    X, y, d = _problem()
    chunks = [(X[i:i + 20], y[i:i + 20], d[i:i + 20]) for i in range(0, 120, 20)]
    passes = []

    def reader():
        passes.append(1)
        if len(passes) == 1:
            return iter(chunks)
        if fault == "drops":
            return iter(chunks[:-1])
        if fault == "repeats":
            return iter(chunks + chunks[-1:])
        return iter(chunks[:-1] + [(X[-20:], y[-20:] + 1.0, d[-20:])])

    with pytest.raises(ValueError, match="the chunks changed between passes"):
        tgreedy_path(DomainStatistics.from_chunks(reader), 3)
    passes.clear()
    steady = tgreedy_path(DomainStatistics.from_chunks(lambda: iter(chunks[::-1] if passes.append(1) or
                                                                     len(passes) > 1 else chunks)), 3)
    np.testing.assert_array_equal(steady.features, tgreedy_path(DomainStatistics.from_samples(X, y, d), 3).features)


@pytest.mark.parametrize("value", [0.0, 1.0])
def test_a_target_without_variation_is_refused(value):
    X, y, d = _problem()
    flat = np.full_like(y, value)
    with pytest.raises(ValueError, match=f"y is {value:g} in every sample.*pass the target itself"):
        DomainStatistics.from_samples(X, flat, d)
    with pytest.raises(ValueError, match="does not vary"):
        DomainStatistics.from_chunks([(X, flat, d)])
    with pytest.raises(ValueError, match="does not vary"):
        TGreedy(n_features_to_select=3).fit(X, flat, domains=d)


def test_complex_input_is_refused_not_cut_to_its_real_part():
    scipy_sparse = pytest.importorskip("scipy.sparse")
    X, y, d = _problem()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's ComplexWarning would mean the imaginary part was dropped
        with pytest.raises(ValueError, match=r"X holds complex numbers.*X\.real"):
            DomainStatistics.from_samples(X + 1e-3j, y, d)
        with pytest.raises(ValueError, match=r"y holds complex numbers"):
            DomainStatistics.from_samples(X, y.astype(complex), d)
        with pytest.raises(ValueError, match=r"y of domain 0 holds complex numbers"):
            DomainStatistics.from_domains([(X[:40], list(y[:40] + 0j)), (X[40:], y[40:])])
        with pytest.raises(ValueError, match="X holds complex numbers"):
            DomainStatistics.from_samples(scipy_sparse.csr_matrix(X + 1j), y, d)
        with pytest.raises(ValueError, match="train_X holds complex numbers"):
            run_on_data(X + 1j, d, X, d)


def test_zero_columns_are_refused_with_the_fix():
    X, y, d = _problem()
    with pytest.raises(ValueError, match=r"X has no columns \(shape \(120, 0\)\)"):
        DomainStatistics.from_samples(X[:, :0], y, d)
    with pytest.raises(ValueError, match="train_X has no columns"):
        run_on_data(X[:, :0], d, X[:, :0], d)


# ============================================================================ every option checked


def _path_and_stats():
    X, y, d = _problem(n=4)
    stats = DomainStatistics.from_samples(X, y, d)
    return tgreedy_path(stats, 3), stats


@pytest.mark.parametrize("call, message", [
    (lambda p, s: stopping.stop_lodo(p, s, min_k=1.5), r"^min_k must be an integer in \[0, inf\), got 1\.5"),
    (lambda p, s: stopping.choose_k(p, s, rule="chance", alpha=None), r"^alpha must lie in \(0, 1\), got None"),
    (lambda p, s: stopping.choose_k(p, s, rule="bonferroni", alpha=[0.1]), r"^alpha must lie in \(0, 1\), got \[0\.1\]"),
    (lambda p, s: stopping.choose_k(p, s, rule="chance", seed=-1), r"^seed must be an integer in \[0, inf\)"),
    (lambda p, s: stopping.stop_chance(p, s, n_flips=0), r"^n_flips must be an integer in \[1, inf\)"),
    (lambda p, s: stopping.stop_chance(p, s, null="normal"), r"^null must be one of \['gaussian', 'sign_flip'\]"),
    (lambda p, s: stopping.stop_bonferroni(p, 1), r"^n_domains must be an integer in \[2, inf\)"),
    (lambda p, s: stopping.stop_lodo(p, s, score="auroc"), r"^score must be one of \['squared_loss'\] or a callable"),
    (lambda p, s: stopping.choose_k(p, None), r"^stats must be a DomainStatistics"),
    (lambda p, s: TGreedy(n_features_to_select=3, stopping={"rule": "chance", "alpha": None}).fit_statistics(s),
     r"^alpha must lie in \(0, 1\), got None \(stopping rule 'chance'\)"),
    (lambda p, s: baselines.omp_path(s, 0), r"^n_steps must be an integer in \[1, inf\), got 0 \(omp_path\)"),
    (lambda p, s: baselines.lasso_path(s, 3, n_alphas=0), r"^n_alphas must be an integer in \[1, inf\)"),
    (lambda p, s: baselines.vrex_path(s, betas=[]), r"^betas must be a non-empty sequence"),
    (lambda p, s: baselines.vrex_path(s, betas=[1.0, -2.0]), r"^betas must be a non-empty sequence"),
    (lambda p, s: baselines.icp_path(s, 3, alpha=2), r"^alpha must lie in \(0, 1\), got 2 \(icp_path\)"),
    (lambda p, s: baselines.t_filter_path(s, 2.5), r"^n_steps must be an integer"),
    (lambda p, s: baselines.run_baseline("omp", s, n_steps="3"), r"^n_steps must be an integer"),
    (lambda p, s: baselines.vrex_fit(s, beta=None), r"^beta must lie in \[0, inf\)"),
    (lambda p, s: stopping.stop_chance(p, s, alpha=float("nan")), r"^alpha must lie in \(0, 1\), got nan"),
    (lambda p, s: stopping.stop_chance(p, s, full="yes"), r"^full must be True or False"),
    (lambda p, s: TGreedy(n_features_to_select=3, stopping={"rule": "lodo", "min_k": 1.5}).fit_statistics(s),
     r"^min_k must be an integer in \[0, inf\), got 1\.5 \(stopping rule 'lodo'\)"),
    (lambda p, s: run_on_data(np.ones((8, 3)), np.arange(8), np.ones((8, 3)), np.arange(8), design="paper"),
     r"^design must be a Design or None"),
])
def test_each_wrong_option_is_named(call, message):
    path, stats = _path_and_stats()
    with pytest.raises(ValueError, match=message):
        call(path, stats)


def test_valid_options_keep_their_results():
    path, stats = _path_and_stats()
    reference = stopping.stop_chance(path, stats, seed=3)
    assert stopping.stop_chance(path, stats, seed=np.int64(3)).evidence == reference.evidence
    assert stopping.stop_chance(path, stats, seed=np.random.default_rng(3)).rule == "chance"
    assert stopping.choose_k(path, stats, rule="bonferroni", alpha=np.float64(0.05)).evidence == \
        stopping.choose_k(path, stats, rule="bonferroni").evidence
    assert stopping.stop_lodo(path, stats, min_k=np.int64(2)).k >= 2


def test_lasso_and_vrex_on_a_zero_target_say_so():
    xx = np.broadcast_to(np.eye(4), (3, 4, 4))
    zero = DomainStatistics.from_moments(xx, np.zeros((3, 4)), np.zeros(3))
    with pytest.raises(ValueError, match=r"lasso_path: every E\[X_i Y \| d_k\] is 0"):
        baselines.lasso_path(zero, 3)
    with pytest.raises(ValueError, match=r"vrex_path: E\[Y\^2 \| d_k\] is 0 in every domain"):
        baselines.vrex_path(zero)


def _blobs(labels, per=30, p=10, seed=0):
    rng = np.random.default_rng(seed)
    classes = list(dict.fromkeys(labels))
    centers = rng.normal(0, 1.5, (len(classes), p))
    index = np.repeat(np.arange(len(classes)), per)
    X = 1 / (1 + np.exp(-(centers[index] + rng.normal(0, 1, (len(index), p)))))
    y = np.empty(len(index), dtype=object)
    y[:] = [classes[i] for i in index]
    return X, y


@pytest.mark.parametrize("labels", [["ant", "bee", "cat", "dog", "eel"], [-3, -2, -1, 0, 1],
                                    [0, 5_000_000_000, 10**10, 3 * 10**10, 4 * 10**10], [("a", 1), ("b", 2), ("c", 3),
                                                                                        ("d", 4), ("e", 5)]])
def test_run_on_data_takes_any_hashable_class_labels(labels):
    X, y = _blobs(labels)
    if isinstance(labels[0], int):
        y = y.astype(np.int64)
    out = run_on_data(X, y, X, y, positive=labels[2], n_steps=3, similarity_steps=3, n_pairs=30)
    result = out["results"]["two-vs-other"]
    recorded = [tuple(v) if isinstance(v, list) else v for v in result["class_labels"]]
    expected = [str(v) if isinstance(v, tuple) else v for v in sorted(labels)]
    assert recorded == expected and result["experiment"].endswith(f"{labels[2]}-vs-other")
    assert len(result["splits"]) == 4 and out["results"]["similarity"]["class_labels"] == result["class_labels"]


def test_run_on_data_names_its_wrong_options():
    X, y = _blobs([0, 1, 2, 3, 4])
    y = y.astype(np.int64)
    for options, message in (({"n_steps": 0}, r"^n_steps must be an integer in \[1, inf\)"),
                             ({"n_pairs": 2.5}, "^n_pairs must be an integer"),
                             ({"positive": 7}, r"positive=7 is not one of the class labels"),
                             ({"progress": "print"}, "^progress must be a callable or None"),
                             ({"experiments": "similarity"}, "^experiments must be a list or a tuple")):
        with pytest.raises(ValueError, match=message):
            run_on_data(X, y, X, y, **{"n_steps": 3, "similarity_steps": 3, "n_pairs": 30, **options})
    labels = y.astype(object)
    labels[4] = None
    with pytest.raises(ValueError, match="missing value None at index 4"):
        run_on_data(X, labels, X, y)

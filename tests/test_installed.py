"""Installed, not only checked out: a non-editable install has its data and runs its commands.

The package is installed with ``pip install --no-deps --no-build-isolation`` (no network: the build
backend and the dependencies are those of the running interpreter) into a fresh virtual
environment, from a copy of the package sources, and run from a temporary folder outside the
checkout with a clean ``PYTHONPATH``, so nothing can come from the checkout: every module must be
inside the new environment.
"""
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _run(args, cwd, timeout=300):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    result = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{' '.join(map(str, args))} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """Python of a fresh venv holding non-editable installs of the library and of the course's tools; and a folder
    outside the checkout."""
    base = tmp_path_factory.mktemp("installed")
    source = base / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "tgreedy_lib", source / "tgreedy_lib", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copytree(ROOT / "course", base / "course", ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
    venv = base / "venv"
    _run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], cwd=base)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    # The running interpreter may itself be a virtual environment (CI's .venv): its site-packages give the new
    # one numpy, scipy, torch, pip and setuptools. A path in a .pth file is added without running the .pth
    # files inside it, so an editable install of the checkout there is not picked up.
    site = pathlib.Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=base).strip())
    parents = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "_running_interpreter.pth").write_text("".join(f"{p}\n" for p in sorted(parents)))
    _run([str(python), "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index", "--quiet", str(source),
          str(base / "course")],
         cwd=base, timeout=600)
    outside = base / "elsewhere"
    outside.mkdir()
    return python, venv, outside


def test_every_module_comes_from_the_installed_package(installed):
    python, venv, outside = installed
    out = _run([str(python), "-c", """
import importlib, pkgutil, tgreedy_lib
print(tgreedy_lib.__file__)
for info in pkgutil.walk_packages(tgreedy_lib.__path__, "tgreedy_lib."):
    if info.name.endswith("__main__"):
        continue
    print(importlib.import_module(info.name).__file__)
"""], cwd=outside)
    files = [pathlib.Path(line) for line in out.split()]
    assert len(files) > 30
    outside_venv = [str(f) for f in files if venv.resolve() not in f.resolve().parents]
    assert not outside_venv, f"modules imported from outside the installed package: {outside_venv[:5]}"
    assert any(f.parent.name == "domain_adaptation" for f in files) and any(f.parent.name == "theorems" for f in files)


def test_installed_package_loads_the_bundled_mnist(installed):
    python, venv, outside = installed
    out = _run([str(python), "-c", """
import tgreedy_lib.datasets as d
from tgreedy_lib.datasets import load_bundled_mnist
images, labels = load_bundled_mnist()
print(d.BUNDLED_DIR)
print(images.shape, labels.shape, labels[:5].tolist(), sorted(set(labels.tolist())) == list(range(10)))
"""], cwd=outside)
    bundled, summary = out.strip().splitlines()
    assert venv.resolve() in pathlib.Path(bundled).resolve().parents
    assert summary.startswith("(10000, 28, 28) (10000,)") and summary.endswith("True")


def test_installed_package_runs_verify_quick(installed):
    python, venv, outside = installed
    out = _run([str(python), "-m", "tgreedy_course", "verify", "domains.theorem2", "categorical.theorem1", "--quick",
                "--json", "verify.json"], cwd=outside)
    assert "domains.theorem2" in out and "categorical.theorem1" in out
    assert (outside / "verify.json").read_text().startswith('{\n  "checks": [')
    usage = subprocess.run([str(python), "-m", "tgreedy_course"], cwd=outside, capture_output=True, text=True)
    assert usage.returncode == 2 and "execute-notebooks" in usage.stdout


#: A meta-path hook that makes ``import torch`` fail as it does where torch is not installed.
BLOCK_TORCH = """
import importlib.abc, sys

class _NoTorch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, _NoTorch())
"""


def _notebook_imports(prefixes) -> list[str]:
    """The import statements of the code cells of the notebooks whose names start with ``prefixes``."""
    import ast
    import json

    statements = []
    for path in sorted(p for p in (ROOT / "notebooks").glob("*.ipynb") if p.name.startswith(prefixes)):
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] == "code":
                tree = ast.parse("".join(line for line in cell["source"] if not line.lstrip().startswith(("%", "!"))))
                statements += [ast.unparse(node) for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
    return sorted(set(statements))


def test_installed_package_needs_no_torch_for_the_selectors_and_notebooks_00_to_05(installed):
    """torch is the ``dbn`` extra: the library, the selectors, the theory and what notebooks 00-05 import load without
    it, and the features that need it say which extra installs it."""
    python, venv, outside = installed
    imports = _notebook_imports(("00", "01", "02", "03", "04", "05"))
    assert any("tgreedy_lib" in s for s in imports) and len(imports) > 10
    out = _run([str(python), "-c", BLOCK_TORCH + "\n".join(imports) + """
import tgreedy_lib
from tgreedy_lib import TGreedy, Greedy, available_selectors, get_selector
from tgreedy_lib.domain_adaptation import baselines, estimators, stopping
from tgreedy_course.seeds import load_reference
from tgreedy_lib.experiments import ExperimentFeatures, run_similarity, run_two_vs_other  # a researcher's own features
from tgreedy_course.any_data import run_on_data
print(len(available_selectors()), [get_selector(n).name for n in available_selectors()][:2])
print("reference", load_reference() is not None)
try:
    import tgreedy_lib.features
except ModuleNotFoundError as error:
    print("features:", error)
print("torch loaded:", "torch" in sys.modules)
"""], cwd=outside)
    assert "['greedy', 'tgreedy']" in out and "reference True" in out and "torch loaded: False" in out, out
    assert "features: tgreedy_lib.features" in out and "pip install -e '.[dbn]'" in out, out

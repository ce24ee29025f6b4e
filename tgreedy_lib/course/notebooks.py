"""Execute the notebook collection in place (the ``execute-notebooks`` command)."""
from __future__ import annotations

import argparse
import os
import pathlib
import tempfile
import time

import nbformat
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

NOTEBOOK_DIR = pathlib.Path(__file__).resolve().parent.parent.parent / "notebooks"


def notebook_paths(directory: pathlib.Path = NOTEBOOK_DIR) -> list[pathlib.Path]:
    """The collection's notebooks in reading order (their file names start with a number)."""
    return sorted(p for p in directory.glob("[0-9][0-9]_*.ipynb"))


def execute_notebook(path: pathlib.Path, timeout: int = 1800) -> float:
    """Run ``path`` top to bottom in a fresh kernel, in its own folder, and save it; return seconds."""
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    # The kernel talks over local IPC sockets, not TCP: nothing listens on the network (and ipykernel
    # does not warn about unencrypted TCP).
    with tempfile.TemporaryDirectory() as sockets:
        km = KernelManager(kernel_name="python3", transport="ipc", ip=os.path.join(sockets, "kernel"))
        try:
            NotebookClient(nb, km=km, timeout=timeout, resources={"metadata": {"path": str(path.parent)}}).execute()
        finally:
            if km.has_kernel:
                km.shutdown_kernel()
    nbformat.write(nb, path)
    return time.perf_counter() - start


def main(argv: list[str] | None = None, prog: str = "python -m tgreedy_lib execute-notebooks") -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__)
    parser.add_argument("names", nargs="*", help="notebook files (default: every numbered notebook)")
    args = parser.parse_args(argv)
    paths = [pathlib.Path(n) for n in args.names] or notebook_paths()
    for path in paths:
        seconds = execute_notebook(path)
        print(f"executed {path.name} in {seconds:.1f} s")
    return 0

"""Execute the notebook collection in place (the ``execute-notebooks`` command)."""
from __future__ import annotations

import argparse
import os
import pathlib
import sys
import tempfile
import time

import nbformat
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

def find_notebook_dir(start=None) -> pathlib.Path:
    """The collection's ``notebooks/`` folder, found from ``start`` (default: the current directory).

    ``start`` may be the repository, ``notebooks/`` itself or any folder below the repository; its
    parents are searched too. The package never looks next to its own files, so an installed copy
    works on any checkout. FileNotFoundError otherwise.
    """
    here = pathlib.Path(os.getcwd() if start is None else start).resolve()
    for folder in (here, *here.parents):
        if folder.name == "notebooks" and any(folder.glob("[0-9][0-9]_*.ipynb")):
            return folder
        if any((folder / "notebooks").glob("[0-9][0-9]_*.ipynb")):
            return folder / "notebooks"
    raise FileNotFoundError(
        f"no notebooks/ folder with numbered notebooks in {here} or its parents: run the command inside "
        "the course repository, or pass --notebooks DIR (or the notebook files)"
    )


def notebook_paths(directory: pathlib.Path | None = None) -> list[pathlib.Path]:
    """The collection's notebooks in reading order (their file names start with a number)."""
    directory = find_notebook_dir() if directory is None else pathlib.Path(directory)
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
    parser.add_argument("--notebooks", type=pathlib.Path, default=None,
                        help="folder of the numbered notebooks (default: notebooks/, found from the current directory)")
    args = parser.parse_args(argv)
    try:
        paths = [pathlib.Path(n) for n in args.names] or notebook_paths(args.notebooks)
    except FileNotFoundError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    if not paths:
        print(f"{prog}: no numbered notebooks (NN_<name>.ipynb) in {args.notebooks}", file=sys.stderr)
        return 2
    for path in paths:
        seconds = execute_notebook(path)
        print(f"executed {path.name} in {seconds:.1f} s")
    return 0

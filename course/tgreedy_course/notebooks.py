"""Execute the notebook collection (the ``execute-notebooks`` command).

Every numbered notebook is executed into ``--out`` (``results/notebooks``), or with ``--in-place`` (``make
notebooks``) rewritten. Each keeps its widget state (``metadata.widgets``), so a static rendering (the book) can
draw the sliders and the output they produced.
"""
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

from tgreedy_lib.files import atomic_write_text

from .subcommand import check_outputs

#: The executing kernel loads the figure-legibility extension: every figure's PNG carries the size of its
#: smallest text and the texts drawn over each other (the book's browser tests check them as displayed).
KERNEL_ARGUMENTS = ["--IPKernelApp.extensions=tgreedy_course.legibility"]


def find_notebook_dir(start=None) -> pathlib.Path:
    """The collection's ``notebooks/`` folder, found from ``start`` (default: the current directory) or its parents
    (never next to this package, so an installed copy works on any checkout); FileNotFoundError otherwise."""
    here = pathlib.Path(os.getcwd() if start is None else start).resolve()
    for folder in (here, *here.parents):
        if folder.name == "notebooks" and any(folder.glob("[0-9][0-9]*_*.ipynb")):
            return folder
        if any((folder / "notebooks").glob("[0-9][0-9]*_*.ipynb")):
            return folder / "notebooks"
    raise FileNotFoundError(
        f"no notebooks/ folder with numbered notebooks in {here} or its parents: run the command inside "
        "the course repository, or pass --notebooks DIR (or the notebook files)"
    )


def notebook_paths(directory: pathlib.Path | None = None) -> list[pathlib.Path]:
    """The collection's notebooks in reading order (their file names start with a number)."""
    directory = find_notebook_dir() if directory is None else pathlib.Path(directory)
    return sorted(p for p in directory.glob("[0-9][0-9]*_*.ipynb"))


def _stop_kernel(km: KernelManager) -> None:
    """Shut the kernel down by a shutdown request, then a kill if it lingers (``shutdown_kernel`` sends SIGINT
    first, which a kernel inside an event-loop integration reports as "KeyboardInterrupt caught in kernel")."""
    if not km.has_kernel:
        return
    km.request_shutdown()
    km.finish_shutdown()            # waits for the process, kills it after shutdown_wait_time
    km.cleanup_resources()


def execute_notebook(path: pathlib.Path, timeout: int = 1800, out: pathlib.Path | None = None) -> float:
    """Run ``path`` top to bottom in a fresh kernel, in its own folder, and write it to ``out`` (default: back to
    ``path``) with its widget state; return seconds."""
    path = pathlib.Path(path)
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    # The kernel talks over local IPC sockets, not TCP: nothing listens on the network (and ipykernel
    # does not warn about unencrypted TCP). It runs in the notebook's own folder, as in JupyterLab.
    with tempfile.TemporaryDirectory() as sockets:
        km = KernelManager(kernel_name="python3", transport="ipc", ip=os.path.join(sockets, "kernel"))
        try:
            NotebookClient(nb, km=km, timeout=timeout, store_widget_state=True, extra_arguments=KERNEL_ARGUMENTS,
                           resources={"metadata": {"path": str(path.parent.resolve())}}).execute()
        finally:
            _stop_kernel(km)
    target = pathlib.Path(out) if out is not None else path
    atomic_write_text(target, nbformat.writes(nb) + "\n")  # as nbformat.write, but never half a notebook
    return time.perf_counter() - start


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = __doc__
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("names", nargs="*", help="notebook files (default: every numbered notebook)")
    parser.add_argument("--notebooks", type=pathlib.Path, default=None,
                        help="folder of the numbered notebooks (default: notebooks/, found from the current directory)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--out", default="results/notebooks",
                       help="folder for the executed copies (default: results/notebooks)")
    where.add_argument("--in-place", action="store_true",
                       help="rewrite the notebooks themselves (maintainers: the committed outputs)")


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    prog = parser.prog
    try:
        paths = [pathlib.Path(n) for n in args.names] or notebook_paths(args.notebooks)
    except FileNotFoundError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    if not paths:
        print(f"{prog}: no numbered notebooks (NN_<name>.ipynb) in {args.notebooks}", file=sys.stderr)
        return 2
    folders = {"--out": None if args.in_place else args.out}
    folders.update({f"the folder of {path.name} (--in-place)": path.parent for path in paths if args.in_place})
    status = check_outputs(prog, folders=folders)
    if status is not None:  # before any notebook runs
        return status
    for path in paths:
        target = None if args.in_place else pathlib.Path(args.out) / path.name
        seconds = execute_notebook(path, out=target)
        print(f"executed {path.name} in {seconds:.1f} s -> {target or path}")
    return 0


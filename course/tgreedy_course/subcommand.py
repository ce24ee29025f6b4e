"""What every command of ``python -m tgreedy_course`` shares: :func:`parse_and_run` and :func:`check_outputs`.

A command's module gives two functions: one adds its arguments to a parser, the other runs the
command on the parsed arguments (``run(args, parser)``). Its ``main(argv)`` is :func:`parse_and_run`
of the two, so that it parses ``argv`` exactly as the subcommand of ``python -m tgreedy_course`` does.
Before it computes anything, a command checks that it can write every output (:func:`check_outputs`).
"""
from __future__ import annotations

import argparse
import os
import pathlib
import sys
import tempfile
from typing import Callable, Sequence

__all__ = ["check_outputs", "parse_and_run"]


def parse_and_run(add_arguments: Callable[[argparse.ArgumentParser], None],
                  run: Callable[[argparse.Namespace, argparse.ArgumentParser], int],
                  argv: Sequence[str] | None, prog: str) -> int:
    """Parse ``argv`` (``None``: ``sys.argv[1:]``) with the arguments ``add_arguments`` declares; ``run(args, parser)``.

    Examples
    --------
    >>> def add_arguments(parser):
    ...     parser.add_argument("--n", type=int, default=1)
    >>> parse_and_run(add_arguments, lambda args, parser: 2 * args.n, ["--n", "3"], "python -m demo")
    6
    """
    parser = argparse.ArgumentParser(prog=prog)
    add_arguments(parser)
    return run(parser.parse_args(argv), parser)


def _folder_problem(folder) -> str | None:
    folder = pathlib.Path(folder)
    if folder.exists() and not folder.is_dir():
        return "it is a file, not a folder"
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if existing.exists() and not existing.is_dir():
        return f"{existing} is a file, so no folder can be made under it"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        return f"it cannot be created ({error.strerror or error})"
    try:  # creating a file is the only test that holds for every user (root too) and file system
        handle, probe = tempfile.mkstemp(dir=folder, prefix=".write-test-")
        os.close(handle)
        os.remove(probe)
    except OSError as error:
        return f"it is not writable ({error.strerror or error})"
    return None


def _file_problem(path, must_exist: bool = False) -> str | None:
    path = pathlib.Path(path)
    if path.is_dir():
        return "it is a folder, not a file"
    if must_exist and not path.is_file():
        return "it does not exist"
    problem = _folder_problem(path.parent if str(path.parent) else pathlib.Path("."))
    return None if problem is None else f"its folder {path.parent}: {problem}"


def check_outputs(prog: str, *, folders: dict | None = None, files: dict | None = None,
                  existing_files: dict | None = None, stream=None) -> int | None:
    """Check every output a command will write before it computes anything.

    ``folders``, ``files`` and ``existing_files`` map the option naming an output (``"--out"``) to
    its path (``None``: not given). On the first problem one line goes to ``stream`` (stderr) and 2
    is returned; ``None`` when everything can be written.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> base = pathlib.Path(tempfile.mkdtemp()); _ = (base / "taken").write_text("")
    >>> check_outputs("reproduce", folders={"--out": base / "taken"}, stream=sys.stdout)
    reproduce: cannot write to --out ... it is a file, not a folder; choose a folder that can be written (it is created if missing)
    2
    """
    checks = [(option, path, _folder_problem, "choose a folder that can be written (it is created if missing)")
              for option, path in (folders or {}).items()]
    checks += [(option, path, _file_problem, "choose a file in a folder that can be written")
               for option, path in (files or {}).items()]
    checks += [(option, path, lambda p: _file_problem(p, must_exist=True),
                "name an existing file in a folder that can be written") for option, path in (existing_files or {}).items()]
    for option, path, problem_of, fix in checks:
        problem = None if path is None else problem_of(path)
        if problem is not None:
            print(f"{prog}: cannot write to {option} {path}: {problem}; {fix}", file=stream or sys.stderr)
            return 2
    return None

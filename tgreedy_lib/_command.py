"""A command of ``python -m tgreedy_course`` run from Python, with a parser of its own: :func:`parse_and_run`.

``python -m tgreedy_course`` (:mod:`tgreedy_course.__main__`) parses every command with one parser, a
subcommand each. A command's module gives two functions: one adds its arguments to a parser, the
other runs the command on the parsed arguments (``run(args, parser)``). Its ``main(argv)``, for
callers from Python, is :func:`parse_and_run` of those two, so that it parses ``argv`` exactly as
the subcommand does.
"""
from __future__ import annotations

import argparse
from typing import Callable, Sequence

__all__ = ["parse_and_run"]


def parse_and_run(add_arguments: Callable[[argparse.ArgumentParser], None],
                  run: Callable[[argparse.Namespace, argparse.ArgumentParser], int],
                  argv: Sequence[str] | None, prog: str) -> int:
    """Parse ``argv`` (``None``: ``sys.argv[1:]``) with the arguments ``add_arguments`` declares; ``run(args, parser)``.

    ``prog`` names the command in the usage line, in ``--help`` and in usage errors.

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

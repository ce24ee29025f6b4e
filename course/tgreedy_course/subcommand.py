"""A command of ``python -m tgreedy_course`` run from Python: :func:`parse_and_run`.

A command's module gives two functions: one adds its arguments to a parser, the other runs the
command on the parsed arguments (``run(args, parser)``). Its ``main(argv)`` is :func:`parse_and_run`
of the two, so that it parses ``argv`` exactly as the subcommand of ``python -m tgreedy_course`` does.
"""
from __future__ import annotations

import argparse
from typing import Callable, Sequence

__all__ = ["parse_and_run"]


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

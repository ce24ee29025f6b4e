"""Command line: ``python -m tgreedy_course {verify,reproduce,reference,compare,execute-notebooks,assignments,grade,student-copy,download} ...``.

One parser with a subcommand each. A command is named by its module and two functions there: one that
adds its arguments to its subparser, one that runs it on the parsed arguments (``run(args, parser)``).
A command's module is imported only when that command is asked for, so ``verify`` never loads torch. From
Python, ``main(["reproduce", "--quick"])`` runs a command exactly as the shell does and returns its exit status.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from typing import NamedTuple


class Command(NamedTuple):
    module: str
    help: str
    arguments: str = "add_arguments"
    run: str = "run"


COMMANDS = {
    "verify": Command("tgreedy_course.verify.command", "numerical checks of the papers' theorems"),
    "reproduce": Command("tgreedy_course.cli", "the paper's experiments: figures and JSON results"),
    "reference": Command("tgreedy_course.cli",
                         "(maintainers) a paper-scale `reproduce --seeds` folder -> reference_results/ and the "
                         "README's verdicts", "add_reference_arguments", "run_reference"),
    "execute-notebooks": Command("tgreedy_course.notebooks",
                                 "execute every notebook into results/notebooks (--in-place: the committed ones)"),
    "assignments": Command("tgreedy_course.assignments",
                           "course assignments: generate student versions, check they are up to date"),
    "grade": Command("tgreedy_course.assignments",
                     "grade a folder of submitted assignment notebooks into a CSV table", "add_grade_arguments"),
    "student-copy": Command("tgreedy_course.student_copy",
                            "what students get: notebooks, student assignments, data, library; no solutions or "
                            "hidden tests"),
    "compare": Command("tgreedy_course.compare_tables",
                       "stopping rules against the oracle, and baselines: JSON and Markdown tables"),
    "download": Command("tgreedy_course.download",
                        "fetch the official MNIST files or CIFAR-10 into the cache, checksum-verified"),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The one parser: every command as a subcommand; ``command``'s own arguments added (its module imported)."""
    parser = argparse.ArgumentParser(prog="python -m tgreedy_course", description="The tgreedy collection's commands.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for name, spec in COMMANDS.items():
        subparser = sub.add_parser(name, help=spec.help, description=spec.help)
        if name == command:
            module = importlib.import_module(spec.module)
            getattr(module, spec.arguments)(subparser)
            subparser.set_defaults(run_command=getattr(module, spec.run), command_parser=subparser)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = argv[0] if argv else None
    if command not in COMMANDS:
        build_parser().print_help()
        return 0 if command in ("-h", "--help") else 2
    try:
        parser = build_parser(command)
    except ModuleNotFoundError as exc:
        if exc.name != COMMANDS[command].module:
            raise
        # the student copy of the course (make student-copy) leaves the instructors' tools out
        print(f"python -m tgreedy_course {command}: not part of this copy of the course; it is an instructor's "
              "command, in the course repository", file=sys.stderr)
        return 2
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # reported under the command's own usage line, which lists its options
        args.command_parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    return int(args.run_command(args, args.command_parser) or 0)


if __name__ == "__main__":
    sys.exit(main())

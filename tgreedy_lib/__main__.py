"""Command line: ``python -m tgreedy_lib {verify,reproduce,reference,compare,execute-notebooks,assignments,grade,student-copy,download} ...``."""
from __future__ import annotations

import importlib
import sys

COMMANDS = {
    "verify": ("tgreedy_lib.collection.verify", "numerical checks of the papers' theorems"),
    "reproduce": ("tgreedy_lib.collection.cli", "the paper's experiments: figures and JSON results"),
    "reference": ("tgreedy_lib.collection.cli",
                  "(maintainers) a paper-scale `reproduce --seeds` folder -> reference_results/ and the README's verdicts"),
    "execute-notebooks": ("tgreedy_lib.collection.notebooks",
                          "execute every notebook into results/notebooks (--in-place: the committed ones)"),
    "assignments": ("tgreedy_lib.collection.assignments", "course assignments: generate student versions, check they are up to date"),
    "grade": ("tgreedy_lib.collection.assignments", "grade a folder of submitted assignment notebooks into a CSV table"),
    "student-copy": ("tgreedy_lib.collection.student_copy",
                     "what students get: notebooks, student assignments, data, library; no solutions or hidden tests"),
    "compare": ("tgreedy_lib.collection.compare", "stopping rules against the oracle, and baselines: JSON and Markdown tables"),
    "download": ("tgreedy_lib.datasets", "fetch the official MNIST files or CIFAR-10 into the cache, checksum-verified"),
}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in COMMANDS:
        print("usage: python -m tgreedy_lib COMMAND [options]\n\ncommands:")
        for name, (_, help_text) in COMMANDS.items():
            print(f"  {name:18s} {help_text}")
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    name, rest = argv[0], argv[1:]
    try:
        module = importlib.import_module(COMMANDS[name][0])
    except ModuleNotFoundError as exc:
        if exc.name != COMMANDS[name][0]:
            raise
        # the student copy of the course (make student-copy) leaves the instructors' tools out
        print(f"python -m tgreedy_lib {name}: not part of this copy of the course; it is an instructor's "
              "command, in the course repository", file=sys.stderr)
        return 2
    return int(module.main(rest, prog=f"python -m tgreedy_lib {name}") or 0)


if __name__ == "__main__":
    sys.exit(main())

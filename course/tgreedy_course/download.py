"""``python -m tgreedy_course download {mnist,cifar10}``: the official files into the cache, checksum-verified."""
from __future__ import annotations

import argparse
import sys

from tgreedy_lib import datasets

from .subcommand import check_outputs, parse_and_run


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = "Fetch the official MNIST files or CIFAR-10 into the cache, checksum-verified (needs internet)."
    parser.add_argument("dataset", choices=("mnist", "cifar10"))
    parser.add_argument("--cache-dir", default=None,
                        help=f"default ${datasets.ENV_CACHE_DIR} or {datasets.DEFAULT_CACHE_DIR}")


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Fetch the files into the cache; exit status 1 on a refusal, 2 when the cache cannot be written."""
    prog = parser.prog
    status = check_outputs(prog, folders={"the cache folder (--cache-dir or $TGREEDY_CACHE_DIR)":
                                          datasets.resolve_cache_dir(args.cache_dir)})
    if status is not None:  # before downloading anything
        return status
    try:
        if args.dataset == "mnist":
            for stems in datasets.MNIST_FILES.values():
                for stem in stems:
                    path = datasets.find_mnist_file(stem, download=True, cache_dir=args.cache_dir)
                    print(f"{stem}: {path.name} ({path.stat().st_size / 2**20:.1f} MiB)")
        else:
            folder = datasets.find_cifar10_folder(download=True, cache_dir=args.cache_dir)
            print(f"CIFAR-10 python batches: {folder.name}/")
    except (OSError, ValueError) as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None, prog: str = "python -m tgreedy_course download") -> int:
    """Fetch the official MNIST files or CIFAR-10 into the cache, checksum-verified (needs internet)."""
    return parse_and_run(add_arguments, run, argv, prog)

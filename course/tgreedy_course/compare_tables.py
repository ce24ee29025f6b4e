"""The tables, files and command line of ``python -m tgreedy_course compare``."""
from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time
from typing import NamedTuple

import numpy as np

from tgreedy_lib.files import atomic_write_text

from .prose import replace_readme_block
from .subcommand import check_outputs
from tgreedy_lib.experiments.compare import (ALPHA, BASELINES, EXPERIMENTS, GOAL_SHARE, TOLERANCE, data_available,
                                             features_for, pooled_summary, run_compare_experiment)

RULE_LABELS = {
    "lodo": "leave one domain out (held-out squared loss)",
    "lodo_auroc": "leave one domain out (held-out AUROC)",
    "bonferroni": f"Bonferroni: $\\lvert T \\rvert$ above the $t_{{n-1}}$ quantile at ${ALPHA}/p$",
    "theorem1": f"Theorem 1 width $\\sqrt{{4 \\log(2p/{ALPHA})}}$",
    "chance": "behaving like chance (sign-flip null of $\\max_i \\lvert T_i \\rvert$)",
    "chance_gaussian": "behaving like chance (Gaussian null of $\\max_i \\lvert T_i \\rvert$)",
    "all_steps": "no stopping (all K steps)",
}
#: The nested row of the rule table: a method, unlike the rows of the single rules read in hindsight.
NESTED_LABEL = "rule chosen on the other splits (nested)"
#: The rules in a few words, for the nested row's list of the rules it chose.
RULE_SHORT = {"lodo": "leave one domain out (squared loss)", "lodo_auroc": "leave one domain out (AUROC)",
              "bonferroni": "Bonferroni", "theorem1": "Theorem 1 width", "chance": "chance (sign flips)",
              "chance_gaussian": "chance (Gaussian null)", "all_steps": "no stopping"}
#: How the experiments are named in the tables and on the page.
EXPERIMENT_TITLES = {"mnist-2-vs-other": "MNIST '2' vs other", "mnist-similarity": "MNIST similarity",
                     "cifar-similarity": "CIFAR-10 similarity"}


def experiment_title(name: str) -> str:
    """``simulated-n8`` -> ``simulated, 8 domains``; ``mnist-2-vs-other`` -> ``MNIST '2' vs other``."""
    if name.startswith("simulated-n"):
        return f"simulated, {name.split('-n')[1]} domains"
    return EXPERIMENT_TITLES.get(name, name)


class MethodNames(NamedTuple):
    prose: str  # in a sentence (notebook 09)
    row: str    # the method table's row: how its number of features (or penalty) is chosen


#: Every method of the method table, T-greedy and then :data:`BASELINES`.
METHOD_NAMES = {
    "tgreedy": MethodNames("T-greedy", "T-greedy, k by LODO"),
    "greedy": MethodNames("greedy", "greedy (stagewise), k by LODO"),
    "omp": MethodNames("OMP", "OMP on pooled moments, k by LODO"),
    "lasso": MethodNames("the lasso", "lasso (LARS), penalty by LODO"),
    "vrex": MethodNames("V-REx", "V-REx (variance penalty), beta by LODO"),
    "icp": MethodNames("the ICP-style filter", "ICP-style invariance filter, k by LODO"),
    "t_filter": MethodNames("the univariate T filter", "univariate T filter, k by LODO"),
}


def _cell(text: str) -> str:
    return text.replace("|", "\\|")  # |T| inside a table cell


def rule_table_markdown(experiments: dict) -> str:
    """The stopping rules on the T-greedy path: each rule's own row (read in hindsight), then the nested choice."""
    lines = ["| experiment | rule (each row read in hindsight) | splits | mean k | target AUROC | oracle AUROC (not a method) | "
             f"mean gap | max gap | share within {TOLERANCE} |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, e in experiments.items():
        s = e["summary"]
        rows = [(_cell(RULE_LABELS.get(rule, rule)), r) for rule, r in s["rules"].items()]
        if s.get("nested"):
            counts = sorted(s["nested"]["times_chosen"].items(), key=lambda item: (-item[1], item[0]))
            chosen = ", ".join(f"{RULE_SHORT.get(rule, rule)} on {n} of {s['nested']['n_splits']} splits"
                               for rule, n in counts)
            rows.append((f"**{NESTED_LABEL}**: {_cell(chosen)}", s["nested"]))
        for label, r in rows:
            lines.append(f"| {experiment_title(name)} | {label} | {r['n_splits']} | {r['mean_k']:.1f} | "
                         f"{r['mean_auroc']:.3f} | {s['oracle_mean_auroc']:.3f} | {r['mean_gap']:.3f} | "
                         f"{r['max_gap']:.3f} | {100 * r['share_within']:.0f} % |")
    return "\n".join(lines) + "\n"


def method_table_markdown(experiments: dict) -> str:
    """T-greedy (its ``lodo`` rule) and every baseline, each stopped by leave-one-domain-out CV."""
    lines = ["| experiment | method (same choice procedure for all) | target AUROC (mean ± standard deviation over splits) | features kept | "
             "best on its path (hindsight) | gap to T-greedy oracle |", "|---|---|---:|---:|---:|---:|"]
    for name, e in experiments.items():
        s = e["summary"]
        if "lodo" in s["rules"]:
            r = s["rules"]["lodo"]
            lines.append(f"| {experiment_title(name)} | {METHOD_NAMES['tgreedy'].row} | {r['mean_auroc']:.3f} ± {r['sd_auroc']:.3f} | "
                         f"{r['mean_k']:.1f} | {s['oracle_mean_auroc']:.3f} | {r['mean_gap']:.3f} |")
        for b, r in s["baselines"].items():
            label = METHOD_NAMES[b].row if b in METHOD_NAMES else b
            lines.append(f"| {experiment_title(name)} | {label} | {r['mean_auroc']:.3f} ± {r['sd_auroc']:.3f} | "
                         f"{r['mean_n_selected']:.1f} | {r['mean_best_auroc']:.3f} | "
                         f"{r['mean_gap_to_tgreedy_oracle']:.3f} |")
    return "\n".join(lines) + "\n"


#: How the tables are read (the head of ``compare.md`` and of the README's block).
READING = ("The oracle is the number of T-greedy steps with the best target AUROC on each split: it reads the "
           "target, so it is a yardstick, not a method. Each rule's own row is descriptive (picking the best row "
           "afterwards would choose the rule on the splits it is scored on); the nested row chooses, for each split, "
           "the rule that was within the tolerance of the oracle on the most other splits of the same experiment "
           "(ties: the smaller mean gap) and scores it on that split. In the method table "
           "every method, T-greedy included, is stopped by the same procedure: leave-one-domain-out cross-"
           "validation on the source domains' squared loss; no choice looks at a target domain.")


def pooled_sentence(pooled: dict) -> str:
    """The pooled verdict: the rule chosen on other splits (nested) against the same choice made in hindsight."""
    nested, hindsight = pooled.get("nested"), pooled["hindsight"]
    text = f"Over all {hindsight['n_splits']} splits, "
    if nested:
        text += (f"T-greedy with the rule chosen on the other splits of its experiment (nested) is within {TOLERANCE} "
                 f"AUROC of the oracle on {100 * nested['share_within']:.0f} % of them (mean gap "
                 f"{nested['mean_gap']:.3f}). Choosing each experiment's rule in hindsight, on the very splits it is "
                 "scored on, would report ")
    else:
        text += "each experiment's rule chosen in hindsight, on the very splits it is scored on, reaches "
    text += f"{100 * hindsight['share_within']:.0f} % (mean gap {hindsight['mean_gap']:.3f}; optimistic, descriptive only). "
    if max(hindsight["share_within"], nested["share_within"] if nested else 0) < GOAL_SHARE:
        return text + (f"{'Neither reaches' if nested else 'That falls short of'} {100 * GOAL_SHARE:.0f} % of the splits, "
                       "the share fixed before the experiments were run as the mark of a useful rule.")
    return text + (f"The mark of a useful rule, fixed before the experiments were run, was {100 * GOAL_SHARE:.0f} % "
                   "of the splits.")


#: Where the committed paper-scale results of ``compare`` live (beside ``reproduce``'s, see the README).
REFERENCE_DIR = pathlib.Path(__file__).resolve().parent / "reference_results" / "compare-paper"
README_BEGIN, README_END = "<!-- compare-tables:begin -->", "<!-- compare-tables:end -->"


def load_reference(folder=None) -> dict | None:
    """The committed paper-scale ``compare.json`` (every experiment, cached features), or None when absent."""
    path = pathlib.Path(REFERENCE_DIR if folder is None else folder) / "compare.json"
    return json.loads(path.read_text()) if path.is_file() else None


def readme_tables(payload: dict) -> str:
    """The README's block: how the results were made, how to read them, the pooled verdict and both tables."""
    pooled = payload.get("pooled") or pooled_summary(payload["experiments"])
    scale = "Quick settings" if any(e["quick"] for e in payload["experiments"].values()) else "Paper scale"
    maps = [f"{experiment_title(name)}: {e['data'].get('feature_map', '?')}" for name, e in payload["experiments"].items()
            if not name.startswith("simulated")]
    lines = [f"{scale}, seed {payload['seed']}, features: {', '.join(maps) or 'no real-image experiment'}; "
             f"{sum(len(e['splits']) for e in payload['experiments'].values())} splits. " + READING,
             "", pooled_sentence(pooled), "",
             rule_table_markdown(payload["experiments"]), method_table_markdown(payload["experiments"])]
    return "\n".join(lines).rstrip("\n")


def update_readme(readme, payload: dict) -> bool:
    """Rewrite the block between ``README_BEGIN`` and ``README_END`` of ``readme`` from ``payload``; True if it changed."""
    text = pathlib.Path(readme).read_text()
    new = replace_readme_block(text, readme_tables(payload), (README_BEGIN, README_END))
    if new != text:
        atomic_write_text(readme, new)
    return new != text


def _json_default(value):
    if isinstance(value, (np.integer, np.floating, np.ndarray)):
        return value.tolist()
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


def write_results(payload: dict, out_dir, compact: bool = False) -> list[pathlib.Path]:
    """Write ``compare.json`` and ``compare.md`` into ``out_dir`` (``compact``: as committed in :data:`REFERENCE_DIR`)."""
    (out_dir := pathlib.Path(out_dir)).mkdir(parents=True, exist_ok=True)
    json_path, md_path = out_dir / "compare.json", out_dir / "compare.md"
    layout = {"separators": (",", ":")} if compact else {"indent": 1}
    atomic_write_text(json_path, json.dumps(payload, **layout, default=_json_default) + "\n")
    experiments, pooled = payload["experiments"], payload.get("pooled", {})  # compare.md
    lines = ["# When to stop, and what else to try", "", "Generated by `python -m tgreedy_course compare`. " + READING, ""]
    lines += [f"- `{name}`: {len(e['splits'])} splits, K = {e['n_steps']} steps, data {json.dumps(e['data'])}, "
              f"{e['seconds']:.0f} s" for name, e in experiments.items()]
    lines += ["", pooled_sentence(pooled)] if pooled else []
    lines += ["", "## Stopping rules on the T-greedy path against the oracle", "", rule_table_markdown(experiments),
              "## Methods on the same splits, each stopped by leave-one-domain-out CV on its source domains", "",
              method_table_markdown(experiments)]
    atomic_write_text(md_path, "\n".join(lines))
    return [json_path, md_path]


def run_compare(experiments=None, *, quick: bool = False, feature_map: str | None = None, progress=None,
                seed: int = 0, baselines=BASELINES, out_dir=None) -> dict:
    """Run the comparison on ``experiments`` (default: all whose data are present), rewriting ``out_dir`` after each."""
    if experiments is None:
        experiments = [e for e in EXPERIMENTS if not e.startswith("cifar") or data_available("cifar10")]
    start, start_cpu = time.perf_counter(), time.process_time()
    loaded, out = {}, {}
    for name in experiments:
        dataset = None if name.startswith("simulated") else ("cifar10" if name.startswith("cifar") else "mnist")
        if dataset is not None and dataset not in loaded:
            loaded = {dataset: features_for(dataset, feature_map)}  # keep one data set in memory at a time
        out[name] = run_compare_experiment(name, quick=quick, features=loaded.get(dataset), progress=progress,
                                           seed=seed, baselines=baselines)
        payload = {"experiments": out, "pooled": pooled_summary(out), "tolerance": TOLERANCE,
                   "goal_share": GOAL_SHARE, "alpha": ALPHA, "seed": seed, "baselines": list(baselines),
                   "seconds": round(time.perf_counter() - start, 2),
                   "cpu_seconds": round(time.process_time() - start_cpu, 2)}
        if out_dir is not None:
            write_results(payload, out_dir)
    return payload


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = ("When to stop, and what else to try: stopping rules and baselines scored on the target "
                          "domains.")
    parser.add_argument("experiments", nargs="*",
                        help=f"any of {', '.join(EXPERIMENTS)}; default: all whose data are present "
                             "(CIFAR-10 needs TGREEDY_DATA_DIR)")
    parser.add_argument("--quick", action="store_true", help="fewer splits and steps (CI)")
    parser.add_argument("--feature-map", choices=("dbn", "conv", "random", "pixels"), default=None,
                        help="default: each data set's default learned features if cached (MNIST: the DBN, "
                             "CIFAR-10: the convolutional patch features 'conv'), else the random stand-in")
    parser.add_argument("--out", default="results", help="output folder (default: results)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--baselines", default=None,
                        help=f"comma-separated subset of {','.join(BASELINES)} (default: all)")


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if check_outputs(parser.prog, folders={"--out": args.out}) is not None:  # before any work
        return 2
    names = args.experiments or None
    baselines = BASELINES if args.baselines is None else tuple(args.baselines.split(","))
    for what, given, known in (("experiment", names or [], EXPERIMENTS), ("baseline", baselines, BASELINES)):
        if bad := [n for n in given if n not in known]:
            parser.error(f"unknown {what}(s) {bad}; choose from {known}")
    payload = run_compare(names, quick=args.quick, feature_map=args.feature_map, seed=args.seed,
                          baselines=baselines, out_dir=args.out,
                          progress=lambda line: print(line, file=sys.stderr, flush=True))
    for path in write_results(payload, args.out):
        print(f"wrote {path}")
    return 0


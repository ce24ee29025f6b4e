"""Notebook 09's findings: its "What we saw" sentences, rendered from the runs it shows.

The Discussion (section 5) of Foster, Kakade & Salakhutdinov, *Domain Adaptation: A Small Sample
Statistical Approach* (AISTATS 2012) leaves open when to stop T-greedy. Notebook 09 compares the
stopping rules of :mod:`tgreedy_lib.domain_adaptation.stopping` with the oracle on simulated domains
and, from the committed paper-scale run of :mod:`tgreedy_lib.collection.compare`, on MNIST and
CIFAR-10; :func:`findings` states in sentences what those results say, every number computed.
"""
from __future__ import annotations

import numpy as np

from ..domain_adaptation import stopping
from . import compare
from .prose import render

__all__ = ["findings"]

SIGNIFICANCE_RULES = ("bonferroni", "theorem1", "chance")


def _name(method: str) -> str:
    """A method's name in a sentence (:data:`tgreedy_lib.collection.compare.METHOD_NAMES`)."""
    return compare.METHOD_NAMES[method].prose


def _methods(summary: dict) -> dict[str, float]:
    # target AUROC at the LODO choice of every method, T-greedy's lodo rule included
    return {"tgreedy": summary["rules"]["lodo"]["mean_auroc"],
            **{name: r["mean_auroc"] for name, r in summary["baselines"].items()}}


def _simulated(sim: dict[int, dict]) -> list[str]:
    nested = {n: s["nested"]["share_within"] for n, s in sim.items()}
    hindsight = {n: s["hindsight"]["share_within"] for n, s in sim.items()}
    ns = sorted(sim)
    lines = [render(
        "* **" + ("No rule finds the oracle reliably." if max(nested.values()) < compare.GOAL_SHARE else
                  "A rule chosen fairly can find the oracle.") + "** On the simulated domains, choosing the rule on "
        "the other training sets puts T-greedy within the tolerance of the oracle on "
        + ", ".join(f"{{n{n}:%}}" for n in ns[:-1]) + f" and {{n{ns[-1]}:%}} of the training sets with "
        + ", ".join(f"{{d{n}}}" for n in ns[:-1]) + f" and {{d{ns[-1]}}} domains; picking each experiment's best rule "
        "in hindsight would have reported " + ", ".join(f"{{h{n}:%}}" for n in ns[:-1]) + f" and {{h{ns[-1]}:%}}. "
        "The oracle is the largest of many noisy target values, so it sits above what a rule can reach.",
        **{f"n{n}": nested[n] for n in ns}, **{f"h{n}": hindsight[n] for n in ns}, **{f"d{n}": n for n in ns})]
    mean_k = {rule: float(np.mean([s["rules"][rule]["mean_k"] for s in sim.values()])) for rule in stopping.RULES}
    significance_k = max(mean_k[rule] for rule in SIGNIFICANCE_RULES)
    lines.append(render(
        "* **The significance rules stop " + ("early" if significance_k < mean_k["lodo"] else "late") + ".** Averaged "
        "over the numbers of domains, Bonferroni keeps {bon:.1f} steps, Theorem 1 {thm:.1f} and the sign-flip chance "
        "rule {chance:.1f}, against {lodo:.1f} for leave-one-domain-out: they ask whether the next feature's average "
        "effect over domains is nonzero, and with few domains that takes a large $|T|$.",
        bon=mean_k["bonferroni"], thm=mean_k["theorem1"], chance=mean_k["chance"], lodo=mean_k["lodo"]))
    per_method = {name: float(np.mean([_methods(s)[name] for s in sim.values()])) for name in _methods(sim[ns[0]])}
    rival = max((m for m in per_method if m != "tgreedy"), key=per_method.get)
    leader = max(per_method, key=per_method.get)
    lines.append(render(
        "* **Stopped the same way, " + ("T-greedy leads" if leader == "tgreedy" else
                                       f"{_name(rival)} leads, not T-greedy,") + " on the simulated domains:** "
        "the mean target AUROC at the LODO choice over these numbers of domains is {tg:.3f} for T-greedy, {best:.3f} "
        f"for {_name(rival)} and {{greedy:.3f}} for greedy.",
        tg=per_method["tgreedy"], best=per_method[rival], greedy=per_method["greedy"]))
    return lines


def _paper_scale(reference: dict, real: list[str]) -> list[str]:
    experiments = reference["experiments"]
    nested, hindsight = reference["pooled"]["nested"], reference["pooled"]["hindsight"]
    cost = hindsight["share_within"] - nested["share_within"]
    agree = np.mean([a == b for e in experiments.values()
                     for a, b in zip(e["summary"]["nested"]["chosen_rules"], e["summary"]["hindsight"]["chosen_rules"])])
    n_sim = len(next(e for name, e in experiments.items() if name.startswith("simulated"))["splits"])
    lines = [render(
        "* **At paper scale** ({n_sim} training sets per simulated experiment, one split per held-out class on the "
        "images) the rule chosen on the other splits is within the tolerance of the oracle on {nested:%} of all {n} "
        "splits, the rules chosen in hindsight on {hind:%}. With this many splits the fair choice is the hindsight rule "
        "on {agree:%} of the splits (the appendix lists them), so " + (
            "choosing fairly costs little here" if cost < 0.05 else "choosing fairly still costs {cost:%} of the splits")
        + ". Neither comes near the bar of {bar:%} of splits set before the runs.",
        n_sim=n_sim, nested=nested["share_within"], n=nested["n_splits"], hind=hindsight["share_within"],
        agree=agree, cost=cost, bar=compare.GOAL_SHARE)]
    for name in real:
        s = experiments[name]["summary"]
        m = _methods(s)
        winner = max(m, key=m.get)
        lines.append(render(
            f"* **{name}**: stopped by LODO, T-greedy reaches a target AUROC of {{tg:.3f}} with {{k:.1f}} features on "
            "average; " + ("no other method does better." if winner == "tgreedy" else
                           f"{_name(winner)} does best, with {{win:.3f}} and {{k_win}} features.")
            + f" Chosen on the other splits, T-greedy's rule is mostly "
            f"{max(s['nested']['times_chosen'], key=s['nested']['times_chosen'].get)} (target AUROC {{nested_auc:.3f}}, "
            "{nested_k:.1f} steps); the three significance rules keep {sig:.1f} steps on average.",
            tg=m["tgreedy"], k=s["rules"]["lodo"]["mean_k"], win=m[winner],
            nested_auc=s["nested"]["mean_auroc"], nested_k=s["nested"]["mean_k"],
            k_win=s["baselines"].get(winner, {}).get("mean_n_selected", s["rules"]["lodo"]["mean_k"]),
            sig=np.mean([s["rules"][r]["mean_k"] for r in SIGNIFICANCE_RULES])))
    return lines


def findings(simulated: dict[int, dict], reference: dict, real: list[str]) -> list[str]:
    """Notebook 09's "What we saw": what the stopping rules and the other methods did, in sentences.

    Parameters
    ----------
    simulated : dict of int to dict
        For each number of domains, the ``"summary"`` of :func:`~tgreedy_lib.collection.compare.run_compare_experiment`
        on simulated training sets (notebook 09, section 2).
    reference : dict
        The committed paper-scale run, :func:`~tgreedy_lib.collection.compare.load_reference`.
    real : list of str
        The image experiments of ``reference`` to describe, in order.

    Returns
    -------
    list of str
        Markdown bullet points, every number rendered from the results.

    See Also
    --------
    tgreedy_lib.collection.compare.choose_rule_on_other_splits : The fair choice of a rule.
    tgreedy_lib.collection.prose.render : How the numbers are written.

    References
    ----------
    .. [1] Foster, Kakade & Salakhutdinov (2012; the module docstring), section 5.

    Examples
    --------
    >>> from tgreedy_lib.collection.when_to_stop import findings
    >>> from tgreedy_lib.collection import compare
    >>> reference = compare.load_reference()
    >>> sim = {n: reference["experiments"][f"simulated-n{n}"]["summary"] for n in (4, 8, 16)
    ...        if f"simulated-n{n}" in reference["experiments"]}
    >>> lines = findings(sim, reference, [])
    >>> lines[0].startswith("* **")
    True
    """
    return _simulated(simulated) + _paper_scale(reference, real)

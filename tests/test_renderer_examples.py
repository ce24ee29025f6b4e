"""What each renderer of the course writes, byte for byte, run as doctests.

The modules keep Examples only where they teach; these pin down the text of the formatters and sentence builders."""
import doctest

import pytest

from tgreedy_course import claims, prose, seeds, summary, when_to_stop


def _namespace():
    ns = {}
    for module in (claims, prose, seeds, summary, when_to_stop):
        ns.update({k: v for k, v in vars(module).items() if not k.startswith('__')})
    return ns


EXAMPLES = {
    'prose.module': r'''
>>> fmt(0.17968750000000006)
'0.180'
>>> fmt(-0.0001, digits=2)
'0.00'
>>> fmt(114503)
'114,503'
>>> fmt(0.25, percent=True)
'25%'
>>> markdown_table(["a", "b|c"], [[1, -0.0001]], digits=3)
'| a | b\\|c |\n|---|---|\n| 1 | 0.000 |'
>>> plural(1.0, "feature"), plural(39.94, "feature"), plural(20, "seed")
('1 feature', '39.9 features', '20 seeds')
>>> percent(0.32777, n=180)
'33%'
''',
    'prose.fmt': r'''
>>> from tgreedy_course.prose import fmt
>>> fmt(3.14159, digits=2), fmt(12345.678), fmt(0.000012345)
('3.14', '12,346', '1.23e-05')
>>> fmt(0.25, percent=True), fmt(-0.0001, digits=2), fmt(True)
('25%', '0.00', 'True')
''',
    'prose.markdown_table': r'''
>>> from tgreedy_course.prose import markdown_table
>>> print(markdown_table(["method", "AUROC"], [["T-greedy", 0.91234], ["greedy", 0.8]]))
| method | AUROC |
|---|---|
| T-greedy | 0.912 |
| greedy | 0.800 |
''',
    'prose.show_markdown': r'''
>>> from tgreedy_course.prose import show_markdown
>>> show_markdown("**T-greedy** keeps 3 features.")
<IPython.core.display.Markdown object>
''',
    'prose.say': r'''
>>> from tgreedy_course.prose import say
>>> say("Coverage falls below {target:%} from {first} features on.", target=0.95, first=61)
<IPython.core.display.Markdown object>
''',
    'prose.render': r'''
>>> from tgreedy_course.prose import render
>>> render("Coverage falls below {target:%} from {first} features on.", target=0.95, first=61)
'Coverage falls below 95% from 61 features on.'
''',
    'prose.counts_as_written': r'''
>>> counts_as_written("with 1.0 features; peaks after 32.0 features; over 1 seed(s) and 20 seed(s)")
'with 1 feature; peaks after 32 features; over 1 seed and 20 seeds'
>>> counts_as_written("AUROC 1.0 at 3 classes; 2.5 features")
'AUROC 1.0 at 3 classes; 2.5 features'
''',
    'prose.show_table': r'''
>>> from tgreedy_course.prose import show_table
>>> show_table(["n", "width"], [[8, 5.3249], [9, 5.1]], digits=2, note="computed")
<IPython.core.display.Markdown object>
''',
    'prose.plural': r'''
>>> from tgreedy_course.prose import plural
>>> plural(1.0, "feature"), plural(0, "step"), plural(7.25, "step"), plural(1, "analysis", plural_form="analyses")
('1 feature', '0 steps', '7.2 steps', '1 analysis')
''',
    'prose.percent': r'''
>>> from tgreedy_course.prose import percent
>>> percent(0.3277777, n=180), percent(0.3277777), percent(0.3277777, n=1_000_000)
('33%', '33%', '32.8%')
''',
    'prose.numbers_in': r'''
>>> from tgreedy_course.prose import numbers_in
>>> numbers_in("n = 8 domains, 1,000 samples, delta 1e-12 and -0.5")
[('8', 8.0), ('1,000', 1000.0), ('1e-12', 1e-12), ('-0.5', -0.5)]
''',
    'seeds.wilson_interval': r'''
>>> low, high = wilson_interval(14, 20)
>>> round(low, 3), round(high, 3)
(0.481, 0.855)
>>> wilson_interval(0, 5)[0]
0.0
''',
    'seeds.average_verdict': r'''
>>> rule = Rule(cond("share", ">=", 0.75), cond("share", ">=", 0.5))
>>> rows = [{"values": {"share": s}} for s in (0.9, 0.8, 0.85, 0.95, 0.7)]
>>> average_verdict(rule, rows)["verdict"]
'reproduced'
>>> rows = [{"values": {"share": s}} for s in (0.9, 0.4, 0.8, 0.5, 0.7)]
>>> average_verdict(rule, rows)["verdict"]
'unsettled'
''',
    'seeds.one_run_rate': r'''
>>> rate = one_run_rate(["reproduced"] * 14 + ["partly"] * 6)
>>> rate["reproduced"], rate["runs"], [round(x, 2) for x in rate["wilson95"]]
(14, 20, [0.48, 0.85])
>>> one_run_text(rate)
'one run: reproduced in 14 of 20 runs (48-85 %)'
''',
    'seeds.average_text': r'''
>>> average_text({"replicates": 2000, "shares": {"partly": 0.3, "reproduced": 0.7}})
'on average: reproduced in 70 % of 2,000 bootstrap replicates, partly in 30 %'
''',
    'summary.verdict_matrix_markdown': r'''
>>> rows = [{"id": "a", "verdict": "partly", "seeds": {"verdicts": ["partly"] * 20}}]
>>> print(verdict_matrix_markdown({"x": rows}).splitlines()[-1])
| a | partly (single runs: partly in all 20) |
''',
    'summary.single_runs_text': r'''
>>> single_runs_text(one_run_rate(["partly"] * 20))
'partly in all 20'
>>> single_runs_text(one_run_rate(["reproduced"] * 17 + ["partly"] * 2 + ["not reproduced"]))
'reproduced in 17, partly in 2, not reproduced in 1 of 20'
>>> single_runs_text(one_run_rate(["not reproduced"])), single_runs_text(None)
('not reproduced in its one run', 'not run')
''',
    'summary.claim_answers': r'''
>>> claim = {"verdict": "unsettled", "seeds": {
...     "verdicts": ["reproduced"] * 14 + ["partly"] * 6,
...     "average": {"verdict": "unsettled", "point_verdict": "reproduced", "replicates": 2000,
...                 "shares": {"reproduced": 0.62, "partly": 0.38}}}}
>>> claim_answers(claim)
('unsettled (reproduced in 62 %, partly in 38 % of the replicates)', 'reproduced in 14 of 20 runs (48-85 %), partly in 6')
>>> claim_answers({"verdict": "partly"})
('partly (one run)', 'partly')
''',
    'claims.verdict_counts': r'''
>>> verdict_counts([{"verdict": "unsettled"}, {"verdict": "reproduced"}, {"verdict": "unsettled"}])
{'reproduced': 1, 'unsettled': 2}
''',
    'summary.counts_text': r'''
>>> counts_text({"n/a": 17, "unsettled": 1, "reproduced": 2})
'2 reproduced, 1 unsettled, 17 n/a'
''',
    'summary.load_verify_records': r'''
>>> import json, pathlib, tempfile
>>> from tgreedy_course.summary import load_verify_records
>>> record = {"id": "domains.theorem1", "claim": "Theorem 1", "holds_as_printed": True,
...           "worst_case": {"parameters": {"n": 8, "p": 30}, "observed": 0.031, "bound": 0.05, "ratio": 0.62}}
>>> with tempfile.TemporaryDirectory() as folder:
...     path = pathlib.Path(folder) / "verify.json"
...     _ = path.write_text(json.dumps({"checks": [record]}))
...     records = load_verify_records(path)
>>> list(records), records["domains.theorem1"]["holds_as_printed"]
(['domains.theorem1'], True)
''',
    'summary.find_claims': r'''
>>> from tgreedy_course.summary import find_claims
>>> claims, source = find_claims()
>>> source
'the committed reference results (...claims.json)'
>>> {"id", "section", "claim", "verdict"} <= set(claims[0])
True
''',
    'summary.theorem_rows': r'''
>>> from tgreedy_course.summary import theorem_rows
>>> record = {"id": "domains.theorem1", "claim": "Theorem 1", "holds_as_printed": True,
...           "worst_case": {"parameters": {"n": 8, "p": 30}, "observed": 0.031, "bound": 0.05, "ratio": 0.62}}
>>> rows = theorem_rows({"domains.theorem1": record})
>>> rows[0][1:3]                                          # no record for Theorem 2
['Theorem 2, section 3.1; appendix', 'not checked']
>>> rows[1][1:]
['Theorem 1, section 3.1; appendix', "holds, but vacuous at the paper's n = 8, 9 (at δ = 0.05 its size condition admits 0.068 features at n = 8, 0.077 at n = 9)", 'largest observed / bound = 0.62', '04_t_statistic_bounds']
''',
    'summary.claim_data': r'''
>>> from tgreedy_course.summary import claim_data
>>> claim_data("mnist_sim.t_higher"), claim_data("cifar_sim.t_higher")
('MNIST, similarity', 'CIFAR-10, similarity')
>>> claim_data("disc.variability"), claim_data("no.such")
('all three section-4 experiments', '')
''',
    'summary.verdict_headline': r'''
>>> from tgreedy_course.summary import verdict_headline
>>> verdict_headline([{"verdict": "reproduced"}, {"verdict": "partly"}, {"verdict": "reproduced"}])
'Of 3 experimental claims, 2 are reproduced, 1 partly reproduced, 0 not reproduced and 0 unsettled.'
>>> seeded = {"verdicts": ["reproduced", "partly", "reproduced"], "average": {"replicates": 2000}}
>>> print(verdict_headline([{"verdict": "reproduced", "seeds": seeded}, {"verdict": "unsettled", "seeds": seeded}]))
Of 2 experimental claims, on average over 3 seeds 1 is reproduced, 0 partly reproduced, 0 not reproduced and 1 unsettled (no verdict in 95 % of the bootstrap replicates over seeds); in single runs, 0 claims are reproduced by every run, 2 by some runs, 0 by none.
''',
    'summary.verdict_method_markdown': r'''
>>> from tgreedy_course.summary import verdict_method_markdown
>>> record = {"claims": {"verdict_method": "Each claim gets two answers.", "convergence": {
...     "5": {"counts": {"reproduced": 2, "unsettled": 1}, "unsettled": ["a"]},
...     "10": {"counts": {"reproduced": 3}, "unsettled": []}}}}
>>> print(verdict_method_markdown(record))
Each claim gets two answers.
<BLANKLINE>
**Unsettled claims as seeds are added** (the verdicts recomputed from the first seeds only): 1 at 5 seeds, 0 at 10 seeds.
<BLANKLINE>
| seeds | reproduced | partly | not reproduced | unsettled | unsettled claims |
| --- | --- | --- | --- | --- | --- |
| 5 | 2 | 0 | 0 | 1 | a |
| 10 | 3 | 0 | 0 | 0 | - |
<BLANKLINE>
>>> verdict_method_markdown({"claims": {}})
''
''',
    'summary.claim_rows': r'''
>>> from tgreedy_course.summary import claim_rows
>>> claims = [{"id": "fig1.degrades", "section": "4.1", "figure": 1, "claim": "T-greedy beats greedy",
...            "verdict": "holds"}]
>>> claim_rows(claims)
[['section 4.1, Figure 1', "MNIST, '2' against each other digit", '"T-greedy beats greedy"', 'holds', '07_mnist_2_vs_other']]
>>> seeded = {**claims[0], "verdict": "partly", "seeds": {"verdicts": ["partly"] * 4 + ["reproduced"]}}
>>> claim_rows([seeded])[0][3]
'on average: partly; single runs: 1 reproduced, 4 partly'
''',
    'summary.verify_table': r'''
>>> from tgreedy_course.summary import verify_table
>>> record = {"id": "domains.theorem1", "claim": "Theorem 1", "holds_as_printed": True,
...           "worst_case": {"parameters": {"n": 8, "p": 30}, "observed": 0.031, "bound": 0.05, "ratio": 0.62}}
>>> print(verify_table([record]))
| check | holds as printed | worst case found | observed against bound |
|---|---|---|---|
| domains.theorem1 | yes | n = 8, p = 30 | 0.031 against 0.05 |
''',
    'summary.audit_appendix_markdown': r'''
>>> text = audit_appendix_markdown()
>>> "reproduced in 0 of" in text, "convolutional patch features" in text
(False, True)
''',
    'summary.seed_story': r'''
>>> text = seed_story()
>>> "`" in text, "of the paper's" in text
(False, True)
''',
    'summary.verdicts_by_data': r'''
>>> groups = verdicts_by_data([{"id": "mnist_sim.t_higher", "verdict": "partly"}])
>>> {k: {v: len(c) for v, c in g.items()} for k, g in groups.items()}
{'MNIST, similarity': {'partly': 1}}
''',
    'summary.what_holds_story': r'''
>>> print(what_holds_story([{"id": "mnist_sim.t_higher", "verdict": "not reproduced",
...                          "paper": "|T| of T-greedy's picks above greedy's"}]))
* **MNIST, similarity** (section 4.2, [notebook 08](08_similarity_learning.ipynb)): 1 claim, not reproduced: |T| of T-greedy's picks above greedy's.
''',
    'summary.tex_math': r'''
>>> print(tex_math("w.p. >= 1-delta, Pr > e^(-t/2)"))
with probability $\ge 1-\delta$, Pr > $e^{-t/2}$
>>> tex_math("Cauchy n=1, Pareto (index 1/4) n=1, Pareto (index 1/4) n=2, Pareto (index 1/4) n=5.")
'Cauchy n=1, Pareto (index 1/4) at n = 1, 2, 5.'
''',
    'summary.corrected_statements': r'''
>>> print(corrected_statements({"categorical.lemma11": {"corrected_claim": "no factor 1/e"}}))
* **Lemma 11** (Sabato & Shalev-Shwartz (2008)): $\lvert f(Z) - \mathbb{E} f \rvert \le \sqrt{\frac{2 \ln(1/\delta)}{k}}$ with probability $\ge 1 - \delta$: no factor $1/e$. <details><summary>why, and the checks</summary>no factor 1/e</details>
''',
    'summary.central_findings': r'''
>>> claims = [{"id": i, "verdict": "not reproduced"} for i in ("fig2.target_better", "fig2.t_higher",
...           "mnist_sim.overfits_less", "cifar_sim.overfits_less")]
>>> central_findings(claims).startswith("The comparison at the heart of section 4.1")
True
''',
    'seeds.convergence': r'''
>>> convergence([{}] * 3, sizes=(5,))
{}
''',
    'seeds.convergence_markdown': r'''
>>> print(convergence_markdown({"5": {"counts": {"reproduced": 2, "unsettled": 1}, "unsettled": ["a"]}}))
| seeds | reproduced | partly | not reproduced | unsettled | unsettled claims |
| --- | --- | --- | --- | --- | --- |
| 5 | 2 | 0 | 0 | 1 | a |
<BLANKLINE>
''',
    'seeds.primary_runs': r'''
>>> runs = {"dbn": [{"mnist-similarity": "m-dbn", "cifar-similarity": "c-dbn"}],
...         "conv": [{"cifar-similarity": "c-conv"}], "pixels": [{"mnist-similarity": "m-pix"}]}
>>> primary_runs(runs)
('learned', [{'mnist-similarity': 'm-dbn', 'cifar-similarity': 'c-conv'}])
>>> primary_runs({"pixels": runs["pixels"], "dbn": runs["dbn"]})[0]
'pixels'
''',
    'seeds.seed_counts_text': r'''
>>> seed_counts_text({"dbn": 20, "conv": 20, "pixels": 5, "random": 5})
'Seeds per feature map: dbn and conv at 20 seeds, pixels and random at 5 seeds.'
>>> seed_counts_text({"dbn": 5, "pixels": 5})
'Seeds per feature map: every map at 5 seeds.'
''',
    'seeds.pair_signal': r'''
>>> pair_signal({"all_features_reference": {"source_auroc": [0.6, 0.7], "target_auroc": [0.5, 0.5]}})
0.65
>>> pair_signal(None) is None
True
''',
    'summary.one_run_summary': r'''
>>> rows = [{"verdict": "reproduced", "seeds": {"verdicts": ["reproduced"] * 3}},
...         {"verdict": "not reproduced", "seeds": {"verdicts": ["partly", "not reproduced", "reproduced"]}},
...         {"verdict": "partly", "seeds": {"verdicts": ["partly"] * 3}}]
>>> one_run_summary(rows)
'1 claim is reproduced by every run, 1 by some runs, 1 by none'
''',
    'seeds.replace_readme_block': r'''
>>> text = "a\n<!-- reference-verdicts:begin -->\nold\n<!-- reference-verdicts:end -->\nb\n"
>>> print(replace_readme_block(text, "new"))
a
<!-- reference-verdicts:begin -->
new
<!-- reference-verdicts:end -->
b
<BLANKLINE>
''',
    'when_to_stop.findings_from_reference': r'''
>>> from tgreedy_course import compare_tables as compare
>>> text = findings_from_reference(compare.load_reference())
>>> "1.0 features" in text, "(s)" in text, text.startswith("* **")
(False, False, True)
''',
    'when_to_stop._runs_of': r'''
>>> _runs_of(["lodo", "lodo", "bonferroni", "lodo"])
'leave one domain out (squared loss) on 3 splits, Bonferroni on 1 split'
''',
    'when_to_stop.experiment_title': r'''
>>> experiment_title("simulated-n8"), experiment_title("cifar-similarity")
('simulated, 8 domains', 'CIFAR-10 similarity')
''',
    'when_to_stop.rule_table': r'''
>>> from tgreedy_course import compare_tables as compare
>>> table = rule_table(compare.load_reference())
>>> table.count("(descriptive)"), "chosen on the other splits" in table
(0, True)
''',
    'when_to_stop.method_table': r'''
>>> from tgreedy_course import compare_tables as compare
>>> table = method_table(compare.load_reference()).splitlines()
>>> table[0].startswith("*How to read the table.*"), table[4].split("|")[1].strip()
(True, 'T-greedy')
''',
}


@pytest.mark.parametrize('name', sorted(EXAMPLES))
def test_renderer_examples(name, run_example):
    run_example(EXAMPLES[name], name, _namespace())

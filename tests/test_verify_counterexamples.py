"""Every counterexample the book's table of checks quotes, recomputed exactly and independently of the library.

The table of the theorems' checks (``book/_generated/verify-table.md``) is generated from ``results/verify.json`` (the
full run of ``python -m tgreedy_course verify``); these tests check that the table is exactly
what that JSON renders to, and recompute the JSON's quoted numbers with exact rational
arithmetic (binomial probabilities as ``Fraction``) and 50-digit ``mpmath``, so a drift in
either the table or the checks fails here. Regenerate both with::

    python -m tgreedy_course verify --json results/verify.json --readme book/_generated/verify-table.md   # = make verify
"""
import json
import math
from fractions import Fraction
from itertools import product
from pathlib import Path

import mpmath
import pytest

from tgreedy_course import verify
from tgreedy_course.verify import command

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results" / "verify.json"
mpmath.mp.dps = 50


@pytest.fixture(scope="module")
def records():
    return {r["id"]: r for r in json.loads(RESULTS.read_text())["checks"]}


def close(a, b, rel=1e-9):
    return abs(float(a) - float(b)) <= rel * max(abs(float(a)), abs(float(b)))


def exact_number(text):
    """A JSON parameter written exactly: "349/600", "0.0001", "exp(-1/2)" or a number."""
    if text == "exp(-1/2)":
        return mpmath.exp(mpmath.mpf(-1) / 2)
    if isinstance(text, str):
        return Fraction(text)
    return Fraction(str(text)) if isinstance(text, float) else Fraction(text)


def mp(x):
    return mpmath.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else mpmath.mpf(x)


# ----------------------------------------------------------------------------- the generated table


def test_generated_table_is_the_rendered_json(records):
    readme = (ROOT / "book" / "_generated" / "verify-table.md").read_text()
    table = readme.split(command.README_BEGIN)[1].split(command.README_END)[0].strip()
    assert table == command.markdown_table(list(records.values()))


def test_every_worst_case_ratio_is_observed_over_bound(records):
    assert set(records) >= {"domains.theorem1", "domains.theorem2", "domains.corollary3", "categorical.lemma11",
                            "categorical.theorem1", "categorical.theorem2", "categorical.theorem3",
                            "categorical.theorem4"}
    for record in records.values():
        worst = record["worst_case"]
        assert close(worst["ratio"], worst["observed"] / worst["bound"], 1e-12), record["id"]
        assert record["holds_as_printed"] == (worst["ratio"] <= 1 + 1e-9), record["id"]
        for case in record["cases"]:
            if "ratio" in case:
                assert close(case["ratio"], case["observed"] / case["bound"], 1e-12), record["id"]


# ----------------------------------------------------------------------------- Lemma 11


def lemma11_exact(k: int, q: Fraction, delta):
    """Pr[|f(Z) - E f| > sqrt(2 ln(1/delta)/(e k))] for Z_i ~ Bernoulli(q): exact sums, 50-digit comparison."""
    if k <= 2000:
        pmf = [math.comb(k, i) * q**i * (1 - q) ** (k - i) for i in range(k + 1)]
        alpha = sum(pmf[i] for i in range(k + 1) if 2 * i > k)
        beta = sum(pmf[i] for i in range(k + 1) if 2 * i < k)
        gamma = sum(pmf[i] for i in range(k + 1) if 2 * i == k)
        assert alpha + beta + gamma == 1
        alpha, beta, gamma = mp(alpha), mp(beta), mp(gamma)
    else:  # large k: the terms below k/2 by the exact ratio of consecutive binomial terms, in 50 digits
        qm = mp(q)
        top = (k - 1) // 2
        log_term = (mpmath.loggamma(k + 1) - mpmath.loggamma(top + 1) - mpmath.loggamma(k - top + 1)
                    + top * mpmath.log(qm) + (k - top) * mpmath.log(1 - qm))
        term = mpmath.exp(log_term)
        beta, i = mpmath.mpf(0), top
        while i >= 0 and term > beta * mpmath.mpf(10) ** -45:
            beta += term
            term *= mpmath.mpf(i) / (k - i + 1) * (1 - qm) / qm
            i -= 1
        gamma = mpmath.mpf(0)
        if k % 2 == 0:
            gamma = mpmath.exp(mpmath.loggamma(k + 1) - 2 * mpmath.loggamma(k // 2 + 1)
                               + (k // 2) * (mpmath.log(qm) + mpmath.log(1 - qm)))
        alpha = 1 - beta - gamma
    # the three values of f and their probabilities, deviations from the mean computed directly
    values = [(1 - mp(q), alpha), (mp(q), beta), (mpmath.mpf(1) / 2, gamma)]
    mean = sum(v * p for v, p in values)
    bound = mpmath.sqrt(2 * mpmath.log(1 / mp(delta)) / (mpmath.e * k))
    return sum(p for v, p in values if abs(v - mean) > bound and p > 0)


def lemma11_cases(records):
    record = records["categorical.lemma11"]
    cases = [{"parameters": record["worst_case"]["parameters"], **{k: record["worst_case"][k] for k in
                                                                  ("observed", "bound", "ratio")}}]
    return cases + record["cases"]


def test_lemma11_quoted_cases_recomputed_exactly(records):
    cases = lemma11_cases(records)
    assert len(cases) >= 5
    for case in cases:
        p = case["parameters"]
        k, q, delta = int(p["k"]), exact_number(p["q"]), exact_number(p["delta"])
        probability = lemma11_exact(k, q, delta)
        assert close(probability, case["observed"], 1e-9), (p, probability)
        assert close(probability / mp(delta), case["ratio"], 1e-9), p
    by_parameters = {(c["parameters"]["k"], c["parameters"]["q"], c["parameters"]["delta"]): c for c in cases}
    # the README's old example holds at q = 0.582 exactly; its grid point 349/600 fails by 2.2e-9 only
    assert by_parameters[(511, "291/500", "0.0001")]["ratio"] < 1
    marginal = by_parameters[(511, "349/600", "0.0001")]
    assert 0 < marginal["observed"] - 1e-4 < 3e-9
    # clear counterexamples
    assert by_parameters[(200, "3/5", "0.0001")]["ratio"] > 16
    assert by_parameters[(1000, "11/20", "0.0001")]["ratio"] > 6
    assert max(c["ratio"] for c in cases if c["parameters"]["k"] == 1_000_000) > 10
    assert records["categorical.lemma11"]["worst_case"]["ratio"] == max(c["ratio"] for c in cases)


def test_lemma11_fast_code_matches_the_exact_sum():
    from tgreedy_course.verify.categorical_checks import lemma11_failure_probability

    for k, q, delta in ((53, Fraction(63, 100), "0.01"), (200, Fraction(3, 5), "0.0001"), (7, Fraction(1, 2), "0.5"),
                        (1, Fraction(1), "0.1"), (8, Fraction(5, 8), "exp(-1/2)")):
        d = exact_number(delta)
        fast, _ = lemma11_failure_probability(k, float(q), float(d))
        assert abs(float(fast) - float(lemma11_exact(k, q, d))) <= 1e-13


# ----------------------------------------------------------------------------- Theorem 1


def test_theorem1_size_condition_thresholds(records):
    cases = {c["parameters"]["n"]: c["value"] for c in records["domains.theorem1"]["cases"] if "value" in c}
    for n in (8, 9):
        threshold = 2 * mpmath.exp(-mpmath.mpf(n) / 8)
        assert close(cases[n], threshold, 1e-14)
        # |F| = 1 satisfies |F| <= (delta/2) e^(n/8) exactly from this delta on
        assert (threshold / 2) * mpmath.exp(mpmath.mpf(n) / 8) >= 1 - mpmath.mpf(10) ** -40
        assert ((threshold - mpmath.mpf(10) ** -9) / 2) * mpmath.exp(mpmath.mpf(n) / 8) < 1
    assert round(cases[8], 4) == 0.7358 and round(cases[9], 4) == 0.6493
    summary = records["domains.theorem1"]["summary"]["worst_case"]
    assert "0.7358 at n = 8" in summary and "0.6493 at n = 9" in summary


def t_failure_exact(law: str, n: int, c):
    """Pr[|T| > c] for one feature whose n effects are i.i.d. Gaussian or Rademacher, in 50 digits."""
    c = mpmath.mpf(c)
    if law == "Gaussian":  # |T| ~ Student t_{n-1}: Pr[|T| > c] = I_{(n-1)/(n-1+c^2)}((n-1)/2, 1/2)
        nu = n - 1
        return mpmath.betainc(mpmath.mpf(nu) / 2, mpmath.mpf(1) / 2, 0, nu / (nu + c * c), regularized=True)
    assert law == "Rademacher"
    total = mpmath.mpf(0)
    for heads in range(n + 1):
        r = mpmath.mpf((2 * heads - n) ** 2) / n
        t_abs = mpmath.inf if r == n else mpmath.sqrt((n - 1) * r / (n - r))
        if t_abs > c:
            total += mpmath.mpf(math.comb(n, heads)) / 2**n
    return total


def test_theorem1_worst_case_recomputed(records):
    worst = records["domains.theorem1"]["worst_case"]
    p = worst["parameters"]
    if "Monte Carlo" in p["law"]:
        pytest.skip("the worst case is a Monte Carlo estimate")
    n, delta, f = p["n"], mpmath.mpf(str(p["delta"])), p["n_features"]
    c = mpmath.sqrt(4 * mpmath.log(2 * f / delta))
    per_feature = t_failure_exact(p["law"], n, c)
    failure = 1 - (1 - per_feature) ** f
    assert close(failure, worst["observed"], 1e-9)
    assert worst["observed"] <= worst["bound"]


def test_theorem1_fails_outside_its_size_condition(records):
    (case,) = [c for c in records["domains.theorem1"]["cases"] if "value" not in c]
    p = case["parameters"]
    n, delta, f = p["n"], mpmath.mpf(str(p["delta"])), p["n_features"]
    assert f > (delta / 2) * mpmath.exp(mpmath.mpf(n) / 8)  # outside the condition

    def failure(features):
        c = mpmath.sqrt(4 * mpmath.log(2 * features / delta))
        return 1 - (1 - t_failure_exact("Rademacher", n, c)) ** features

    assert close(failure(f), case["observed"], 1e-9) and failure(f) > delta
    assert all(failure(g) <= delta for g in range(1, f))  # the fewest such features


# ----------------------------------------------------------------------------- Theorem 2


def dominant_ratio_values(n: int):
    """Every value of (sum Z)^2 / sum Z^2, exactly, for Z_1 = +-1, Z_i = +-1e-4/n, all 2^n sign patterns."""
    eps = Fraction(1, 10_000 * n)
    magnitudes = [Fraction(1)] + [eps] * (n - 1)
    squares = sum(m * m for m in magnitudes)
    return [sum(s * m for s, m in zip(signs, magnitudes)) ** 2 / squares for signs in product((1, -1), repeat=n)]


def test_theorem2_dominant_term_fails_at_every_n(records):
    t = Fraction(99, 100)
    bound = mpmath.exp(-mp(t) / 2)
    # small n: enumerate every sign pattern in rationals; the ratio exceeds 99/100 in all of them
    for n in range(1, 13):
        assert min(dominant_ratio_values(n)) > t
    # every n: |sum Z| >= 1 - (n-1) eps > 1 - 1e-4 and sum Z^2 < 1 + 1e-8, so the ratio > 99/100 surely
    assert (1 - Fraction(1, 10_000)) ** 2 / (1 + Fraction(1, 10**8)) > t
    assert 1 > bound
    cases = records["domains.theorem2"]["cases"]
    quoted_n = {c["parameters"]["n"] for c in cases}
    assert {1, 2, 10, 50, 1000, 1_000_000, 10**9} <= quoted_n
    for case in cases:
        n = case["parameters"]["n"]
        assert case["parameters"]["t"] == "99/100"
        eps = Fraction(1, 10_000 * n)
        smallest = (1 - (n - 1) * eps) ** 2 / (1 + (n - 1) * eps**2)  # all small terms oppose Z_1
        if n <= 12:
            assert smallest == min(dominant_ratio_values(n))
        assert smallest > t
        assert case["observed"] == 1.0
        assert close(case["bound"], bound, 1e-14) and close(case["ratio"], 1 / bound, 1e-14)
    summary = records["domains.theorem2"]["summary"]["worst_case"]
    assert "fails for every n" in summary and "1e-4/n" in summary


def test_theorem2_worst_case_recomputed(records):
    worst = records["domains.theorem2"]["worst_case"]
    p = worst["parameters"]
    assert p["n"] == 1  # (Z_1)^2 / Z_1^2 = 1 surely, for every law
    t = exact_number(p["t"])
    assert t < 1
    assert worst["observed"] == 1.0
    assert close(worst["bound"], mpmath.exp(-mp(t) / 2), 1e-14)
    assert close(worst["ratio"], mpmath.exp(mp(t) / 2), 1e-14)


# ----------------------------------------------------------------------------- Corollary 3


def test_corollary3_quoted_cases_recomputed(records):
    record = records["domains.corollary3"]
    cases = record["cases"] + [{"parameters": record["worst_case"]["parameters"], **record["worst_case"]}]
    deltas = set()
    for case in cases:
        p = case["parameters"]
        if p["q"] != 1 or "Monte Carlo" in p["law"]:
            continue
        delta, features = mpmath.mpf(str(p["delta"])), p["p"]
        # the fewest domains with q p^q <= (delta/2) e^(n/8)
        n = int(mpmath.ceil(8 * mpmath.log(2 * features / delta)))
        assert n == p["n"]
        c = mpmath.sqrt(8 * mpmath.log(features) + mpmath.log(2 / delta))  # the printed factor, q = 1
        failure = 1 - (1 - t_failure_exact(p["law"], n, c)) ** features
        assert close(failure, case["observed"], 1e-9), p
        deltas.add((features, p["delta"]))
    assert {(1, 0.0001), (1, 0.05)} <= deltas
    by_delta = {c["parameters"]["delta"]: c for c in record["cases"]}
    assert by_delta[0.0001]["ratio"] > 20 and by_delta[0.05]["ratio"] > 1


# ----------------------------------------------------------------------------- the JSON is the code's


def assert_same(a, b, where=""):
    """Equal records, numbers to 1e-9 relative (a different BLAS or scipy may move the last digits)."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), where
        for key in a:
            assert_same(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and isinstance(b, (int, float)):
        assert close(a, b, 1e-9) or a == b, (where, a, b)
    else:
        assert a == b, (where, a, b)


@pytest.mark.parametrize("check_id", ["categorical.lemma11", "domains.theorem2"])
def test_committed_json_is_what_the_full_check_computes(records, check_id):
    # the two exact checks whose full runs take seconds; the others are rerun by `make verify`
    (result,) = verify.run_checks([check_id], quick=False)
    assert_same(json.loads(json.dumps(result.to_json())), records[check_id], check_id)

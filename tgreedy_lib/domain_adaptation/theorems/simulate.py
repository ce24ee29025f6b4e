"""Simulated domains for the theory of Foster, Kakade & Salakhutdinov (AISTATS 2012).

Theorem 1 and Corollary 3 assume only that the per-domain covariances ``E[X_i Y | d]`` are
symmetric about their mean (section 3.1). Domain effects are drawn as ``sign * magnitude`` with an
independent fair sign, so every law of :data:`DISTRIBUTIONS` is symmetric by construction;
:class:`DomainProblem` mixes robust, spurious and null features (Figure 1's trap).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ...validation import check_whole_number

__all__ = ["DISTRIBUTIONS", "describe_distribution", "symmetric_magnitudes",
           "symmetric_noise", "domain_effects", "DomainProblem", "make_problem", "risk_on_domains"]

#: Symmetric laws available for domain effects, with a one-line description.
DISTRIBUTIONS: dict[str, str] = {
    "gaussian": "standard normal",
    "student_t": "Student t with `df` degrees of freedom (heavy tails; no variance when df <= 2)",
    "cauchy": "standard Cauchy = Student t with df = 1 (no mean-square, no mean)",
    "rademacher": "+1 or -1 with probability 1/2 each (equal magnitudes: the extremal case of Theorem 2)",
    "laplace": "Laplace (double exponential) with unit scale",
    "uniform": "uniform on [-1, 1]",
    "bimodal": "symmetric two-point Gaussian mixture: N(+1, 0.1^2) or N(-1, 0.1^2)",
    "contaminated": "N(0, 1) with probability 0.9, N(0, 30^2) with probability 0.1 (symmetric scale mixture)",
    "slash": "N(0, 1) / U(0, 1): Cauchy-like tails, no mean-square",
    "pareto": "symmetric Pareto with tail index 1/4: |Z| = U^-4 (no mean; one term dominates any sum)",
}

def _check_distribution(distribution: str, df: float) -> None:
    if distribution not in DISTRIBUTIONS:
        raise ValueError(f"unknown distribution {distribution!r}; choose one of {', '.join(DISTRIBUTIONS)}")
    if distribution == "student_t" and not (np.isfinite(df) and df > 0):
        raise ValueError(f"df must be a positive number for the Student t distribution, got {df!r}")


def describe_distribution(distribution: str, df: float = 3.0) -> str:
    """A short human-readable name, e.g. ``'Student t (df=3)'``."""
    _check_distribution(distribution, df)
    if distribution == "student_t":
        return f"Student t (df={df:g})"
    return {"gaussian": "Gaussian", "cauchy": "Cauchy", "rademacher": "Rademacher",
            "laplace": "Laplace", "uniform": "uniform", "bimodal": "bimodal mixture",
            "contaminated": "contaminated normal", "slash": "slash",
            "pareto": "Pareto (index 1/4)"}[distribution]


def symmetric_magnitudes(rng: np.random.Generator, distribution: str, size, df: float = 3.0) -> np.ndarray:
    """Draws of ``|Z|`` (shape ``size``) for a symmetric ``Z`` of a law of :data:`DISTRIBUTIONS`."""
    _check_distribution(distribution, df)
    if distribution == "gaussian":
        return np.abs(rng.standard_normal(size))
    if distribution == "student_t":
        return np.abs(rng.standard_t(df, size))
    if distribution == "cauchy":
        return np.abs(rng.standard_cauchy(size))
    if distribution == "rademacher":
        return np.ones(size)
    if distribution == "laplace":
        return rng.standard_exponential(size)
    if distribution == "uniform":
        return rng.random(size)
    if distribution == "bimodal":
        return np.abs(1.0 + 0.1 * rng.standard_normal(size))
    if distribution == "contaminated":
        scale = np.where(rng.random(size) < 0.1, 30.0, 1.0)
        return np.abs(rng.standard_normal(size)) * scale
    if distribution == "slash":
        return np.abs(rng.standard_normal(size)) / (1.0 - rng.random(size))  # 1 - U lies in (0, 1]
    return (1.0 - rng.random(size)) ** -4.0  # pareto


def symmetric_noise(rng: np.random.Generator, distribution: str, size, df: float = 3.0) -> np.ndarray:
    """Symmetric draws: an independent fair sign times :func:`symmetric_magnitudes` (section 3.1)."""
    magnitudes = symmetric_magnitudes(rng, distribution, size, df=df)
    signs = rng.integers(0, 2, size=magnitudes.shape) * 2 - 1
    return signs * magnitudes


def domain_effects(
    rng: np.random.Generator,
    mean,
    n_domains: int,
    distribution: str = "gaussian",
    scale=1.0,
    df: float = 3.0,
) -> np.ndarray:
    """Per-domain covariances ``E[X_i Y | d_k]`` (n_domains, p), symmetric about ``E[X_i Y] = mean[i]`` (the
    paper's ``w*_i``, section 3.1): ``mean + scale * Z`` with i.i.d. symmetric ``Z`` of the law
    ``distribution`` (``scale`` per feature, non-negative).
    """
    mean = np.atleast_1d(np.asarray(mean, dtype=float))
    if mean.ndim != 1:
        raise ValueError(f"mean must be one-dimensional (one entry per feature), got shape {mean.shape}")
    check_whole_number(n_domains, "n_domains", 1)
    scale = np.broadcast_to(np.asarray(scale, dtype=float), mean.shape)
    if np.any(scale < 0) or not np.all(np.isfinite(scale)):
        raise ValueError("scale must be finite and non-negative")
    noise = symmetric_noise(rng, distribution, (int(n_domains), mean.size), df=df)
    return mean + scale * noise


def risk_on_domains(coef, xx, xy, yy) -> np.ndarray:
    """Squared-error risk ``L_d(w) = E[Y^2|d] - 2 w.E[XY|d] + w' E[XX'|d] w`` (section 2) of one weight
    vector (p,) or a path (n_steps, p) on ``m`` domains of population moments ``xx, xy, yy`` (shapes
    (m, p, p), (m, p), (m,)); shape (m,) or (n_steps, m).
    """
    coef = np.asarray(coef, dtype=float)
    single = coef.ndim == 1
    w = np.atleast_2d(coef)
    xx, xy, yy = (np.asarray(a, dtype=float) for a in (xx, xy, yy))
    if xx.ndim != 3 or xy.ndim != 2 or yy.ndim != 1 or not (xx.shape[0] == xy.shape[0] == yy.shape[0]):
        raise ValueError("xx, xy, yy must have shapes (m, p, p), (m, p), (m,) for the same m")
    if w.shape[1] != xy.shape[1]:
        raise ValueError(f"coef has {w.shape[1]} features but the domains have {xy.shape[1]}")
    quad = np.einsum("sp,mpq,sq->sm", w, xx, w)
    risk = yy[None, :] - 2.0 * w @ xy.T + quad
    return risk[0] if single else risk


@dataclasses.dataclass(frozen=True, eq=False)
class DomainProblem:
    """A synthetic domain-adaptation problem with robust, spurious and null features.

    In every domain ``X ~ N(0, I_p)`` and ``Y = X . beta_d + noise_sd * eps`` with
    ``beta_d = effect + spread * xi_d`` (i.i.d. symmetric ``xi_d`` of law ``distribution``), so
    ``E[XY|d]`` is symmetric about ``effect`` (Theorem 1's assumption) and the regret of ``w`` on
    a new domain is ``||w - effect||^2`` (section 3.1). ``kind`` names each feature
    ``"robust"``, ``"spurious"`` or ``"null"``.
    """

    effect: np.ndarray
    spread: np.ndarray
    kind: np.ndarray
    distribution: str = "gaussian"
    df: float = 3.0
    noise_sd: float = 1.0

    @property
    def n_features(self) -> int:
        return int(self.effect.size)

    @property
    def robust(self) -> np.ndarray:
        """Indices of the robust features."""
        return np.flatnonzero(self.kind == "robust")

    @property
    def spurious(self) -> np.ndarray:
        """Indices of the spurious features."""
        return np.flatnonzero(self.kind == "spurious")

    def draw_coefficients(self, rng: np.random.Generator, n_domains: int) -> np.ndarray:
        """``beta_d`` for ``n_domains`` new random domains, shape (n_domains, p)."""
        return domain_effects(rng, self.effect, n_domains, self.distribution, self.spread, self.df)

    def draw_moments(self, rng: np.random.Generator, n_domains: int):
        """Population moments ``(xx, xy, yy)`` of ``n_domains`` random domains, shapes (n, p, p), (n, p), (n,)."""
        beta = self.draw_coefficients(rng, n_domains)
        xx = np.broadcast_to(np.eye(self.n_features), (beta.shape[0], self.n_features, self.n_features)).copy()
        yy = np.sum(beta**2, axis=1) + self.noise_sd**2
        return xx, beta, yy

    def draw_samples(self, rng: np.random.Generator, n_domains: int, n_samples: int, coefficients=None):
        """Per-domain samples ``[(X_k, y_k)]``; ``coefficients`` (n_domains, p) reuses given domains."""
        check_whole_number(n_samples, "n_samples", 2)
        beta = self.draw_coefficients(rng, n_domains) if coefficients is None else np.asarray(coefficients, float)
        domains = []
        for b in beta:
            X = rng.standard_normal((int(n_samples), self.n_features))
            y = X @ b + self.noise_sd * rng.standard_normal(int(n_samples))
            domains.append((X, y))
        return domains

    def regret(self, coef) -> np.ndarray:
        """Expected regret on a new random domain, ``||w - E[XY]||^2``, of a vector (p,) or a path (n_steps, p)."""
        if self.df <= 1 if self.distribution == "student_t" else self.distribution in ("cauchy", "slash", "pareto"):
            raise ValueError(f"the {describe_distribution(self.distribution, self.df)} law has no mean, "
                             "so the expected regret on new domains is undefined")
        coef = np.asarray(coef, dtype=float)
        return np.sum((coef - self.effect) ** 2, axis=-1)


def make_problem(
    n_robust: int = 5,
    n_spurious: int = 5,
    n_null: int = 40,
    robust_effect: float = 0.3,
    robust_spread: float = 0.1,
    spurious_effect: float = 0.3,
    spurious_spread: float = 1.5,
    null_spread: float = 0.1,
    distribution: str = "gaussian",
    df: float = 3.0,
    noise_sd: float = 1.0,
) -> DomainProblem:
    """Build a :class:`DomainProblem` with ``n_robust``, ``n_spurious`` and ``n_null`` features (in that order).

    The defaults make the trap of the paper's Figure 1: a spurious feature has the robust one's
    average effect but swings 15 times more between domains, so greedy likes it and T-greedy does not.
    """
    counts = {"n_robust": n_robust, "n_spurious": n_spurious, "n_null": n_null}
    for name, value in counts.items():
        check_whole_number(value, name, 0)
    if n_robust + n_spurious + n_null < 1:
        raise ValueError("the problem needs at least one feature")
    for name, value in (("robust_spread", robust_spread), ("spurious_spread", spurious_spread),
                        ("null_spread", null_spread), ("noise_sd", noise_sd)):
        if not (np.isfinite(value) and value >= 0):
            raise ValueError(f"{name} must be finite and non-negative, got {value!r}")
    _check_distribution(distribution, df)
    kind = np.array(["robust"] * int(n_robust) + ["spurious"] * int(n_spurious) + ["null"] * int(n_null))
    effect = np.select([kind == "robust", kind == "spurious"], [robust_effect, spurious_effect], 0.0)
    spread = np.select([kind == "robust", kind == "spurious"], [robust_spread, spurious_spread], null_spread)
    return DomainProblem(effect.astype(float), spread.astype(float), kind, distribution, float(df), float(noise_sd))

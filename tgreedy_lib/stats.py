"""Per-domain second moments: the statistics every selector consumes (paper, section 2).

Foster, Kakade & Salakhutdinov (2012), section 2: the training set is a handful of domains
d_1, ..., d_n sampled independently; within each domain we know (or estimate from many samples)

    E[X Y | d_k]      and      E[X X^T | d_k],

and, for the analysis, the pooled E[X X^T] from unlabeled data. :class:`DomainStatistics`
holds exactly these, plus E[Y^2 | d_k] (for the training loss) and the sample counts.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ._validation import as_float_array

__all__ = ["DomainStatistics"]

#: A feature whose pooled variance is below this fraction of its mean square counts as constant.
CONSTANT_RTOL = 1e-9


@dataclasses.dataclass(frozen=True, eq=False)
class DomainStatistics:
    """Second moments of n training domains (section 2 of the paper).

    Attributes
    ----------
    xx : ndarray of shape (n_domains, n_features, n_features)
        ``xx[k] = E[X X^T | d_k]`` (the sample mean of x x^T over domain k's samples).
    xy : ndarray of shape (n_domains, n_features)
        ``xy[k] = E[X Y | d_k]``.
    yy : ndarray of shape (n_domains,)
        ``yy[k] = E[Y^2 | d_k]``, needed for the value of the squared loss.
    counts : ndarray of shape (n_domains,) or None
        Samples per domain; ``None`` for population moments (:meth:`from_moments`).
    domain_labels : ndarray of shape (n_domains,)
        The label of each domain, in the (sorted) order of the arrays above.
    unlabeled_xx : ndarray of shape (n_features, n_features) or None
        Pooled ``E[X X^T]`` from unlabeled data (the paper's "known" joint covariance), if given.

    Build it with :meth:`from_samples` (pooled rows and a vector of domain labels),
    :meth:`from_domains` (a list of per-domain ``(X_k, y_k)``) or :meth:`from_moments`
    (population moments, e.g. in simulations). The sample constructors make one BLAS call
    per domain, ``Z_k^T Z_k`` with ``Z_k = [X_k, y_k, 1]``, in float64.
    """

    xx: np.ndarray
    xy: np.ndarray
    yy: np.ndarray
    counts: np.ndarray | None = None
    domain_labels: np.ndarray | None = None
    unlabeled_xx: np.ndarray | None = None

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_samples(cls, X, y, domains, *, unlabeled_X=None) -> "DomainStatistics":
        """Statistics from pooled samples and a vector of domain labels.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Real-valued targets (for classification, e.g. +1/-1).
        domains : array-like of shape (n_samples,)
            The domain of each row; any sortable labels. Domains are ordered by label,
            so the result does not depend on the order of the rows.
        unlabeled_X : array-like of shape (m, n_features), optional
            Unlabeled rows from which the pooled ``E[X X^T]`` is estimated.
        """
        X = as_float_array(X, "X", 2)
        y = as_float_array(y, "y", 1)
        domains = np.asarray(domains)
        if domains.ndim != 1:
            raise ValueError(f"domains must be a one-dimensional vector of labels, got shape {domains.shape}")
        if not (X.shape[0] == y.shape[0] == domains.shape[0]):
            raise ValueError(
                "X, y and domains disagree in length: "
                f"X has {X.shape[0]} rows, y has {y.shape[0]}, domains has {domains.shape[0]}"
            )
        labels, index = np.unique(domains, return_inverse=True)
        groups = [_rows_as_slice(np.flatnonzero(index == k)) for k in range(labels.size)]
        return cls._build([(X[rows], y[rows]) for rows in groups], labels, unlabeled_X)

    @classmethod
    def from_domains(cls, domains, *, labels=None, unlabeled_X=None) -> "DomainStatistics":
        """Statistics from a sequence of per-domain ``(X_k, y_k)`` pairs."""
        pairs = list(domains)
        data = []
        for k, pair in enumerate(pairs):
            try:
                Xk, yk = pair
            except (TypeError, ValueError):
                raise ValueError(f"domain {k} must be an (X, y) pair") from None
            Xk = as_float_array(Xk, f"X of domain {k}", 2)
            yk = as_float_array(yk, f"y of domain {k}", 1)
            if Xk.shape[0] != yk.shape[0]:
                raise ValueError(f"domain {k}: X has {Xk.shape[0]} rows but y has {yk.shape[0]} entries")
            data.append((Xk, yk))
        labels = np.arange(len(data)) if labels is None else np.asarray(labels)
        if labels.shape != (len(data),):
            raise ValueError(f"labels must name each of the {len(data)} domains, got shape {labels.shape}")
        return cls._build(data, labels, unlabeled_X)

    @classmethod
    def from_moments(cls, xx, xy, yy=None, *, counts=None, labels=None, unlabeled_xx=None) -> "DomainStatistics":
        """Statistics from given (e.g. population) moments ``E[XX^T|d_k]``, ``E[XY|d_k]``, ``E[Y^2|d_k]``.

        ``yy`` may be omitted; the reported training losses are then relative to an unknown
        constant (the selection itself never needs it).
        """
        xx = as_float_array(xx, "xx", 3)
        xy = as_float_array(xy, "xy", 2)
        n, p = xy.shape
        if xx.shape != (n, p, p):
            raise ValueError(f"xx must have shape (n_domains, n_features, n_features) = {(n, p, p)}, got {xx.shape}")
        yy = np.zeros(n) if yy is None else as_float_array(yy, "yy", 1)
        if yy.shape != (n,):
            raise ValueError(f"yy must have one entry per domain ({n}), got shape {yy.shape}")
        if counts is not None:
            counts = np.asarray(counts)
            if counts.shape != (n,) or np.any(counts < 1):
                raise ValueError(f"counts must be {n} positive sample counts, got {counts!r}")
        if unlabeled_xx is not None:
            unlabeled_xx = as_float_array(unlabeled_xx, "unlabeled_xx", 2)
            if unlabeled_xx.shape != (p, p):
                raise ValueError(f"unlabeled_xx must have shape {(p, p)}, got {unlabeled_xx.shape}")
        labels = np.arange(n) if labels is None else np.asarray(labels)
        stats = cls(xx=xx, xy=xy, yy=yy, counts=counts, domain_labels=labels, unlabeled_xx=unlabeled_xx)
        stats._check_domains()
        zero = np.flatnonzero(stats.second_moment("sample") <= 0)
        if zero.size:
            raise ValueError(f"feature {zero[0]} has E[X_i^2] = 0 in every domain; the update divides by it")
        return stats

    @classmethod
    def _build(cls, data, labels, unlabeled_X) -> "DomainStatistics":
        if len(data) < 2:
            raise ValueError(
                f"T-statistics need at least two domains, got {len(data)}: "
                "the spread across domains cannot be estimated from one"
            )
        p = data[0][0].shape[1]
        for k, (Xk, _) in enumerate(data):
            if Xk.shape[1] != p:
                raise ValueError(f"domain {labels[k]!r} has {Xk.shape[1]} features, domain {labels[0]!r} has {p}")
            if Xk.shape[0] == 0:
                raise ValueError(f"domain {labels[k]!r} is empty: every domain needs at least one sample")
        n = len(data)
        # One BLAS call per domain: Z^T Z with Z = [X, y, 1] gives sums of xx^T, xy, yy, x, y and the count.
        gram = np.empty((n, p + 2, p + 2))
        for k, (Xk, yk) in enumerate(data):
            Z = np.empty((Xk.shape[0], p + 2))
            Z[:, :p] = Xk
            Z[:, p] = yk
            Z[:, p + 1] = 1.0
            np.matmul(Z.T, Z, out=gram[k])
        counts = gram[:, p + 1, p + 1].copy()
        gram /= counts[:, None, None]
        _check_not_constant(gram, counts, p)
        unlabeled_xx = None
        if unlabeled_X is not None:
            U = as_float_array(unlabeled_X, "unlabeled_X", 2)
            if U.shape[1] != p:
                raise ValueError(f"unlabeled_X has {U.shape[1]} features, the labeled data have {p}")
            if U.shape[0] == 0:
                raise ValueError("unlabeled_X is empty")
            unlabeled_xx = (U.T @ U) / U.shape[0]
        stats = cls(
            xx=gram[:, :p, :p],
            xy=gram[:, :p, p],
            yy=gram[:, p, p],
            counts=counts.astype(np.int64),
            domain_labels=np.asarray(labels),
            unlabeled_xx=unlabeled_xx,
        )
        return stats

    def _check_domains(self) -> None:
        if self.n_domains < 2:
            raise ValueError(
                f"T-statistics need at least two domains, got {self.n_domains}: "
                "the spread across domains cannot be estimated from one"
            )

    # ------------------------------------------------------------------ properties
    @property
    def n_domains(self) -> int:
        """Number of training domains n."""
        return self.xy.shape[0]

    @property
    def n_features(self) -> int:
        """Number of features p."""
        return self.xy.shape[1]

    def subset(self, labels) -> "DomainStatistics":
        """The statistics of the domains whose labels are in ``labels`` (no recomputation).

        Useful for leave-one-domain-out experiments: build the statistics of every domain once,
        then take a subset for each split.
        """
        wanted = np.atleast_1d(np.asarray(labels))
        missing = [lab for lab in wanted.tolist() if lab not in self.domain_labels.tolist()]
        if missing:
            raise ValueError(f"unknown domain labels {missing}; known: {self.domain_labels.tolist()}")
        keep = np.flatnonzero(np.isin(self.domain_labels, wanted))
        if keep.size < 2:
            raise ValueError(f"T-statistics need at least two domains, the subset has {keep.size}")
        return DomainStatistics(
            xx=self.xx[keep],
            xy=self.xy[keep],
            yy=self.yy[keep],
            counts=None if self.counts is None else self.counts[keep],
            domain_labels=self.domain_labels[keep],
            unlabeled_xx=self.unlabeled_xx,
        )

    def second_moment(self, denominator: str = "sample") -> np.ndarray:
        """The update's denominator E[X_i^2] for every feature (section 3.3).

        ``"sample"``: the paper's estimate (1/n) sum_k E[X_i^2 | d_k] (biased, as the paper notes);
        ``"unlabeled"``: the diagonal of the pooled E[X X^T] from unlabeled data (the unbiased version).
        """
        if denominator == "sample":
            return np.einsum("kii->i", self.xx) / self.n_domains
        if denominator == "unlabeled":
            if self.unlabeled_xx is None:
                raise ValueError("denominator='unlabeled' needs unlabeled moments: pass unlabeled_X (or unlabeled_xx)")
            return np.diagonal(self.unlabeled_xx).copy()
        raise ValueError(f"denominator must be 'sample' or 'unlabeled', got {denominator!r}")

    def residual_covariances(self, coef) -> np.ndarray:
        """``E[X (Y - w.X) | d_k]`` for every domain k and feature (section 3.3), shape (n_domains, n_features)."""
        coef = np.asarray(coef, dtype=np.float64)
        return self.xy - self.xx @ coef

    def training_loss(self, coef) -> float:
        """Pooled training squared loss (1/n) sum_k E[(Y - w.X)^2 | d_k] (section 2, with the domains' average)."""
        coef = np.asarray(coef, dtype=np.float64)
        per_domain = self.yy - 2 * self.xy @ coef + np.einsum("i,kij,j->k", coef, self.xx, coef)
        return float(per_domain.mean())


def _rows_as_slice(rows: np.ndarray):
    """A slice when ``rows`` is a contiguous range (then ``X[rows]`` is a view, not a copy)."""
    if rows.size and rows[-1] - rows[0] + 1 == rows.size:
        return slice(int(rows[0]), int(rows[-1]) + 1)
    return rows


def _check_not_constant(gram: np.ndarray, counts: np.ndarray, p: int) -> None:
    """Raise ValueError naming the first feature that is constant over all samples of all domains."""
    weights = counts / counts.sum()
    mean = weights @ gram[:, :p, p + 1]  # pooled E[X_i]
    mean_square = weights @ np.einsum("kii->ki", gram[:, :p, :p])  # pooled E[X_i^2]
    variance = mean_square - mean**2
    constant = np.flatnonzero(variance <= CONSTANT_RTOL * np.maximum(mean_square, np.finfo(float).tiny))
    if constant.size:
        i = constant[0]
        more = f" (and {constant.size - 1} more)" if constant.size > 1 else ""
        raise ValueError(
            f"feature {i} is constant (value {mean[i]:.6g}) across all samples{more}; "
            "it carries no information and its T-statistic is 0/0. Remove constant features first, "
            "e.g. with sklearn.feature_selection.VarianceThreshold"
        )

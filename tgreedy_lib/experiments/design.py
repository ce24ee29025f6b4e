"""The experimental design of section 4 of Foster, Kakade & Salakhutdinov, "Domain Adaptation: A Small
Sample Statistical Approach" (AISTATS 2012), as one value every run records.

"we use 10,000 digits (1,000 per class) for training" (section 4); "each domain contained a balanced set
of 2000 labeled training examples. Our new target domain ... also contained a balanced set of 2000
examples" (4.1); "negative examples were randomly sampled from the remaining digits in the source
domain" (4.2). :data:`PAPER_DESIGN` is that design, the default; :data:`EARLIER_DESIGN` (all bundled
digits, every test image, negatives stratified by partner class) shows how much the design moves the
verdicts.
"""
from __future__ import annotations

import dataclasses

from .domains import NEGATIVE_SAMPLING


@dataclasses.dataclass(frozen=True)
class Design:
    """How the training images (``train_per_class``), the '2 vs other' test domains (``target_per_class``;
    ``None``: all) and the similarity pairs (``negatives``, pairs per domain) are drawn; ``seed`` seeds all.
    """

    train_per_class: int | None = 1000
    target_per_class: int | None = 1000
    negatives: str = "random"
    n_positive_pairs: int = 1000
    n_negative_pairs: int = 1000
    seed: int = 0

    def __post_init__(self):
        for name in ("train_per_class", "target_per_class", "n_positive_pairs", "n_negative_pairs"):
            value = getattr(self, name)
            if value is None and name.endswith("per_class"):
                continue
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive integer{' or None' * name.endswith('per_class')}, "
                                 f"got {value!r}")
        if self.negatives not in NEGATIVE_SAMPLING:
            raise ValueError(f"negatives must be one of {NEGATIVE_SAMPLING}, got {self.negatives!r}")
        if not isinstance(self.seed, int) or isinstance(self.seed, bool):
            raise ValueError(f"seed must be an integer, got {self.seed!r}")

    def replace(self, **changes) -> "Design":
        """A copy with some settings changed."""
        return dataclasses.replace(self, **changes)

    def as_json(self) -> dict:
        """The settings as a JSON-ready dict (the ``design`` block of every result)."""
        out = dataclasses.asdict(self)
        out["matches_paper"] = self.matches_paper
        return out

    @property
    def matches_paper(self) -> bool:
        """Whether the settings, the seed apart, are the paper's (the training images may still fall short)."""
        return self.replace(seed=PAPER_DESIGN.seed) == PAPER_DESIGN


#: The paper's design (the reproduction's default).
PAPER_DESIGN = Design()
#: The reproduction's earlier design: all bundled digits, unbalanced test domains, stratified negatives.
EARLIER_DESIGN = Design(train_per_class=None, target_per_class=None, negatives="stratified")

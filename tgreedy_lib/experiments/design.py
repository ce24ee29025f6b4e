"""The experimental design of section 4, as one value every run records.

Foster, Kakade & Salakhutdinov (AISTATS 2012), section 4: "In all experiments, we use 10,000
digits (1,000 per class) for training and 10,000 digits for testing"; section 4.1: "eight source
domains: {'2' vs. '0'},..., {'2' vs. '8'}, where each domain contained a balanced set of 2000
labeled training examples. Our new target domain (as the test set) {'2' vs. '9'} also contained a
balanced set of 2000 examples"; section 4.2: "Each domain contained 1000 positive and 1000
negative examples, where negative examples were randomly sampled from the remaining digits in the
source domain. Our target domain contained 1000 positive examples of newly observed images of '9'
and 1000 negative examples, randomly sampled from images of 0-to-8."

:data:`PAPER_DESIGN` is that design and the reproduction's default; :data:`EARLIER_DESIGN` is
what the reproduction ran before (all bundled training digits, 863-1,127 a class; every test image
of a target's two classes; negatives stratified by partner class), kept to show how much the design
moves the verdicts.
"""
from __future__ import annotations

import dataclasses

from .domains import NEGATIVE_SAMPLING


@dataclasses.dataclass(frozen=True)
class Design:
    """How the training images, the '2 vs other' test domains and the similarity pairs are drawn.

    Attributes
    ----------
    train_per_class : int or None
        Training images of each class, drawn at random without replacement from the official
        training set when its labels are available (MNIST: 60,000 images; CIFAR-10: 50,000).
        ``None``: every training image found (the bundled 10,000 MNIST digits).
    target_per_class : int or None
        '2 vs other' test domains (target and held-out sources): this many images of each of the
        two classes (fewer when the test set has fewer). ``None``: every test image of both.
    negatives : {"random", "stratified"}
        Negative similarity pairs: a partner image drawn uniformly from the other source classes'
        images (the paper) or the same number of pairs with each partner class.
    n_positive_pairs, n_negative_pairs : int
        Pairs per similarity domain (the paper: 1,000 and 1,000).
    seed : int
        Seeds the training subset, the balanced test domains and the pair draws.
    """

    train_per_class: int | None = 1000
    target_per_class: int | None = 1000
    negatives: str = "random"
    n_positive_pairs: int = 1000
    n_negative_pairs: int = 1000
    seed: int = 0

    def __post_init__(self):
        for name in ("train_per_class", "target_per_class"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
                raise ValueError(f"{name} must be a positive integer or None, got {value!r}")
        for name in ("n_positive_pairs", "n_negative_pairs"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
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
        """Whether the settings are the paper's (the training images may still fall short; see ``data``)."""
        return (self.train_per_class == 1000 and self.target_per_class == 1000 and self.negatives == "random"
                and self.n_positive_pairs == 1000 and self.n_negative_pairs == 1000)


#: The paper's design (the reproduction's default).
PAPER_DESIGN = Design()
#: The reproduction's earlier design: all bundled digits, unbalanced test domains, stratified negatives.
EARLIER_DESIGN = Design(train_per_class=None, target_per_class=None, negatives="stratified")

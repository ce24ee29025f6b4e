"""The learnt features of a training and a test set, with the map that made them (:class:`FeatureSet`).

Section 4 of Foster, Kakade & Salakhutdinov (AISTATS 2012) represents every image by 2,000
features learnt without labels. :func:`tgreedy_lib.features.load_features` returns them as a
:class:`FeatureSet`, and :mod:`tgreedy_lib.features.probe` measures them; the class lives here,
below both, so that the probe needs nothing of the builder.

References
----------
.. [1] D. Foster, S. Kakade and R. Salakhutdinov, "Domain Adaptation: A Small Sample
       Statistical Approach", AISTATS 2012.
.. [2] G. E. Hinton, S. Osindero and Y.-W. Teh, "A Fast Learning Algorithm for Deep Belief
       Nets", Neural Computation 18(7):1527-1554, 2006.
"""
from __future__ import annotations

import dataclasses
import pathlib

import numpy as np

from .dbn import DeepBeliefNetwork, Whitening, dbn_inputs
from .patches import PatchFeatureModel

__all__ = ["FeatureSet"]


@dataclasses.dataclass
class FeatureSet:
    """Unsupervised features (DBN or convolutional patches) of a training and a test set.

    Attributes
    ----------
    train_features, test_features : numpy.ndarray of float32, (n, 2000)
        Top-layer hidden probabilities (DBN) or quadrant-pooled unit responses (patches).
    train_labels, test_labels : numpy.ndarray of int64
    info : dict
        ``dataset``, ``official`` (whether the official test set was used), ``train_size``,
        ``test_size``, ``dbn_training_images`` (how many unlabeled images the DBN learned from),
        ``config`` (the :class:`FeatureConfig` as a dict), ``seconds`` (time it took
        to build the features when they were built), ``from_cache`` (whether this call reused
        them), ``cache_key``, ``source``, ``seconds_per_layer``, ``device``, ``created``;
        ``kind`` (``"dbn"`` or ``"patches"``); with ``probe=True`` (the default of
        :func:`load_features`) also ``probe_accuracy`` and ``probe`` (see :func:`feature_probe`).
        Patch features report ``seconds_per_stage`` and ``cpu_seconds`` instead of ``seconds_per_layer``.
    dbn : DeepBeliefNetwork or None
        The trained network (for training curves, filters and samples); ``None`` for patch features.
    whitening : Whitening or None
        The input whitening (CIFAR-10).
    train_images, test_images : numpy.ndarray of uint8
        The images behind the features (for raw-pixel baselines and pictures).

    Examples
    --------
    >>> from tgreedy_lib.features import load_features
    >>> feature_set = load_features("mnist")  # doctest: +SKIP
    >>> feature_set.train_features.shape  # doctest: +SKIP
    (10000, 2000)
    """

    train_features: np.ndarray
    train_labels: np.ndarray
    test_features: np.ndarray
    test_labels: np.ndarray
    info: dict
    dbn: DeepBeliefNetwork | None = None
    whitening: Whitening | None = None
    train_images: np.ndarray | None = None
    test_images: np.ndarray | None = None
    cache_path: pathlib.Path | None = dataclasses.field(default=None, repr=False)
    patch_model: PatchFeatureModel | None = None

    def transform(self, images) -> np.ndarray:
        """Features of other ``images`` (uint8, shaped as the training images) through the learnt map.

        The same map that made ``train_features`` and ``test_features``: the patch model, or the
        whitening (CIFAR-10) and the DBN.

        Raises
        ------
        ValueError
            If the set holds no learnt map (built without one).
        """
        if self.patch_model is not None:
            return self.patch_model.transform(images)
        if self.dbn is None:
            raise ValueError("this FeatureSet holds no learnt map (no DBN and no patch model) to transform images "
                             "with; load it with tgreedy_lib.features.load_features")
        inputs = dbn_inputs(np.asarray(images))
        if self.whitening is not None:
            inputs = self.whitening.transform(inputs)
        return self.dbn.transform(inputs)

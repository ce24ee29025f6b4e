"""The learnt features of a training and a test set, with the map that made them (:class:`FeatureSet`).

Section 4 of Foster, Kakade & Salakhutdinov (AISTATS 2012) represents every image by 2,000
features learnt without labels, by a deep belief network (Hinton, Osindero & Teh 2006) or, for
CIFAR-10, convolutional patch features.
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
        ``dataset``, ``kind``, ``official`` (the official test set was used), ``train_size``,
        ``test_size``, ``config``, ``seconds`` (to build them), ``from_cache``, ``cache_key``,
        ``source``, ``device``, ``created``; ``dbn_training_images`` and ``seconds_per_layer`` (DBN)
        or ``seconds_per_stage`` and ``cpu_seconds`` (patches); with a probe, ``probe_accuracy`` and
        ``probe`` (:func:`feature_probe`).
    dbn, whitening : DeepBeliefNetwork or None, Whitening or None
        The trained network and the input whitening (CIFAR-10 DBN); ``None`` for patch features.
    train_images, test_images : numpy.ndarray of uint8
        The images behind the features.
    patch_model : PatchFeatureModel or None
        The learnt patch features.
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
        """Features of other ``images`` (uint8, shaped as the training images) through the learnt map."""
        if self.patch_model is not None:
            return self.patch_model.transform(images)
        if self.dbn is None:
            raise ValueError("this FeatureSet holds no learnt map (no DBN and no patch model) to transform images "
                             "with; load it with tgreedy_lib.features.load_features")
        inputs = dbn_inputs(np.asarray(images))
        if self.whitening is not None:
            inputs = self.whitening.transform(inputs)
        return self.dbn.transform(inputs)

"""The learnt features of a training and a test set, with the map that made them (:class:`FeatureSet`)."""
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

    ``train_features``/``test_features`` are float32 (n, 2000), the labels int64; ``info`` holds
    ``dataset``, ``kind``, ``official``, the sizes, ``config``, ``seconds``, ``from_cache``,
    ``cache_key``, ``source``, ``device``, ``created`` and, with a probe, ``probe_accuracy``.
    ``dbn``/``whitening`` (DBN) or ``patch_model`` (patches) is the learnt map; the images are the
    uint8 images behind the features.
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

"""Unsupervised feature learning for section 4 of Foster, Kakade & Salakhutdinov (AISTATS 2012).

:mod:`.dbn` holds the restricted Boltzmann machines and the deep belief network (torch);
:mod:`.patches` holds the single-layer convolutional patch features of Coates, Lee & Ng (AISTATS
2011), the CIFAR-10 default; :mod:`.build` builds the 2,000 features of MNIST (DBN) and CIFAR-10
(patches, or the DBN with ``kind="dbn"``) once and reads them back from the cache
(:func:`load_features`, returning a :class:`FeatureSet`); :mod:`.probe` measures them with a
linear probe (:func:`feature_probe`, :func:`probe_arrays`; the pair signal of a feature map is the
experiments' own, :func:`tgreedy_lib.experiments.runs.similarity_reference_auroc`). The private
modules hold the cache's entry format (:mod:`._cache`: written atomically, checked when read,
healed when damaged) and :class:`FeatureSet`. The public names of all of them are importable from
this package.
"""
from __future__ import annotations

from ._cache import CacheWarning
from ._feature_set import FeatureSet
from .build import (DEFAULT_KIND, FEATURE_DATASETS, FEATURE_KINDS, PIPELINE_VERSION, FeatureConfig, build_features,
                    build_patch_features, cache_key, dataset_digest, default_config, feature_cache_paths, load_features)
from .dbn import dbn_inputs
from .patches import PatchFeatureConfig, PatchFeatureModel
from .probe import (PROBE_C_GRID, PROBE_REGULARIZATION, PROBE_TOLERANCE, feature_probe, linear_probe, probe_arrays,
                    probe_report, validated_probe)

__all__ = ["DEFAULT_KIND", "FEATURE_DATASETS", "FEATURE_KINDS", "PIPELINE_VERSION", "PROBE_C_GRID",
           "PROBE_REGULARIZATION", "PROBE_TOLERANCE", "CacheWarning", "FeatureConfig", "FeatureSet", "PatchFeatureConfig",
           "PatchFeatureModel", "build_features", "build_patch_features", "cache_key", "dataset_digest", "dbn_inputs",
           "default_config", "feature_cache_paths", "feature_probe", "linear_probe", "load_features", "probe_arrays", "probe_report",
           "validated_probe"]

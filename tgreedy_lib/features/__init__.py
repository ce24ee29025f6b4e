"""Unsupervised feature learning for section 4 of Foster, Kakade & Salakhutdinov (AISTATS 2012).

:mod:`.dbn` holds the restricted Boltzmann machines and the deep belief network (torch);
:mod:`.patches` holds the single-layer convolutional patch features of Coates, Lee & Ng (AISTATS
2011), the CIFAR-10 default; :mod:`.build` builds the 2,000 features of MNIST (DBN) and CIFAR-10
(patches, or the DBN with ``kind="dbn"``), caches them and probes them (:func:`load_features`,
:func:`feature_probe`; the pair signal of a feature map is the experiments' own,
:func:`tgreedy_lib.experiments.runs.similarity_reference_auroc`). The names of :mod:`.build` are
importable from this package.
"""
from __future__ import annotations

from .build import (DEFAULT_KIND, FEATURE_DATASETS, FEATURE_KINDS, PIPELINE_VERSION, PROBE_C_GRID,
                    PROBE_REGULARIZATION, PROBE_TOLERANCE, CacheWarning, FeatureConfig, FeatureSet, build_features,
                    build_patch_features, cache_key, dataset_digest, dbn_inputs, default_config, feature_cache_paths,
                    feature_probe, linear_probe, load_features, probe_arrays, probe_report, validated_probe)
from .patches import PatchFeatureConfig, PatchFeatureModel

__all__ = ["DEFAULT_KIND", "FEATURE_DATASETS", "FEATURE_KINDS", "PIPELINE_VERSION", "PROBE_C_GRID",
           "PROBE_REGULARIZATION", "PROBE_TOLERANCE", "CacheWarning", "FeatureConfig", "FeatureSet", "PatchFeatureConfig",
           "PatchFeatureModel", "build_features", "build_patch_features", "cache_key", "dataset_digest", "dbn_inputs",
           "default_config", "feature_cache_paths", "feature_probe", "linear_probe", "load_features", "probe_arrays", "probe_report",
           "validated_probe"]

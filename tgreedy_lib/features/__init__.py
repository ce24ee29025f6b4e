"""Unsupervised feature learning for section 4 of Foster, Kakade & Salakhutdinov (AISTATS 2012).

:mod:`.dbn` holds the restricted Boltzmann machines and the deep belief network (torch);
:mod:`.build` builds the 2,000 DBN features of MNIST and CIFAR-10, caches them and probes them
(:func:`load_features`). The names of :mod:`.build` are importable from this package.
"""
from __future__ import annotations

from .build import (FEATURE_DATASETS, PIPELINE_VERSION, PROBE_REGULARIZATION, PROBE_TOLERANCE, FeatureConfig,
                    FeatureSet, build_features, cache_key, dataset_digest, dbn_inputs, default_config,
                    feature_cache_paths, linear_probe, load_features, probe_report)

__all__ = ["FEATURE_DATASETS", "PIPELINE_VERSION", "PROBE_REGULARIZATION", "PROBE_TOLERANCE", "FeatureConfig",
           "FeatureSet", "build_features", "cache_key", "dataset_digest", "dbn_inputs", "default_config",
           "feature_cache_paths", "linear_probe", "load_features", "probe_report"]

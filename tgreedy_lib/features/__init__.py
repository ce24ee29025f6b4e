"""Unsupervised feature learning for section 4 of Foster, Kakade & Salakhutdinov (AISTATS 2012).

:mod:`.dbn`: restricted Boltzmann machines and the deep belief network (torch); :mod:`.patches`:
the single-layer convolutional patch features, the CIFAR-10 default; :mod:`.build`: the
configurations, the cache keys and :func:`load_features`, which builds the 2,000 features once and
reads them back as a :class:`FeatureSet`; :mod:`.probe`: the linear probe that measures them;
:mod:`._cache`: the cache's entries (written whole, checked when read, rebuilt when damaged).
"""
from __future__ import annotations

from ._cache import CacheWarning
from ._feature_set import FeatureSet
from .build import (DEFAULT_KIND, FEATURE_DATASETS, FEATURE_KINDS, PIPELINE_VERSION, FeatureConfig, cache_key,
                    default_config, feature_cache_paths, load_features)
from .dbn import dbn_inputs
from .patches import PatchFeatureConfig, PatchFeatureModel
from .probe import (PROBE_C_GRID, PROBE_REGULARIZATION, PROBE_TOLERANCE, feature_probe, linear_probe, probe_arrays,
                    probe_report, validated_probe)

__all__ = ["DEFAULT_KIND", "FEATURE_DATASETS", "FEATURE_KINDS", "PIPELINE_VERSION", "PROBE_C_GRID",
           "PROBE_REGULARIZATION", "PROBE_TOLERANCE", "CacheWarning", "FeatureConfig", "FeatureSet", "PatchFeatureConfig",
           "PatchFeatureModel", "cache_key", "dbn_inputs", "default_config", "feature_cache_paths", "feature_probe",
           "linear_probe", "load_features", "probe_arrays", "probe_report", "validated_probe"]

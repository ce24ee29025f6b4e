"""Messages a first-time user meets: they give the user's own values and a fix that works where the user is."""
import numpy as np
import pytest
import sklearn
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import LeaveOneGroupOut, cross_val_score
from sklearn.pipeline import make_pipeline

from tgreedy_lib import Greedy, TGreedy


def _data(n_domains=4, per_domain=30, p=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_domains * per_domain, p))
    return X, X[:, 0] + rng.standard_normal(len(X)), np.repeat(np.arange(n_domains), per_domain)


@pytest.mark.parametrize("selector", [TGreedy, Greedy])
def test_a_constant_target_is_named_by_its_own_value(selector):
    X, _, d = _data()
    with pytest.raises(ValueError, match=r"^y is 3\.0 in every sample: nothing to predict") as error:
        selector(2).fit(X, np.full(len(X), 3.0), domains=d)
    assert "e-16" not in str(error.value) and "+1/-1" not in str(error.value)


def test_missing_domains_inside_cross_val_score_names_the_routing_fix():
    X, y, d = _data()
    pipe = make_pipeline(TGreedy(2), LinearRegression())
    with pytest.raises(ValueError, match=r'set_fit_request\(domains="groups"\).*params=\{"groups": d\}') as error:
        cross_val_score(pipe, X, y, groups=d, cv=LeaveOneGroupOut(), error_score="raise")
    assert "enable_metadata_routing=True" in str(error.value)
    # and the fix it names works
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = make_pipeline(TGreedy(2).set_fit_request(domains="groups"), LinearRegression())
        scores = cross_val_score(pipe, X, y, cv=LeaveOneGroupOut(), params={"groups": d})
    assert scores.shape == (4,) and np.all(np.isfinite(scores))

from otter.test_files import test_case

OK_FORMAT = False

name = "q4_read_the_table"
points = 3

@test_case(points=0, hidden=False)
def test_types(spurious_alone_helps_from, greedy_beats_null_from, why):
    assert spurious_alone_helps_from in (4, 8, 16, 32, 64) and greedy_beats_null_from in (4, 8, 16, 32, 64), 'an n of the table'
    assert isinstance(why, str) and why.strip().upper() in {'A', 'B', 'C'}, "'A', 'B' or 'C'"

@test_case(points=None, hidden=True)
def test_spurious_alone(spurious_alone_helps_from, variant):
    j = list(variant.kind).index('spurious')
    s, mu = (variant.spread[j], variant.effect[j])
    assert spurious_alone_helps_from == min((n for n in (4, 8, 16, 32, 64) if s ** 2 / n < mu ** 2))

@test_case(points=None, hidden=True)
def test_read_off(greedy_beats_null_from, why, rows, variant_null_regret):
    assert greedy_beats_null_from == min((r['n_domains'] for r in rows if r['greedy_regret'] < variant_null_regret))
    assert why.strip().upper() == 'B'


"""The top floor: this collection's own machinery, built on the papers' library and never imported by it.

The library below (:mod:`tgreedy_lib.domain_adaptation`, :mod:`tgreedy_lib.categorical`, the data
sets, features, experiments' runners, figures and checks) implements the two papers and is usable
without the notebooks. This package is about *this reproduction*: which claims we test and how a
verdict is reached, over which seeds, what is committed as reference results, and how the README,
the notebooks' sentences and the course are produced.

=================================  ==================================================================
:mod:`.claims`                     the claims of sections 1, 4 and 5 as data and their rule language
:mod:`.seeds`                      claims and bands over seeds, the reference results' reader
:mod:`.reference`                  what notebooks 06-08b read from ``reference_results/``
:mod:`.cli`                        ``python -m tgreedy_course reproduce`` and ``reference``
:mod:`.compare`                    the tables, files, README block and command of ``compare``
:mod:`.verify`                     ``python -m tgreedy_course verify`` and the README's table of the checks
:mod:`.any_data`                   the experiments and the claims on any labelled data
:mod:`.prose`, :mod:`.summary`     sentences and tables rendered from results (notebook 11's table)
:mod:`.when_to_stop`               notebook 09's findings
:mod:`.inputs`                     the features notebooks 06-08 run on
:mod:`.assignments`                otter-grader assignments: generate, check, grade
:mod:`.student_copy`               what students get
:mod:`.notebooks`                  execute every notebook (in place, or into ``results/``)
=================================  ==================================================================

The modules are imported by name; this package imports none of them.
"""

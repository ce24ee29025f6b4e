"""The course's own machinery, built on the papers' library and never imported by it.

=================================  ==================================================================
:mod:`.claims`                     the claims of sections 1, 4 and 5 as data and their rule language
:mod:`.seeds`                      claims and bands over seeds, the reference results' reader
:mod:`.cli`                        ``python -m tgreedy_course reproduce`` and ``reference``
:mod:`.compare_tables`             the tables, files, README block and command of ``compare``
:mod:`.verify`                     ``python -m tgreedy_course verify`` and the README's table of the checks
:mod:`.any_data`                   the experiments and the claims on any labelled data
:mod:`.prose`, :mod:`.summary`     sentences and tables rendered from results (notebook 11's table)
:mod:`.when_to_stop`               notebook 09's findings
:mod:`.notebook_features`          the features notebooks 06-08 run on
:mod:`.assignments`                otter-grader assignments: generate, check, grade
:mod:`.student_copy`               what students get
:mod:`.notebooks`                  execute every notebook (in place, or into ``results/``)
=================================  ==================================================================
"""

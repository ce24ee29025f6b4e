"""``python -m tgreedy_course``: one parser, a subcommand per command, chosen by its name and never by the program name."""
from __future__ import annotations

import pytest

from tgreedy_course import __main__ as entry


@pytest.mark.parametrize("command", sorted(entry.COMMANDS))
def test_every_command_is_a_subcommand_of_the_one_parser(command, capsys):
    parser = entry.build_parser(command)
    subparsers = next(a for a in parser._actions if a.dest == "command")
    assert set(subparsers.choices) == set(entry.COMMANDS)
    with pytest.raises(SystemExit) as exit_:
        entry.main([command, "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: python -m tgreedy_course {command} "), out[:200]
    example = {"assignments": ["check"], "download": ["mnist"]}.get(command, ["x"])
    assert parser.parse_known_args([command, *example])[0].run_command.__name__ == entry.COMMANDS[command].run


def test_the_same_module_serves_two_commands_by_their_own_functions():
    """reproduce and reference share a module, as assignments and grade do: each has its own arguments and runner."""
    reference = entry.build_parser("reference").parse_args(["reference", "results-folder"])
    assert reference.run_command.__name__ == "run_reference" and reference.results == "results-folder"
    grade = entry.build_parser("grade").parse_args(["grade", "submissions"])
    assert grade.command == "grade" and str(grade.submissions) == "submissions"
    generate = entry.build_parser("assignments").parse_args(["assignments", "generate", "00"])
    assert generate.command == "generate" and generate.names == ["00"]


def test_no_command_lists_them_all(capsys):
    assert entry.main([]) == 2
    out = capsys.readouterr().out
    assert all(name in out for name in entry.COMMANDS)
    assert entry.main(["no-such-command"]) == 2


@pytest.mark.parametrize("command", ["verify", "reproduce"])
def test_an_unknown_option_is_reported_under_the_commands_own_usage(command, capsys):
    with pytest.raises(SystemExit) as exit_:
        entry.main([command, "--no-such-option"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: python -m tgreedy_course {command} "), err[:200]
    assert f"python -m tgreedy_course {command}: error: unrecognized arguments: --no-such-option" in err

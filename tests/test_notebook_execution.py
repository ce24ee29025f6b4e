"""``execute-notebooks``: copies into an output folder by default, widget state kept, no spurious kernel lines."""
import json

import nbformat
import pytest

from tgreedy_course import notebooks
from tgreedy_course.__main__ import main as course_main


@pytest.fixture()
def tiny_notebook(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# 00 · tiny"),
                nbformat.v4.new_code_cell("import ipywidgets as widgets\nwidgets.IntSlider(value=3, max=9)"),
                nbformat.v4.new_code_cell("print(6 * 7)")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path / "notebooks" / "00_tiny.ipynb"
    path.parent.mkdir()
    nbformat.write(nb, path)
    return path


def test_executes_into_the_output_folder_and_leaves_the_notebook_alone(tiny_notebook, tmp_path, capfd):
    before = tiny_notebook.read_bytes()
    out = tmp_path / "results" / "notebooks"
    assert course_main(["execute-notebooks", str(tiny_notebook), "--out", str(out)]) == 0
    assert tiny_notebook.read_bytes() == before
    executed = nbformat.read(out / tiny_notebook.name, as_version=4)
    assert executed.cells[2].outputs[0]["text"] == "42\n"
    # The slider's state is saved, so a static view (the book) can draw it.
    state = executed.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    sliders = [m["state"] for m in state.values() if m["model_name"] == "IntSliderModel"]
    assert [s["value"] for s in sliders] == [3]
    captured = capfd.readouterr()
    assert "KeyboardInterrupt" not in captured.err + captured.out
    assert f"-> {out / tiny_notebook.name}" in captured.out


def test_in_place_rewrites_the_notebook(tiny_notebook):
    assert course_main(["execute-notebooks", str(tiny_notebook), "--in-place"]) == 0
    executed = json.loads(tiny_notebook.read_text())
    assert executed["cells"][2]["outputs"][0]["text"] == ["42\n"]


def test_out_and_in_place_exclude_each_other(tiny_notebook, capsys):
    with pytest.raises(SystemExit):
        course_main(["execute-notebooks", str(tiny_notebook), "--in-place", "--out", "elsewhere"])
    assert "not allowed with" in capsys.readouterr().err

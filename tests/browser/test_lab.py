"""JupyterLab (``make lab``) in Chromium: a student opens notebook 00, runs it, and moves a slider in 05;
the computed sentences and tables (Markdown that code cells display) read as text, math typeset, tables as
tables, as they do in the book.

The test starts its own JupyterLab on 127.0.0.1, a free port and a random token, on copies of the
notebooks in a temporary folder (nothing is saved over the committed notebooks; autosave is off), with
its own settings and runtime folders.
"""
from __future__ import annotations

import json
import os
import re
import pathlib
import secrets
import signal
import subprocess
import sys
import time
import urllib.request

import nbformat
import pytest

from .conftest import ROOT, free_port, save_screenshot
from .reading import RAW_TABLE, RAW_TEX

LAB_SETTINGS = {
    # every cell in the page (no virtual scrolling), so the test sees all of them
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none",
                                                                   "autoStartDefaultKernel": True},
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    # no request to the internet, no pop-up asking for one
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false",
                                                                        "checkForUpdates": False},
}
ERROR_OUTPUT = "[data-mime-type='application/vnd.jupyter.error']"
MARKDOWN_OUTPUT = ".jp-OutputArea-output[data-mime-type='text/markdown']"


@pytest.fixture(scope="module")
def lab(browser, tmp_path_factory):
    home = tmp_path_factory.mktemp("lab")
    # The notebooks as a student gets them, less their outputs: whatever the page shows after Run All was
    # computed by this session's kernel.
    (home / "notebooks").mkdir()
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
        nb.metadata.pop("widgets", None)
        nbformat.write(nb, home / "notebooks" / path.name)
    for name, values in LAB_SETTINGS.items():
        path = home / "settings" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    port, token = free_port(), secrets.token_hex(16)
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(home / "config"), JUPYTER_RUNTIME_DIR=str(home / "runtime"),
               JUPYTERLAB_SETTINGS_DIR=str(home / "settings"), JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"),
               PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    log = (home / "lab.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ServerApp.ip=127.0.0.1",
         f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
         f"--ServerApp.root_dir={home}", *(["--allow-root"] if os.geteuid() == 0 else [])],
        cwd=home, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("JupyterLab did not start:\n" + (home / "lab.log").read_text(errors="replace")[-3000:])
            time.sleep(0.5)
        yield base, token, home / "lab.log"
    finally:
        proc.send_signal(signal.SIGTERM)       # the server shuts its kernels down
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()


def open_notebook(browser, lab, name):
    base, token, log = lab
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    # A workspace of its own: JupyterLab would otherwise reopen the tabs of the previous test.
    page.goto(f"{base}/lab/workspaces/{pathlib.Path(name).stem}/tree/notebooks/{name}?token={token}",
              wait_until="load")
    page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=60000)
    try:
        wait_idle(page, timeout=90)
    except Exception:
        save_screenshot(page, ROOT / "results" / "browser-screenshots" / f"lab-{name}-no-kernel.png")
        pytest.fail(f"no idle kernel for {name}; JupyterLab's log:\n" + log.read_text(errors="replace")[-3000:])
    return page


def wait_idle(page, timeout: float) -> None:
    """Until the notebook's kernel is connected and idle (the status bar says so)."""
    page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").first.wait_for(timeout=timeout * 1000)
    page.locator(".jp-StatusBar-TextItem", has_text=re.compile(r"Python 3.*\| Idle")).first.wait_for(
        timeout=timeout * 1000)


def run_all(page, timeout: float) -> None:
    """Run > Run All Cells, as a person clicks it, and wait until every code cell has run."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    prompts = "() => Array.from(document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputArea-prompt'))"
    try:
        page.wait_for_function(f"() => ({prompts})().length > 0 && ({prompts})().every(p => /\\[\\d+\\]/.test(p.innerText))",
                               timeout=timeout * 1000)
    except Exception:
        save_screenshot(page, ROOT / "results" / "browser-screenshots" / "lab-run-all-unfinished.png")
        seen = page.evaluate(f"() => ({prompts})().map(p => p.innerText)")
        pytest.fail(f"Run All did not finish in {timeout} s; the cells' prompts: {seen}")
    wait_idle(page, timeout=timeout)


def computed_markdown(page) -> dict:
    """The Markdown outputs of the open notebook as a reader sees them: their text outside typeset math,
    how many hold a table and how many a typeset formula."""
    page.wait_for_function(f"""() => Array.from(document.querySelectorAll("{MARKDOWN_OUTPUT}"))
        .every(e => !/\\$[^$\\s][^$]*\\$/.test(e.textContent) || e.querySelector('mjx-container'))""", timeout=30000)
    return page.evaluate(f"""() => {{
        const outputs = Array.from(document.querySelectorAll("{MARKDOWN_OUTPUT}"));
        const text = outputs.map(e => {{ const c = e.cloneNode(true);
            c.querySelectorAll('mjx-container, code, pre').forEach(x => x.remove()); return c.textContent; }});
        return {{n: outputs.length, text: text.join('\\n'),
                 tables: outputs.filter(e => e.querySelector('table')).length,
                 math: outputs.filter(e => e.querySelector('mjx-container')).length}};
    }}""")


def test_lab_opens_notebook_00_and_run_all_completes(browser, lab, screenshot_dir):
    page = open_notebook(browser, lab, "00_start_here.ipynb")
    try:
        run_all(page, timeout=180)
        assert page.locator(ERROR_OUTPUT).count() == 0, page.locator(ERROR_OUTPUT).first.inner_text()
        assert page.locator(".jp-Notebook .jp-OutputArea-output img").count() >= 1, "no figure after Run All"
        # The computed sentences typeset their math ($w = 0$ ...), as the book does.
        shown = computed_markdown(page)
        assert shown["n"] >= 2 and shown["math"] >= 1, shown
        assert not RAW_TEX.findall(shown["text"]), f"raw TeX in computed sentences: {RAW_TEX.findall(shown['text'])[:4]}"
        save_screenshot(page, screenshot_dir / "lab-00_start_here.png")
    finally:
        page.close()


def test_lab_shows_computed_tables_as_tables(browser, lab, screenshot_dir):
    """Notebook 11's verdict tables (``show_table``) render as HTML tables after Run All, no pipes left."""
    page = open_notebook(browser, lab, "11_what_holds.ipynb")
    try:
        run_all(page, timeout=180)
        assert page.locator(ERROR_OUTPUT).count() == 0, page.locator(ERROR_OUTPUT).first.inner_text()
        shown = computed_markdown(page)
        assert shown["tables"] >= 2, shown
        assert not RAW_TABLE.findall(shown["text"]), "a raw pipe table in the outputs"
        assert not RAW_TEX.findall(shown["text"]), RAW_TEX.findall(shown["text"])[:4]
        table = page.locator(f"{MARKDOWN_OUTPUT} table").first
        table.scroll_into_view_if_needed()
        save_screenshot(table, screenshot_dir / "lab-11_what_holds-table.png")
    finally:
        page.close()


def run_cell(page, cell, timeout: float) -> None:
    """Click into a code cell and press Shift+Enter; wait until it has run. A cell whose input the notebook keeps
    collapsed is opened first, as a reader opens it (a click on its placeholder)."""
    cell.scroll_into_view_if_needed()
    if cell.locator(".jp-InputArea-editor").count() == 0:
        cell.locator(".jp-InputPlaceholder").first.click()
    cell.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")
    cell.locator(".jp-InputArea-prompt", has_text=re.compile(r"\[\d+\]")).wait_for(timeout=timeout * 1000)
    wait_idle(page, timeout=timeout)


def _plot_src(widget) -> str | None:
    images = widget.locator(".widget-output img")
    return images.first.get_attribute("src") if images.count() else None


def test_moving_a_slider_in_notebook_05_redraws_the_plot(browser, lab, screenshot_dir):
    page = open_notebook(browser, lab, "05_tgreedy_simulated_domains.ipynb")
    try:
        # The imports, then the interactive cell (the last code cell), one Shift+Enter each: the rest of
        # the notebook is not needed for the slider, and Run All is tested on notebook 00.
        cells = page.locator(".jp-Notebook .jp-CodeCell")
        # the interactive cell's place among the code cells (its input is collapsed, so its text is not shown)
        code = [c for c in json.loads((ROOT / "notebooks" / "05_tgreedy_simulated_domains.ipynb").read_text())["cells"]
                if c["cell_type"] == "code"]
        interactive = cells.nth(max(i for i, c in enumerate(code) if "widgets.interact" in "".join(c["source"])))
        run_cell(page, cells.first, timeout=120)
        run_cell(page, interactive, timeout=180)
        assert page.locator(ERROR_OUTPUT).count() == 0, page.locator(ERROR_OUTPUT).first.inner_text()
        widget = interactive.locator(".jp-OutputArea-output .widget-vbox").first
        widget.locator(".widget-output img").first.wait_for(timeout=60000)
        widget.scroll_into_view_if_needed()
        before = _plot_src(widget)
        save_screenshot(widget, screenshot_dir / "lab-05-slider-before.png")
        readout = widget.locator(".widget-readout").first
        value = readout.inner_text()

        # Drag the first slider's handle to the right, as with a mouse.
        handle = widget.locator(".widget-slider .noUi-handle").first
        box = handle.bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        page.mouse.move(box["x"] + box["width"] / 2 + 40, box["y"] + box["height"] / 2, steps=5)
        page.mouse.up()
        assert readout.inner_text() != value, "the slider did not move"

        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            after = _plot_src(widget)
            if after and after != before:
                break
            page.wait_for_timeout(500)
        else:
            pytest.fail("the plot did not change after the slider moved")
        wait_idle(page, timeout=120)
        save_screenshot(widget, screenshot_dir / "lab-05-slider-after.png")
        assert page.locator(ERROR_OUTPUT).count() == 0
    finally:
        page.close()

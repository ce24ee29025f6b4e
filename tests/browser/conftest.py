"""Browser tests: what a person sees in the book (``make book``) and in JupyterLab (``make lab``).

They drive Debian's Chromium (``apt-get install chromium``; never a browser downloaded by playwright) with
the playwright Python package. Without Chromium or playwright they are skipped, saying so; with
``TGREEDY_REQUIRE_BROWSER=1`` (set by ``.ci/run``) a missing browser is a failure instead.

Screenshots go to ``results/browser-screenshots`` (``TGREEDY_SCREENSHOT_DIR`` to change it); their paths
are listed at the end of the pytest run.
"""
from __future__ import annotations

import functools
import http.server
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import threading

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage"]
SCREENSHOTS: list[pathlib.Path] = []


def chromium_path() -> str | None:
    """Debian's Chromium, or the browser named by TGREEDY_CHROMIUM (then only that one)."""
    candidates = ([os.environ["TGREEDY_CHROMIUM"]] if "TGREEDY_CHROMIUM" in os.environ
                  else ["/usr/bin/chromium", shutil.which("chromium")])
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def _missing_browser() -> str | None:
    if chromium_path() is None:
        return "Debian's Chromium is not installed (apt-get install chromium; .ci/run installs it)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[dev]')"
    return None


@pytest.fixture(scope="session")
def browser():
    reason = _missing_browser()
    if reason:
        if os.environ.get("TGREEDY_REQUIRE_BROWSER") == "1":
            pytest.fail(f"TGREEDY_REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def screenshot_dir() -> pathlib.Path:
    d = pathlib.Path(os.environ.get("TGREEDY_SCREENSHOT_DIR", ROOT / "results" / "browser-screenshots"))
    d.mkdir(parents=True, exist_ok=True)
    return d


def save_screenshot(target, path: pathlib.Path, **kwargs) -> pathlib.Path:
    target.screenshot(path=str(path), **kwargs)
    SCREENSHOTS.append(path)
    return path


def pytest_terminal_summary(terminalreporter):
    if SCREENSHOTS:
        terminalreporter.write_sep("-", "browser screenshots")
        for path in SCREENSHOTS:
            terminalreporter.write_line(str(path))


@pytest.fixture(scope="session")
def book_dir(browser, tmp_path_factory) -> pathlib.Path:
    """The book of the committed notebooks, built as ``make book`` builds it (or TGREEDY_BOOK_DIR)."""
    given = os.environ.get("TGREEDY_BOOK_DIR")
    if given:
        return pathlib.Path(given)
    out = tmp_path_factory.mktemp("book") / "book"
    subprocess.run([sys.executable, str(ROOT / "book" / "build.py"), "--notebooks", str(ROOT / "notebooks"),
                    "--out", str(out)], check=True, cwd=ROOT)
    return out


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def book_url(book_dir):
    """The book served on a free loopback port, as a static web server would serve it."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(_QuietHandler, directory=str(book_dir)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

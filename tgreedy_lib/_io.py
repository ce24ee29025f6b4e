"""THE file writing of the library: every file is written whole or not at all, and output folders are checked first.

* :func:`atomic_writer` (and :func:`atomic_write_text`, :func:`atomic_write_bytes`) write to a
  temporary file beside the target, flush it to disk and rename it into place (``os.replace``,
  atomic on POSIX and Windows): a reader sees the old file or the new one, never half of one, and
  a writer killed mid-write leaves the old file as it was.
* The temporary file is named ``<target>.<pid>@<host>.<token>.tmp``, so :func:`remove_leftovers`
  can tell the leftover of a killed writer (its process is gone) from a file another process is
  writing right now; leftovers of earlier versions (``*.tmp.npz``, ``*.json.tmp``) go once they
  are :data:`STALE_SECONDS` old.
* :func:`output_folder_problem` and :func:`output_file_problem` say, before any computation, why an
  output cannot be written (a file where a folder should be, a read-only folder, a parent that
  cannot be created), in one line; :func:`check_outputs` prints it for a command line and returns
  the exit status 2.
"""
from __future__ import annotations

import contextlib
import os
import pathlib
import re
import secrets
import socket
import stat
import sys
import tempfile
import time

__all__ = ["atomic_writer", "atomic_write_text", "atomic_write_bytes", "remove_leftovers",
           "output_folder_problem", "output_file_problem", "check_outputs", "STALE_SECONDS"]

#: A temporary file untouched for this long belongs to no live writer (writing a cache entry of a
#: few hundred MB takes seconds, and every write refreshes the file's modification time).
STALE_SECONDS = 3600.0

_HOST = re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname())[:40] or "host"
_OURS = re.compile(r"^(?P<target>.+)\.(?P<pid>\d+)@(?P<host>[A-Za-z0-9-]+)\.[A-Za-z0-9_-]+\.tmp$")
#: Temporary files of the library's earlier writers: ``tempfile.mkstemp`` beside the target (eight random
#: characters, then ``.tmp.npz`` or ``.part``) and the JSON cache's fixed ``<name>.json.tmp``.
_EARLIER = re.compile(r"^(.+\.[a-z0-9_]{8}\.(tmp\.npz|part)|.+\.json\.tmp)$")


def _temporary_name(path: pathlib.Path) -> pathlib.Path:
    return path.with_name(f"{path.name}.{os.getpid()}@{_HOST}.{secrets.token_hex(4)}.tmp")


@contextlib.contextmanager
def atomic_writer(path, mode: str = "w", encoding: str | None = "utf-8", newline: str | None = None):
    """A file object on a temporary file that replaces ``path`` when the block ends without an exception.

    The parent folder is created if missing; a file that is replaced keeps its permission bits. On
    an exception (or a kill) ``path`` is untouched and the temporary file is removed (or, after a
    kill, left for :func:`remove_leftovers`).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from tgreedy_lib._io import atomic_writer
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "result.json"
    >>> with atomic_writer(target) as f:
    ...     _ = f.write('{"auroc": 0.9}')
    >>> target.read_text()
    '{"auroc": 0.9}'
    >>> sorted(p.name for p in target.parent.iterdir())   # no temporary file left behind
    ['result.json']
    """
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _temporary_name(path)
    binary = "b" in mode
    try:
        with open(tmp, "x" + mode.replace("w", "").replace("x", ""),
                  **({} if binary else {"encoding": encoding, "newline": newline})) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(OSError):  # a file that is replaced keeps its permissions
            os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def atomic_write_text(path, text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically (:func:`atomic_writer`)."""
    with atomic_writer(path, "w", encoding=encoding) as handle:
        handle.write(text)


def atomic_write_bytes(path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (:func:`atomic_writer`)."""
    with atomic_writer(path, "wb") as handle:
        handle.write(data)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def remove_leftovers(folder, *, earlier: bool = False, now: float | None = None) -> list[pathlib.Path]:
    """Remove the temporary files that killed writers left in ``folder``; return what was removed.

    A temporary file of :func:`atomic_writer` is removed when the process that wrote it is gone
    (same host) or when it is :data:`STALE_SECONDS` old. With ``earlier`` (the library's own cache
    folders), so is a temporary file of the library's earlier writers (``<name>.<8 characters>.tmp.npz``,
    ``<name>.json.tmp``, ``<name>.<8 characters>.part``) once it is that old. Files that cannot be
    removed (a read-only folder) are left as they are.
    """
    folder = pathlib.Path(folder)
    now = time.time() if now is None else now
    removed = []
    try:
        entries = list(folder.iterdir())
    except OSError:
        return removed
    for entry in entries:
        name = entry.name
        ours = _OURS.match(name)
        if not ours and not (earlier and _EARLIER.match(name)):
            continue
        try:
            age = now - entry.stat().st_mtime
            dead = bool(ours) and ours["host"] == _HOST and not _alive(int(ours["pid"]))
            if (dead or age > STALE_SECONDS) and entry.is_file():
                entry.unlink()
                removed.append(entry)
        except OSError:
            continue
    return removed


# --------------------------------------------------------------------------- output checks

def _nearest_existing(path: pathlib.Path) -> pathlib.Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def output_folder_problem(folder) -> str | None:
    """Why ``folder`` cannot receive output files, in a few words; ``None`` when it can.

    The folder is created if missing (with its parents); then a file is created in it and removed
    again, which is the only test that holds for every user (root too) and every file system.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from tgreedy_lib._io import output_folder_problem
    >>> base = pathlib.Path(tempfile.mkdtemp())
    >>> output_folder_problem(base / "new" / "results") is None   # created
    True
    >>> _ = (base / "notes.txt").write_text("")
    >>> output_folder_problem(base / "notes.txt")
    'it is a file, not a folder'
    """
    folder = pathlib.Path(folder)  # exactly the path the command will write to (no ~ expansion)
    if folder.exists() and not folder.is_dir():
        return "it is a file, not a folder"
    existing = _nearest_existing(folder)
    if existing.exists() and not existing.is_dir():
        return f"{existing} is a file, so no folder can be made under it"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        return f"it cannot be created ({error.strerror or error})"
    try:
        handle, probe = tempfile.mkstemp(dir=folder, prefix=".write-test-")
        os.close(handle)
        os.remove(probe)
    except OSError as error:
        return f"it is not writable ({error.strerror or error})"
    return None


def output_file_problem(path, *, must_exist: bool = False) -> str | None:
    """Why the file ``path`` cannot be written (atomically, in its folder); ``None`` when it can.

    ``must_exist`` asks for a file that is rewritten in place (a README whose block is replaced).
    """
    path = pathlib.Path(path)
    if path.is_dir():
        return "it is a folder, not a file"
    if must_exist and not path.is_file():
        return "it does not exist"
    problem = output_folder_problem(path.parent if str(path.parent) else pathlib.Path("."))
    return None if problem is None else f"its folder {path.parent}: {problem}"


def check_outputs(prog: str, *, folders: dict | None = None, files: dict | None = None,
                  existing_files: dict | None = None, stream=None) -> int | None:
    """Check every output a command will write before it computes anything.

    ``folders``, ``files`` and ``existing_files`` map the option that names an output (``"--out"``)
    to its path (``None``: not given). On the first problem one line goes to ``stream`` (stderr)
    and the exit status 2 is returned; ``None`` when everything can be written.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from tgreedy_lib._io import check_outputs
    >>> base = pathlib.Path(tempfile.mkdtemp()); _ = (base / "taken").write_text("")
    >>> check_outputs("reproduce", folders={"--out": base / "taken"}, stream=sys.stdout)
    reproduce: cannot write to --out ... it is a file, not a folder; choose a folder that can be written (it is created if missing)
    2
    """
    stream = sys.stderr if stream is None else stream
    checks = [(option, path, output_folder_problem, "choose a folder that can be written (it is created if missing)")
              for option, path in (folders or {}).items()]
    checks += [(option, path, output_file_problem, "choose a file in a folder that can be written")
               for option, path in (files or {}).items()]
    checks += [(option, path, lambda p: output_file_problem(p, must_exist=True),
                "name an existing file in a folder that can be written") for option, path in (existing_files or {}).items()]
    for option, path, problem_of, fix in checks:
        if path is None:
            continue
        problem = problem_of(path)
        if problem is not None:
            print(f"{prog}: cannot write to {option} {path}: {problem}; {fix}", file=stream)
            return 2
    return None

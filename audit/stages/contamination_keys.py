"""Keys that survive translation, for the rewrite tier (method "rewrite", evidence "keys ..."): an
eval unit translated into another language (a quiz site's German or Chinese copy of a math word
problem) loses every word the other tiers read, and keeps its numbers and, in Latin script, its
names.

1. Keys. A unit's numbers, normalised so that the ways languages write one number meet
   ("5,000", "5.000", "5 000" and "5000" -> 5000; "1.2" and "1,2" -> 1.2; full-width digits as
   ASCII; a number inside a time, date, range, version or identifier is none), and its names:
   capitalised Latin-script words (Eliza, Toula, Windows) whose lower-case form is no word of any
   unit nor of _MIN_DF documents of the corpus sample ("What" is a word; Gloria, lower-case in one
   hymn, is a name) and that name no weekday or month; in a record, a name followed by a
   capitalised word the unit does not write after it is another person (Steve Dower, Juan Carlos),
   except in a language that capitalises its nouns (German). Numbers
   written as words read as digits, in the words of the record's identified language (the language
   stage's column; the cardinals of some fifty languages as num2words writes them, with what it
   lacks by hand: twice, dreimal, пяти) or, where none is known, of English, German, Spanish, French
   and Russian (five, fünf, cinq, cinco, vijf, pięć, пять, 五 -> 5; twenty-five, fünfundzwanzig,
   veinticinco, tjugofem, двадцать пять -> 25; 三千五百 -> 3500; no ordinal: "the second" is as often
   a unit of time; "one" in no language: it is an article more often), and
   names written in Cyrillic, Greek, Chinese or katakana are transliterated (anyascii) and compared
   loosely with the unit's Latin-script names by a sound skeleton (Кайлар, 凯拉, カイラー, Κάιλαρ ~
   Kylar; Джилл, 吉尔, ジル ~ Jill):
   the first three consonants, with what transliteration confuses merged (c/k/q, r/l,
   s/z/sh, j/dzh/zh, ng/n; a unit's "th" read as t and as s: Синтия, シンシア, 辛西娅 ~ Cynthia;
   Greek γκ, ντ, μπ for g, d, b: Γκούντερ ~ Gunter, Ρόμπερτ ~ Robert).
   Each key is weighted by its rarity: the lower of its inverse frequency among the units and among
   the corpus sample's documents (a "2" or a "10" is in most documents with numbers: nearly no
   evidence).
2. Candidates, from the sets of the record's numbers and names (one findall each; with the stage's
   Arrow column at hand, numbers only in the records where one RE2 pass over the batch finds a
   digit; names only where one finds a name of the units, Cyrillic, Greek, Chinese and katakana ones
   where one finds those scripts): a unit holding _MIN_RARE of its rare keys (in at most _RARE_SHARE
   of the units and of the sample: short postings) and possibly enough keys of enough weight (step
   3's bounds, wherever they stand), tallied for a whole batch of records by one sort of their
   postings. Number words are read (a slower pass) only where the unit's small numbers, spelled out,
   could make a candidate, and where RE2 finds a number word or a Chinese numeral at all (a looser
   test than the regex). Most records stop here; for the rest, the positions of the candidates'
   keys.
3. Match. The best window of the record (_WINDOW times the unit's characters, at least _MIN_WINDOW)
   holds _MIN_KEYS distinct keys of the unit and _KEYS_SHARE of them (a unit with fewer is not
   indexed), _MIN_NUMBERS of them numbers, none on a line of code, markup or a table; the unit's
   numbers are most of the numbers there (a 1 counts for none: "1 dozen", 1つ, 1時間 say "per") and
   words stand between them (no list of figures); their weight is at least _MIN_WEIGHT (a rare
   combination) and covers the measure floor of the unit's key weight (judged, like every rewrite
   match, by `rewrite_threshold`). With a name among them, _MIN_STRONG_NAMED of them are numbers of
   two digits or more and _IN_ORDER of them stand in the unit's order (or _PAIRS_IN_ORDER of their
   pairs: a language that puts a price before its count swaps neighbours); without one (numbers
   alone meet by chance in reports and stories), _MIN_STRONG_NUMBERS such numbers and
   _IN_ORDER_NUMBERS in order (a translation keeps the order of most quantities). The window is the
   tightest with those keys (a small number of the page around the leak is not read as the
   leak's). The evidence names the keys and how many are in order.

Not reached: a translation that keeps fewer than _MIN_KEYS keys (a question with one or two
numbers and no name, a multiple-choice question in words), a name that is a word of the corpus
sample (Will, Rose: lower-case in several documents) or transliterated past the skeleton (Toula
as 图拉 is reached, a name given a native form is not: Jacob as 雅各布),
names translated rather than transliterated, number words of a language num2words does not write
(or writes without spaces: Korean, Thai) and inflected forms it does not write (Polish dziesięciu,
Turkish on bir as 11: one is no number word), number words of another language than the record's
(a German problem quoted in an English page), ordinals, and a record whose keys make a candidate
only with a number above 12 written in words (number words are read where the unit's numbers 2-12
could complete a candidate).
"""
from __future__ import annotations

import hashlib
import math
import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import chain

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from anyascii import anyascii

from audit.cache import cached_arrays

# A number in ASCII or full-width digits (digit groups joined by one separator each; not part of
# a time, date, range, version or identifier: 07:21:23, 28/01, 9-14, MiG-19, task1) ...
# (the first digit is matched before the look-behind: one test per digit, not per character)
_NUMBER = re.compile(r"[0-9０-９](?<![A-Za-z0-9０-９_:/\-–.,][0-9０-９])[0-9０-９]*"
                     r"(?:[.,\u00a0\u202f\u2009' ][0-9０-９]+)*(?![A-Za-z0-9０-９_]|[:/\-–][0-9０-９])")
_DIGITS = "[0-9０-９]"  # (what every number holds)
# _NUMBER for a text of ASCII characters alone (the same matches there: its other characters are
# not ASCII), a quarter faster (an ASCII class is tested faster at every position).
_NUMBER_ASCII = re.compile(r"[0-9](?<![A-Za-z0-9_:/\-.,][0-9])[0-9]*(?:[.,' ][0-9]+)*(?![A-Za-z0-9_]|[:/\-][0-9])")


def _number_regex(text: str) -> re.Pattern:
    """_NUMBER, or _NUMBER_ASCII where `text` is ASCII (str.isascii: a flag, no scan)."""
    return _NUMBER_ASCII if text.isascii() else _NUMBER


def number_strings(text: str) -> list[str]:
    """Every number of `text` as written (_NUMBER.findall)."""
    return _number_regex(text).findall(text)
# ... or a capitalised Latin-script word.
_CAPITAL = re.compile(r"[A-ZÀ-ÖØ-Þ](?<![\w][A-ZÀ-ÖØ-Þ])[a-zà-öø-ÿ]{2,}(?![\w])")
# Lower-case words (a capitalised word whose lower-case form is one is no name) and the
# separators of digit groups.
# (the first letter is matched before the look-behind, as in _NUMBER)
_LOWER = re.compile(r"[a-zà-öø-ÿ](?<![\w][a-zà-öø-ÿ])[a-zà-öø-ÿ]{2,}(?![\w])")
_SEPARATORS = re.compile(r"[.,\u00a0\u202f\u2009' ]")
# What stands between two numbers of a list (no word, no currency sign).
_LIST_GAP = re.compile(r"[\s,;.()%]*")
# Code, markup and tables (doctest output, a reST table): no word problem's window holds these,
# and a number on such a line (or an indented one) is no key.
_CODE = re.compile(r">>>|::|[\[\]{}=|<>_\\]")
_INDENT = re.compile(r"[ \t]{3,}")


# Number words: read from num2words (the cardinals 2-99, the hundreds and 1000 of each language it
# writes, spaced scripts only) per language; the words of a record's identified language are read in
# it (the `language` column), the _FALLBACK languages' where none is known (no language stage, a
# language undetermined or without words): a number word of one language is an everyday word of
# another (it "due", nl "elf", tr "on"). One is left out in every language: it is an article or
# pronoun (a, ein, un, een, один) more often; ordinals are no count (pt "segundo", en "second" are
# as often the unit of time, "the second month" no quantity): read in no language, units included.
_FALLBACK = ("en", "de", "es", "fr", "ru")  # the languages the tier was first written for
# What the library lacks: inflected forms and words of "times".
_HAND: dict[str, dict[str, float]] = {
    "en": {"twice": 2},
    "de": {"zweimal": 2, "dreimal": 3, "viermal": 4, "fünfmal": 5, "zehnmal": 10},
    "es": {"ciento": 100, "veintiún": 21},
    "ru": {"две": 2, "двух": 2, "двумя": 2, "вдвое": 2, "втрое": 3, "трёх": 3, "трех": 3, "четырёх": 4, "четырех": 4,
           "пяти": 5, "шести": 6, "семи": 7, "восьми": 8, "девяти": 9, "десяти": 10, "двадцати": 20, "тридцати": 30},
}
# Where no language is known, a word of the other _FALLBACK languages this frequent in English (Zipf:
# once in 300,000 words) is an English word, no number: es once (11), fr cent(s), sept, de elf, es mil, dos.
_ENGLISH_WORD = 3.5
# Language labels (lid.176, lingua) -> num2words' codes where they differ.
_ALIASES = {"nb": "no", "nn": "no", "kk": "kz"}
# Scripts written without spaces between words (no word boundary to read a number word at: ko 이
# "two" is a particle) or with combining marks (Indic: Python's \w stops inside a word); Chinese
# numerals are read apart (han_value).
_UNSPACED = re.compile("[\u0900-\u0dff\u0e00-\u0eff\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def _trie_regex(words: Iterable[str]) -> str:
    """One regular expression for `words`, their common prefixes factored out (a flat alternation of
    hundreds of words is tried branch by branch at every position of a text: a hundred times slower)."""
    trie: dict = {}
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def walk(node: dict) -> str:
        alts = [re.escape(ch) + walk(sub) for ch, sub in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body
    return walk(trie)


@lru_cache(maxsize=None)
def _library_words(lang: str) -> tuple[dict[str, float], frozenset[str], bool]:
    """(number word -> value, the words that join a compound: "e", "y", "og", whether its teens are
    ten and a unit: tr on iki, vi mười hai) of one language as num2words writes it (its regional
    variants merged: pt_BR, fr_BE); none for a language it does not write or writes in an unspaced
    script. A word read as two values is left out."""
    from num2words import CONVERTER_CLASSES, num2words
    codes = [c for c in CONVERTER_CLASSES if c.split("_")[0] == lang]
    values: dict[str, set[float]] = {}
    phrases: list[str] = []
    for code in codes:
        def say(v: int, code: str = code) -> str:
            return num2words(v, lang=code).lower()
        for v in [*range(2, 100), *range(100, 1000, 100), 1000]:
            w = say(v)
            values.setdefault(w, set()).add(v)
            phrases.append(w)
            if " " in w and v in (100, 1000):  # "one hundred", "o sută", "одна тысяча": the word alone
                values.setdefault(w.split()[-1], set()).add(v)
        for m in (100, 1000):  # the multiplier after a number: "hundert" of zweihundert, "tysiące" of dwa tysiące
            for k in (2, 3, 5):
                w, head = say(k * m), say(k)
                rest = w[len(head):].strip(" -") if w.startswith(head) else ""
                if len(rest) > 2 and not rest[0].isdigit():
                    values.setdefault(rest, set()).add(m)
        phrases += [say(v) for v in (101, 121, 345)]  # (what joins the hundreds to the rest)
    if not values or any(_UNSPACED.search(w) for w in values):
        return {}, frozenset(), False
    out = {w: vs.pop() for w, vs in values.items() if len(vs) == 1}
    for w in [w for w in out if "'" in w]:  # Ukrainian п'ять is as often written п’ять
        out.setdefault(w.replace("'", "\u2019"), out[w])
    # (the short words between the numbers of a phrase: "one" and "cento" of "cento e um" are none)
    ones = {num2words(1, lang=code).lower() for code in codes}
    joins = frozenset(t for p in phrases for t in re.split(r"[ -]", p) if 0 < len(t) <= 3 and t not in out
                      and t not in ones)
    return out, joins, all(num2words(12, lang=c).startswith(num2words(10, lang=c)) for c in codes)


def _everyday_english(words: frozenset[str]) -> frozenset[str]:
    """Those of `words` at least _ENGLISH_WORD frequent in English: read from wordfreq once per
    machine into the cache folder (audit.cache), as importing it and reading its English list is
    0.4 s a process, in the driver's index build and in every worker."""
    from importlib.metadata import version

    def derive() -> dict[str, np.ndarray]:
        from wordfreq import zipf_frequency
        found = sorted(w for w in words if zipf_frequency(w, "en") >= _ENGLISH_WORD)
        return {"words": np.frombuffer("\n".join(found).encode(), dtype=np.uint8)}
    listed = hashlib.blake2b("\n".join(sorted(words)).encode(), digest_size=8).hexdigest()
    a = cached_arrays("number-words-english", f"wordfreq {version('wordfreq')}|{_ENGLISH_WORD}|{listed}", derive)
    return frozenset(w for w in a["words"].tobytes().decode().split("\n") if w)


@dataclass(frozen=True, eq=False)  # (compared, hashed by identity: one per language, cached)
class NumberWords:
    """The number words read in a record of one language (or of the _FALLBACK languages)."""

    value: dict[str, float]   # lower-case word or phrase -> its value
    join: re.Pattern          # what joins the words of one compound (twenty-five, cento e vinte)
    tens: frozenset[float]    # the values a unit after them adds to (twenty-five; on iki where teens are so written)
    # a number word (group 1) after a non-word character, read in the lower-cased text (case-insensitive
    # matching is three times slower)
    regex: re.Pattern
    # the same words for RE2 (a batch's texts in one pass, `texts_holding`), folding case and with ASCII \W
    # (Python's \W and the lower-case forms it reads are within these): a text it finds none in holds none
    re2: str

    @cached_property
    def any_case(self) -> re.Pattern:
        """`regex` folding case, compiled on first use (few texts need it: a text that lower-cases
        to another length, İ)."""
        return re.compile(self.regex.pattern, re.IGNORECASE)


def number_words(lang: str | None = None) -> NumberWords:
    """The number words read in a record whose identified language is `lang` (a lid.176 or ISO
    639-1 label; None, unknown or without words: the _FALLBACK languages'), built on first use."""
    return _number_words(lang)


@lru_cache(maxsize=None)  # (called with the argument always: f() and f(None) are two entries of a cache)
def _number_words(lang: str | None) -> NumberWords:
    """number_words, cached per label."""
    code = _ALIASES.get(lang, lang) if lang else None
    langs = (code,) if code and (_library_words(code)[0] or code in _HAND) else _FALLBACK
    if langs == _FALLBACK and lang is not None:
        return _number_words(None)  # (one table, one cache entry, for every language without words)
    value: dict[str, float] = {}
    joins: set[str] = set()
    clash: set[str] = set()
    tens = set(range(20, 100, 10))
    for la in langs:
        words, js, teens = _library_words(la)
        joins |= js
        tens |= {10} if teens else set()
        for w, v in chain(words.items(), _HAND.get(la, {}).items()):
            if value.setdefault(w, v) != v:
                clash.add(w)
    value = {w: v for w, v in value.items() if w not in clash}
    if lang is None:  # no language known (or an eval unit): English likeliest, its everyday words no number
        english = _library_words("en")[0].keys() | _HAND["en"].keys()
        everyday = _everyday_english(frozenset(value.keys() - english))
        value = {w: v for w, v in value.items() if w not in everyday}
    joins -= value.keys()
    trie = _trie_regex(value)
    # A number word (group 1) after a non-word character: the search tries the words only where a \W
    # stands, not a look-behind at every character (8% less); the text is read after a space.
    join = "|".join(re.escape(j) for j in sorted(joins, key=len, reverse=True))
    return NumberWords(value, re.compile(r"[ \t-]+" + (f"(?:(?:{join})[ \t-]+)?" if join else "")), frozenset(tens),
                       re.compile(r"\W(" + trie + r"(?!\w))"), r"(?i)(?:^|\W)(?:" + trie + r")(?:\W|$)")


_SMALL = frozenset(str(v) for v in range(2, 13))  # the numbers a translator spells out most
_UNIT_VALUES = frozenset(range(1, 10))
# Chinese numerals (after 第: an ordinal, no count); a lone 一 (one, a) and a lone 万/千/百 are no number
HAN_NUMERALS = "零〇一二两三四五六七八九十百千万"
_HAN_NUMBER = re.compile(f"[{HAN_NUMERALS}]+")
_HAN_DIGIT = {c: v for v, cs in enumerate(["零〇", "一", "二两", "三", "四", "五", "六", "七", "八", "九"]) for c in cs}
_HAN_UNIT = {"十": 10, "百": 100, "千": 1000, "万": 10000}


def han_value(run: str) -> int | None:
    """The value of a run of Chinese numerals (三千五百 -> 3500, 十二 -> 12, 二〇二三 -> 2023)."""
    if all(c in _HAN_DIGIT for c in run):  # digit by digit, as in a year
        return int("".join(str(_HAN_DIGIT[c]) for c in run)) if len(run) > 1 or run not in "一〇零" else None
    total = section = digit = 0
    for c in run:
        if c in _HAN_DIGIT:
            digit = _HAN_DIGIT[c]
        elif c == "万":
            total += (section + digit) * 10000
            section = digit = 0
        else:
            section += max(digit, 1) * _HAN_UNIT[c] if digit or c == "十" else 0
            digit = 0
    value = total + section + digit
    return value or None


def _key_of(value: float) -> str:
    """The key of a number's value, as number_keys writes it (12 -> "12", 0.5 -> "0.5")."""
    return str(int(value)) if value == int(value) else f"{value:g}"


def word_numbers(text: str, han: bool = True, words: bool = True, lang: str | None = None
                 ) -> list[tuple[str, int, int]]:
    """(number key, start, end) of every number written in words in `text` (a compound as one);
    `han`: whether it may hold a Chinese numeral, `words`: a number word of `lang`'s (False: surely
    none, that scan left out), `lang`: the text's identified language (`number_words`)."""
    table = number_words(lang)
    out: list[tuple[str, int, int]] = []
    run: list[tuple[float, int, int]] = []

    def close() -> None:
        if run:
            total = current = 0.0
            for v, _, _ in run:
                if v in (100, 1000):
                    current = max(current, 1) * v
                    if v == 1000:
                        total, current = total + current, 0
                else:
                    current += v
            out.append((_key_of(total + current), run[0][1], run[-1][2]))
            run.clear()
    lower = text.lower() if words else ""
    # (a few characters lower-case to two, İ: then offsets would shift, and case is folded by the regex)
    plain = len(lower) == len(text)
    read = lower if plain else text
    for m in (table.regex if plain else table.any_case).finditer(" " + read) if words else ():
        start, end = m.start(1) - 1, m.end(1) - 1  # (offsets in `read`, after the space)
        v = table.value.get(read[start:end].lower())
        if v is None:  # matched by case folding alone (Turkish dotless ı for i): no number word
            continue
        # a run goes on when joined by a space, hyphen or "and", and the value fits (twenty-five, not five-twenty)
        last = run[-1][0] if run else 0
        if run and table.join.fullmatch(text, run[-1][2], start) and (
                v in (100, 1000) or last in table.tens and v in _UNIT_VALUES or last % 100 == 0 and v < 100):
            run.append((v, start, end))
            continue
        close()
        run.append((v, start, end))
    close()
    for m in _HAN_NUMBER.finditer(text) if han else ():
        v = han_value(m.group())
        if v is not None and not (len(m.group()) == 1 and m.group() in "万千百") and text[m.start() - 1:m.start()] != "第":
            out.append((str(v), m.start(), m.end()))
    return out


# Transliterated names: a capitalised Cyrillic or Greek word, a run of the characters Chinese writes
# foreign names with (the Xinhua transliteration table's commonest), or a run of katakana (the
# script Japanese writes foreign names and words in), read as Latin by anyascii.
_CYRILLIC_NAME = re.compile(r"(?<![\w])(?:[А-ЯЁ][а-яё]{2,}|[Α-ΩΆΈΉΊΌΎΏ][α-ωάέήίόύώϊϋΐΰς]{2,})(?![\w])")
# (katakana letters, the long-vowel mark inside a run; ・ parts given and family names: each a name)
_KATAKANA_NAME = re.compile(r"[\u30a1-\u30fa][\u30a1-\u30fa\u30fc]+")
HAN_NAME_CHARS = ("阿艾安奥巴拜班邦贝本比彼宾波伯博布达戴丹道德迪蒂丁杜多厄恩尔法菲费芬弗福盖甘戈格贡古哈海汉豪赫亨"
                   "胡华霍基吉加贾杰金卡凯坎康考柯科克肯库奎拉莱兰朗劳勒雷蕾里丽利莉林琳卢鲁伦罗洛玛马迈麦曼梅蒙米"
                   "敏莫姆穆纳娜南内妮尼娘诺欧帕潘佩彭皮珀普奇乔切琴丘萨塞桑瑟莎沙史斯苏索塔泰汤唐特提汀图托瓦冈娅"
                   "万威韦维温沃乌西希谢辛休雅亚扬耶伊英尤约泽扎詹朱兹佐")
_HAN_NAME = re.compile(f"[{HAN_NAME_CHARS}]{{2,6}}")
_HAN_ANY = re.compile(r"[\u4e00-\u9fff]")
_FOREIGN = re.compile("[А-ЯЁΑ-Ω\u4e00-\u9fff\u30a1-\u30fa]")  # (the characters themselves, not escapes: RE2 reads it too)
_SOUND_RULES = [(re.compile(a), b) for a, b in (
    # (Greek writes a foreign name's g, d at its start and b anywhere as γκ, ντ, μπ: Γκούντερ, Ντέιβιντ, Ρόμπερτ)
    (r"^gk", "g"), (r"^nt", "d"), (r"mp", "b"),
    (r"dzh|dj|zh|j", "j"), (r"tsch|sch|sh|ch|z|x|c(?=[eiy])", "s"), (r"ph", "f"), (r"th", "t"), (r"ck|c|q", "k"),
    (r"ng", "n"), (r"r", "l"), (r"w", "v"), (r"[aeiouyh'`]", ""), (r"(.)\1+", r"\1"))]


@lru_cache(maxsize=1 << 16)  # the parts of Chinese runs recur: most calls are repeats
def sound_key(name: str) -> str:
    """A name's loose sound skeleton across scripts: its Latin transliteration's consonants, with
    what transliteration confuses merged, its first three (Kylar, Кайлар, 凯拉 -> "kl"; Jill,
    Джилл, 吉尔 -> "jl"; Raymond, Раймонда, 雷蒙德 -> "lmn")."""
    s = anyascii(name).lower()
    for rx, to in _SOUND_RULES:
        s = rx.sub(to, s)
    return s[:3]  # endings differ by case and by transliteration (Саманты, 萨曼莎 ~ Samantha)


def sound_keys(name: str) -> set[str]:
    """A Latin-script name's sound skeletons: `sound_key`, and where it writes "th", the skeleton
    with th as s as well: Russian and Greek keep a t (Синтия), Japanese and Chinese, which have
    no such sound, write an s (シンシア, 辛西娅 ~ Cynthia; スミス ~ Smith)."""
    keys = {sound_key(name)}
    if "th" in name.lower():
        keys.add(sound_key(re.sub("th", "s", name, flags=re.IGNORECASE)))
    return keys


def foreign_names(text: str) -> Iterable[tuple[str, int, int]]:
    """(sound key, start, end) of each name-like word of `text` in Cyrillic or Greek (capitalised,
    its lower-case form not in the text), Chinese (a run of transliteration characters, and every
    part of it of 2-4 characters) or katakana (a run)."""
    if not _FOREIGN.search(text):  # one scan for every script (most texts have none)
        return
    for m in _KATAKANA_NAME.finditer(text):
        yield sound_key(m.group()), m.start(), m.end()
    if _CYRILLIC_NAME.search(text):
        lower = text.lower()
        for m in _CYRILLIC_NAME.finditer(text):
            w = m.group()
            if w.lower() + " " not in lower or text.count(w) == lower.count(w.lower()):
                yield sound_key(w), m.start(), m.end()
    if _HAN_ANY.search(text):
        for m in _HAN_NAME.finditer(text):
            run, a = m.group(), m.start()
            for n in range(2, min(4, len(run)) + 1):
                for i in range(len(run) - n + 1):
                    yield sound_key(run[i:i + n]), a + i, a + i + n


# Words per RE2 pattern (`_holding`): a few thousand words compile in milliseconds.
_RE2_WORDS = 2000
# A language's number words are looked for by RE2 first in this many texts or more (its pattern
# compiles in about a millisecond, the time Python's regex takes to read some 20 texts).
_RE2_MIN_TEXTS = 16


def _holding(texts: pa.Array, words: Iterable[str]) -> np.ndarray:
    """Per text, whether RE2 (pyarrow, one pass over all) finds one of `words` (letters) between two
    non-word characters: a looser test than a Python regex's look-arounds (Python's \\w holds
    more than ASCII's), so a text it passes over holds none of them as a word."""
    words = sorted(words)
    hit = np.zeros(len(texts), dtype=bool)
    for k in range(0, len(words), _RE2_WORDS):
        pattern = "(?:^|[^A-Za-z0-9_])(?:" + "|".join(words[k:k + _RE2_WORDS]) + ")(?:[^A-Za-z0-9_]|$)"
        hit |= texts_holding(texts, pattern)
    return hit


def texts_holding(texts: pa.Array | pa.ChunkedArray, pattern: str) -> np.ndarray:
    """Per text, whether RE2 (pyarrow, one pass over all) finds `pattern` in it (None: False)."""
    return pc.fill_null(pc.match_substring_regex(texts, pattern), False).to_numpy(zero_copy_only=False)


def _lower_words(texts: Sequence[str], candidates: set[str], docs: int = 1) -> set[str]:
    """The `candidates` that stand as lower-case words (_LOWER) in `docs` of `texts` or more:
    _LOWER reads only the texts `_holding` a candidate not yet found so often, in chunks that grow
    as the candidates left get rarer (most are found early: "what", "the")."""
    left = {c for c in candidates if _LOWER.fullmatch(c)}
    seen: Counter = Counter()
    out: set[str] = set()
    at, step = 0, 64
    while left and at < len(texts):
        part = texts[at:at + step]
        at, step = at + step, step * 4
        for k in np.flatnonzero(_holding(pa.array(part, pa.string()), left)).tolist():
            found = left.intersection(_LOWER.findall(part[k]))
            seen.update(found)
            # (only those just counted can reach `docs`: 4.5 of 16 s for 14k items, counting them all)
            got = {c for c in found if seen[c] >= docs}
            out |= got
            left -= got
    return out


def _off_code_lines(text: str, hits: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """The hits (in text order) not on a line of `text` that is code, markup or a table row (or
    indented); each line is read once, however many hits it holds."""
    kept: list[tuple[int, int, int]] = []
    end, code = -1, False
    for h in hits:
        if h[0] > end:  # a new line
            a = text.rfind("\n", 0, h[0]) + 1
            end = text.find("\n", h[0])
            end = len(text) if end < 0 else end
            code = bool(_INDENT.match(text, a) or _CODE.search(text, a, end))
        if not code:
            kept.append(h)
    return kept


# A candidate holds this many distinct rare keys of the unit ...
_MIN_RARE = 1
# ... rare: held by at most this share of the units and of the sample's documents.
_RARE_SHARE = 0.05
# The unit's numbers are at least this share of the numbers between its first and last key found,
# and at most this share of those numbers follow the one before with no word between.
_KEY_SHARE = 0.75
_BARE_SHARE = 0.25
_MIN_DF = 3
# A match: this many distinct keys of the unit in one window (a unit with fewer is not indexed:
# two numbers are any news story's), this many of them numbers (names alone: weekdays, a cast) ...
_MIN_KEYS = 3
# ... and at least this share of the unit's keys (three numbers of a long problem are a coincidence)
_KEYS_SHARE = 0.5
_MIN_NUMBERS = 2
# ... whose rarity weights sum to this much (natural log units) ...
_MIN_WEIGHT = 12.0
# Of them, this many numbers of two digits or more with a name among the keys, and this many
# without one (a few such numbers meet by chance in any report, table or story; 1-9, in digits or
# words, are in any text that counts) ...
_MIN_STRONG_NAMED = 2
_MIN_STRONG_NUMBERS = 4
# ... and this share of its keys stand in the unit's order (the longest run of them in order, gaps
# allowed): a translation keeps the order of most quantities, a coincidence of numbers seldom does.
# (without a name, numbers are the only evidence: most of them in order)
_IN_ORDER = 0.6
_IN_ORDER_NUMBERS = 0.8
# ... or, with a name, this share of its pairs of keys in the unit's order: a language that puts a
# price before its count (Japanese 1ダース68ドルのドーナツを3ダース: 68 $ a dozen, 3 dozen) swaps
# neighbours, which breaks the longest run but few pairs; numbers in chance order keep half.
_PAIRS_IN_ORDER = 0.8
# A capitalised word right after a name: a surname or a second name (Steve Dower, Juan Carlos I) names
# another person than the unit's, unless the unit writes it so too; not in a language that
# capitalises its nouns (German "Toula Kuchen" is Toula's cake).
_NEXT_CAPITAL = re.compile(r"[ \u00a0]([A-ZÀ-ÖØ-Þ][\w.]*)")
_NOUNS_CAPITALISED = frozenset({"de", "lb"})
# Capitalised words that are no names (a date's, not an item's): weekdays and months.
_CALENDAR = frozenset("""monday tuesday wednesday thursday friday saturday sunday january february march april
june july august september october november december""".split())
# ... in a window of this many times the unit's characters (at least _MIN_WINDOW).
_WINDOW = 2.5
_MIN_WINDOW = 300


def number_keys(digits: str) -> list[str]:
    """The numbers a run of digit groups reads as, language-neutral: groups after the first all of
    three digits are thousands (5,000 = 5.000 = 5 000 = 5000); two groups otherwise a decimal
    (1,2 = 1.2, trailing zeros dropped); a run of dotted groups (a version, an address) none; any
    other run (1,2,3: a list) its groups."""
    groups = _SEPARATORS.split(digits)
    if len(groups) == 1:
        return [str(int(groups[0]))]
    if all(len(g) == 3 for g in groups[1:]):
        return [str(int("".join(groups)))]
    if len(groups) == 2:
        whole, frac = str(int(groups[0])), str(int(groups[1][::-1]))[::-1].rstrip("0")
        return [f"{whole}.{frac}" if frac else whole]
    if "." in digits:  # a version or an address (3.11.2, 192.0.2.1): no quantity
        return []
    return [str(int(g)) for g in groups]


def _number_keys_fast(g: str) -> Sequence[str]:
    """number_keys(g), most numbers (plain ASCII digits, no leading zero) being their own key."""
    return (g,) if g.isascii() and g.isdigit() and g[0] != "0" else number_keys(g)


def text_numbers(text: str) -> Iterable[tuple[str, int, int]]:
    """(number key, start, end) of every number of `text`."""
    for m in _number_regex(text).finditer(text):
        for k in _number_keys_fast(m.group()):
            yield k, m.start(), m.end()


def text_keys(text: str) -> Iterable[tuple[str, int, int]]:
    """(key, start, end) of every number and capitalised word of `text` (names not yet told from
    sentence-initial words: the index does that)."""
    yield from text_numbers(text)
    yield from word_numbers(text)
    for m in _CAPITAL.finditer(text):
        yield m.group(), m.start(), m.end()


def _in_order(seq: list[int]) -> int:
    """The length of the longest increasing subsequence of `seq` (patience sorting)."""
    tails: list[int] = []
    for x in seq:
        at = bisect_left(tails, x)
        tails[at:at + 1] = [x]
    return len(tails)


def _pairs_in_order(seq: list[int]) -> float:
    """The share of the pairs of `seq` that stand in increasing order (1.0 with fewer than two)."""
    n = len(seq)
    pairs = n * (n - 1) // 2
    return sum(1 for i in range(n) for j in range(i + 1, n) if seq[i] < seq[j]) / pairs if pairs else 1.0


def _word_at(text: str, word: str) -> Iterable[int]:
    """Where `word` stands in `text` as a whole word (str.find: no regex scan per name)."""
    at = text.find(word)
    while at >= 0:
        end = at + len(word)
        if (at == 0 or not text[at - 1].isalnum()) and (end == len(text) or not text[end].isalnum()):
            yield at
        at = text.find(word, at + 1)


@dataclass
class KeyIndex:
    """Per unit its language-neutral keys (numbers, names) with rarity weights; postings of the rare ones."""

    key_id: dict[str, int]          # key -> id
    names: list[str]                # per key id, its text (evidence)
    weight: list[float]             # per key id
    rare_units: dict[int, np.ndarray]  # rare key id -> units holding it (int32)
    unit_keys: list[dict[int, list[list[int]]]]  # per unit: key id -> its [start, end) spans in the unit
    unit_total: list[float]         # per unit: its keys' weight
    unit_chars: list[int]
    name_keys: frozenset[str]       # the keys that are names
    unit_total_arr: np.ndarray      # float64, unit_total as an array
    unit_need: np.ndarray           # int32, per unit: distinct keys a window must hold (_MIN_KEYS, _KEYS_SHARE of its keys)
    sound: dict[str, list[int]]     # sound skeleton -> the name keys it stands for in Cyrillic, Greek, Chinese or katakana text
    name_ids: frozenset[int] = frozenset()  # the ids of name_keys
    unit_small: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))  # per unit: its keys 2-12
    unit_small_weight: np.ndarray = field(default_factory=lambda: np.zeros(0))  # per unit: their weight
    unit_teens: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))  # per unit: its keys 10-12
    name_next: dict[int, frozenset[str]] = field(default_factory=dict)  # name key -> the capitalised words after it in units

    @classmethod
    def build(cls, texts: Sequence[str], indexed: Sequence[bool], sample: Sequence[str] | None = None) -> "KeyIndex":
        """Index the keys of the units `indexed` (bool per unit) of `texts`; `sample`: corpus
        documents, for the rarity of keys and the words that are not names."""
        found = [list(text_keys(t)) if on else [] for t, on in zip(texts, indexed)]
        # the capitalised words that are lower-case words somewhere (only those kept: a set of
        # every word of the sample would cost more than reading them)
        capitals = {k.lower() for keys in found for k, _, _ in keys if not k[0].isdigit()}
        lower = _lower_words(list(texts), capitals)
        # (in the sample, a word lower-case in _MIN_DF documents: Gloria and John stand so in a Latin
        # hymn or a slang page once, will and may in most; the chunks grow anew: sample texts are longer)
        lower |= _lower_words(list(sample or ()), capitals - lower, _MIN_DF)
        unit_keys: list[dict[str, list[list[int]]]] = []
        for unit_found in found:
            keys: dict[str, list[list[int]]] = {}
            for k, a, b in unit_found:
                if k[0].isdigit() or k.lower() not in lower and k.lower().rstrip("s") not in _CALENDAR:
                    keys.setdefault(k, []).append([a, b])
            unit_keys.append(keys if len(keys) >= _MIN_KEYS else {})
        n_units = max(1, sum(1 for k in unit_keys if k))
        df = Counter(k for keys in unit_keys for k in keys)
        key_id = {k: i for i, k in enumerate(df)}
        sdf: Counter = Counter()
        indexed_keys = frozenset(key_id)  # (a set: intersecting a dict walks all of it)
        named = _holding(pa.array(list(sample or ()), pa.string()), (k for k in key_id if not k[0].isdigit())) \
            if sample else []
        for t, has_name in zip(sample or (), named):
            # numbers in digits and names (number words are no rare key: 2-12 are in
            # most documents; reading them in thousands of documents would double the build)
            keys = {k for g in set(number_strings(t)) for k in _number_keys_fast(g)}
            if has_name:
                keys.update(_CAPITAL.findall(t))
            sdf.update(keys.intersection(indexed_keys))
        n_sample = len(sample or ())
        weight, rare = [], []
        for k in key_id:
            w = math.log((n_units + 1) / (df[k] + 1))
            if n_sample:
                w = min(w, math.log((n_sample + 1) / (sdf[k] + 1)))
            weight.append(max(0.0, w))
            rare.append(df[k] <= max(_MIN_DF, _RARE_SHARE * n_units)
                        and (not n_sample or sdf[k] <= max(_MIN_DF, _RARE_SHARE * n_sample)))
        postings: dict[int, list[int]] = {}
        ids = [{key_id[k]: spans for k, spans in keys.items()} for keys in unit_keys]
        for u, keys in enumerate(ids):
            for i in keys:
                if rare[i]:
                    postings.setdefault(i, []).append(u)
        rare_units = {i: np.array(us, dtype=np.int32) for i, us in postings.items()}
        # names as Cyrillic, Greek, Chinese or katakana write them: by a sound skeleton of two consonants or more,
        # unless the sample's Cyrillic/Chinese words often read as it (a common word, not a name)
        sound: dict[str, list[int]] = {}
        for k, i in key_id.items():
            for sk in () if k[0].isdigit() else sound_keys(k):
                if len(sk) >= 2:
                    sound.setdefault(sk, []).append(i)
        fdf = Counter(sk for t in sample or () for sk in {sk for sk, _, _ in foreign_names(t)} if sk in sound)
        sound = {sk: ids for sk, ids in sound.items() if fdf[sk] <= max(_MIN_DF, _RARE_SHARE * n_sample)}
        name_set = {i for k, i in key_id.items() if not k[0].isdigit()}
        small = {key_id[k] for k in _SMALL if k in key_id}
        teens = {i for k, i in key_id.items() if k in _SMALL and len(k) > 1}
        name_next: dict[int, set[str]] = {}
        for text, keys in zip(texts, ids):
            for i, spans in keys.items():
                if i in name_set:
                    name_next.setdefault(i, set()).update(m.group(1) for _, b in spans
                                                          if (m := _NEXT_CAPITAL.match(text, b)))
        return cls(key_id, list(key_id), weight, rare_units, ids,
                   [sum(weight[i] for i in keys) for keys in ids], [len(t) for t in texts],
                   frozenset(k for k in key_id if not k[0].isdigit()),
                   np.array([sum(weight[i] for i in keys) for keys in ids], dtype=np.float64),
                   np.array([max(_MIN_KEYS, math.ceil(_KEYS_SHARE * len(keys))) for keys in ids], dtype=np.int32),
                   sound, frozenset(name_set),
                   np.array([sum(1 for i in keys if i in small) for keys in ids], dtype=np.int32),
                   np.array([sum(weight[i] for i in keys if i in small) for keys in ids]),
                   np.array([sum(1 for i in keys if i in teens) for keys in ids], dtype=np.int32),
                   {i: frozenset(w) for i, w in name_next.items()})

    def matches_many(self, texts: Sequence[str | None], floor: float, column: pa.Array | pa.ChunkedArray | None = None,
                     languages: Sequence[str | None] | None = None
                     ) -> Iterable[tuple[int, int, float, list[int], list[list[int]], list[str]]]:
        """(text index, unit, coverage, record span, unit spans, keys found) of each text of `texts`
        and unit whose keys the best window of the text holds (see `matches`). The texts' keys are
        read one text at a time, the units they could make candidates of tallied for all at once.
        `column`: `texts` as an Arrow array when at hand (the RE2 passes read it); `languages`: each
        text's identified language (the language stage's column), whose number words are read in
        it (None: the _FALLBACK languages' in every text)."""
        # A first look, by one findall each: the units holding enough of the text's keys (by
        # count and by weight, wherever they stand); most texts stop here.
        key_id = self.key_id
        # (with the Arrow column at hand, only the texts RE2 finds a digit in are read)
        digits = texts_holding(column, _DIGITS) if column is not None else np.ones(len(texts), dtype=bool)
        numbered = [(t, present) for t, (text, some) in enumerate(zip(texts, digits.tolist())) if text and some and (
            present := {key_id[k] for g in set(number_strings(text)) for k in _number_keys_fast(g) if k in key_id})]
        # (names are read only in the texts RE2 finds one of the units' names in, the other scripts'
        # ones in the texts it finds those scripts in: one pass for all)
        arr = None if not numbered else pa.array([texts[t] for t, _ in numbered], pa.string()) if column is None \
            else column.take(pa.array([t for t, _ in numbered], pa.int64()))
        named = _holding(arr, self.name_keys).tolist() if numbered and self.name_keys else [False] * len(numbered)
        scripts = texts_holding(arr, _FOREIGN.pattern).tolist() if numbered and self.sound else [False] * len(numbered)
        looked, at = [], []  # (at: each looked text's row in arr)
        for k, ((t, present), has_name, foreign) in enumerate(zip(numbered, named, scripts)):
            if (seen := self._first_look(texts[t] or "", present, has_name, foreign)) is not None:
                looked.append((t, *seen))
                at.append(k)
        if not looked:
            return
        # numbers in words (a slower read) where they could make a candidate: with the unit's small
        # numbers (2-12, what a translator spells out) added, it would hold enough
        doc, units, n_rare, held, got, n_strong, need_strong = self._tally([present for _, present, _, _ in looked])
        could = self._enough(units, n_rare, held + self.unit_small[units], got + self.unit_small_weight[units], floor) \
            & (n_strong + self.unit_teens[units] >= need_strong)
        cut = np.searchsorted(doc, np.arange(len(looked) + 1))  # the tally's rows of each text
        read = np.unique(doc[could]).tolist()
        # (number words and Chinese numerals are looked for only in the texts RE2 finds one in)
        reading = arr.take(pa.array([at[j] for j in read], pa.int64()))
        langs = [None if languages is None else languages[looked[j][0]] for j in read]
        # (one RE2 pass per language's words, over the texts of that language)
        tables = [number_words(la) for la in langs]
        worded = np.zeros(len(read), dtype=bool)
        for table in {id(x): x for x in tables}.values():
            mine = np.array([x is table for x in tables])
            # (a few texts are read in Python at once: compiling the pattern for RE2 costs more)
            worded[mine] = texts_holding(reading.filter(pa.array(mine)), table.re2) \
                if mine.sum() >= _RE2_MIN_TEXTS else True
        han = texts_holding(reading, _HAN_NUMBER.pattern)
        for j, has_words, has_han, lang in zip(read, worded.tolist(), han.tolist(), langs):
            t, present, names, foreign = looked[j]
            rows = slice(int(cut[j]), int(cut[j + 1]))
            tally = (units[rows], n_rare[rows], held[rows], got[rows], n_strong[rows], need_strong[rows])
            for match in self._confirm(texts[t] or "", present, names, foreign, floor, tally, has_han, has_words,
                                       lang):
                yield (t, *match)

    def _first_look(self, text: str, present: set[int], has_name: bool, has_script: bool
                    ) -> tuple[set[int], set[int], list[tuple[int, int, int]]] | None:
        """(key ids in `text`: `present`, its numbers in digits that are keys (some), and its names;
        its Latin-script names; its Cyrillic, Greek, Chinese or katakana names as (start, end, key id)), or None
        when no unit can be a candidate. `has_name`: whether it may hold a Latin-script name of the
        units (False: RE2 found none, `_holding`); `has_script`: whether it holds a capital Cyrillic
        letter or a Chinese character (_FOREIGN)."""
        key_id = self.key_id
        names = {key_id[g] for g in set(_CAPITAL.findall(text)).intersection(self.name_keys)} if has_name else set()
        present |= names
        # names in Cyrillic, Greek, Chinese or katakana (only a text in those scripts is read for them)
        foreign = [(a, b, i) for sk, a, b in foreign_names(text) for i in self.sound.get(sk, ())] \
            if self.sound and has_script else []
        present.update(i for _, _, i in foreign)
        if not any(i in self.rare_units for i in present):  # no unit can be a candidate
            return None
        return present, names, foreign

    def _confirm(self, text: str, present: set[int], names: set[int], foreign: list[tuple[int, int, int]],
                 floor: float, tally: tuple[np.ndarray, ...], han: bool = True, words: bool = True,
                 lang: str | None = None) -> Iterable[tuple[int, float, list[int], list[list[int]], list[str]]]:
        """`matches` of one text past the first look (`_first_look`'s sets, `tally`: `_tally`'s
        rows of the text; `han`, `words`: whether it may hold a Chinese numeral, a number word of
        its language `lang`'s): its numbers in words, then the best window of each candidate."""
        key_id = self.key_id
        units, n_rare, held, got, n_strong, need_strong = tally
        worded = [(key_id[k], a, b) for k, a, b in word_numbers(text, han, words, lang) if k in key_id]
        new = {i for i, _, _ in worded} - present
        present |= new
        if sum(1 for i in present if self.names[i][0].isdigit()) < _MIN_NUMBERS:
            return
        if any(i in self.rare_units for i in new):
            _, units, n_rare, held, got, n_strong, need_strong = self._tally([present])
        elif new:  # common keys only: every unit holds them at most
            held, got = held + len(new), got + sum(self.weight[i] for i in new)
            n_strong = n_strong + sum(1 for i in new if self._strong(i))
        ok = self._enough(units, n_rare, held, got, floor) & (n_strong >= need_strong)
        cands = []
        for u in units[ok].tolist():
            mine = present.intersection(self.unit_keys[u])
            if len(mine) >= self.unit_need[u] and sum(self.weight[i] for i in mine) >= \
                    max(_MIN_WEIGHT, floor * self.unit_total[u]) and self._strong_enough(mine):
                cands.append(u)
        if not cands:
            return
        wanted = {i for u in cands for i in self.unit_keys[u]}
        numbers: list[tuple[int, int]] = []  # (start, end) of each number of the text
        hits: list[tuple[int, int, int]] = []  # (start, end, key id) of each key of the candidates
        for k, a, b in text_numbers(text):
            # a 1 is no figure of a list (1 dozen, 1つ, 1 each: how languages say "per"), as "one" is no number word
            if (not numbers or numbers[-1][0] != a) and k != "1":
                numbers.append((a, b))
            if key_id.get(k, -1) in wanted:
                hits.append((a, b, key_id[k]))
        if worded:
            numbers = sorted(set(numbers + [(a, b) for _, a, b in worded]))
            hits = sorted(hits + [(a, b, i) for i, a, b in worded if i in wanted])
        # numbers on lines of code, markup or tables are no word problem's
        hits = _off_code_lines(text, hits)
        surnames = lang not in _NOUNS_CAPITALISED
        for i in names & wanted:
            w = self.names[i]
            hits += ((a, a + len(w), i) for a in _word_at(text, w) if not surnames or not (
                m := _NEXT_CAPITAL.match(text, a + len(w))) or m.group(1) in self.name_next.get(i, ()))
        hits += (h for h in foreign if h[2] in wanted)
        hits.sort()
        by_key: dict[int, list[tuple[int, int, int]]] = {}  # each key's hits (a unit's are gathered from them)
        for h in hits:
            by_key.setdefault(h[2], []).append(h)
        present = set(by_key)
        for u in cands:
            keys = self.unit_keys[u]
            mine = present.intersection(keys)
            # the weight of all its keys in the text (off code lines) bounds the best window's
            # (and the numbers of two digits or more of all of them bound the window's: _strong_enough)
            if len(mine) < self.unit_need[u] or sum(self.weight[i] for i in mine) < \
                    max(_MIN_WEIGHT, floor * self.unit_total[u]) or not self._strong_enough(mine):
                continue
            best = self._best_window(u, sorted(chain.from_iterable(by_key[i] for i in mine)))
            if best is None or best[0] < max(_MIN_WEIGHT, floor * self.unit_total[u]):
                continue
            got, window = best
            found = {i for _, _, i in window}
            named = not self.name_ids.isdisjoint(found)
            if not self._strong_enough(found):
                continue
            a, b = window[0][0], window[-1][1]
            # a table, a list of figures or page numbers holds any numbers: the unit's numbers must
            # be most of the numbers where they are found, ...
            first = bisect_left(numbers, (a, -1))
            last = bisect_right(numbers, (b, b))
            n_mine = sum(1 for _, _, i in window if self.names[i][0].isdigit())
            # ... words (or currency signs) stand between them (a list of figures has none: 10, 15, 20)
            bare = sum(1 for n in range(first, last - 1)
                       if _LIST_GAP.fullmatch(text, numbers[n][1], numbers[n + 1][0]))
            if len({i for i in found if self.names[i][0].isdigit()}) < _MIN_NUMBERS \
                    or n_mine < _KEY_SHARE * (last - first) or bare > _BARE_SHARE * max(1, last - first - 1) \
                    or _CODE.search(text, a, b):
                continue
            seq = [keys[i][0][0] for i in dict.fromkeys(i for _, _, i in window)]
            in_order = _in_order(seq)
            if in_order < (_IN_ORDER if named else _IN_ORDER_NUMBERS) * len(found) and not (
                    named and _pairs_in_order(seq) >= _PAIRS_IN_ORDER):
                continue
            spans = sorted(s for i in found for s in keys[i])
            rarest = sorted(found, key=lambda i: -self.weight[i])[:10]
            yield u, got / self.unit_total[u], [a, b], spans, ["keys " + " ".join(self.names[i] for i in rarest),
                                                              f"in order {in_order} of {len(found)}"]

    def _strong_enough(self, keys: set[int]) -> bool:
        """Whether `keys` hold enough numbers of two digits or more: _MIN_STRONG_NAMED with a name
        among them, _MIN_STRONG_NUMBERS without one."""
        strong = sum(1 for i in keys if self._strong(i))
        return strong >= (_MIN_STRONG_NUMBERS if self.name_ids.isdisjoint(keys) else _MIN_STRONG_NAMED)

    @cached_property
    def _postings(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """rare_units as arrays (per key id, where its units start in the second, all units in key
        order; none for a common key) and per key id its weight, whether it is a number of two
        digits or more, whether it is a name (what `_tally` sums)."""
        n_keys = len(self.names)
        count = np.zeros(n_keys + 1, dtype=np.int64)
        for i, us in self.rare_units.items():
            count[i + 1] = len(us)
        at = np.cumsum(count)
        flat = np.concatenate([self.rare_units[i] for i in range(n_keys) if i in self.rare_units]) \
            if self.rare_units else np.zeros(0, dtype=np.int32)
        return (at, flat, np.array(self.weight, dtype=np.float64),
                np.array([self._strong(i) for i in range(n_keys)], dtype=np.float64),
                np.array([i in self.name_ids for i in range(n_keys)], dtype=np.float64))

    def _tally(self, presents: list[set[int]]) -> tuple[np.ndarray, ...]:
        """Per (text, unit) holding a rare key of the text's keys `presents[text]`, sorted: (text,
        unit; the unit's rare keys there, at most its keys there and at most their weight, wherever
        they stand, at most its numbers of two digits or more there and how many it needs
        (`_strong_enough`))."""
        at, flat, weight, strong, name = self._postings
        rare = [[i for i in present if i in self.rare_units] for present in presents]
        keys = np.fromiter(chain.from_iterable(rare), dtype=np.int64)
        lens = at[keys + 1] - at[keys]
        # every (text, unit) posting of the texts' rare keys, tallied by one sort
        offset = np.arange(int(lens.sum()), dtype=np.int64) - np.repeat(np.cumsum(lens) - lens, lens)
        post_key = np.repeat(keys, lens)
        n_units = len(self.unit_keys)
        text_of = np.repeat(np.repeat(np.arange(len(presents), dtype=np.int64), [len(r) for r in rare]), lens)
        pairs, inverse, n_rare = np.unique(text_of * n_units + flat[np.repeat(at[keys], lens) + offset],
                                           return_inverse=True, return_counts=True)
        text, units = np.divmod(pairs, n_units)
        size = len(pairs)
        # a unit's keys in the text: its rare ones (counted, weighed) and at most every common one
        common = [[i for i in present if i not in self.rare_units] for present in presents]
        got = np.bincount(inverse, weights=weight[post_key], minlength=size) \
            + np.array([sum(self.weight[i] for i in c) for c in common], dtype=np.float64)[text]
        n_strong = np.bincount(inverse, weights=strong[post_key], minlength=size) \
            + np.array([sum(1 for i in c if self._strong(i)) for c in common], dtype=np.float64)[text]
        named = (np.bincount(inverse, weights=name[post_key], minlength=size) > 0) \
            | np.array([not self.name_ids.isdisjoint(c) for c in common], dtype=bool)[text]
        held = n_rare + np.array([len(c) for c in common], dtype=np.int64)[text]
        return text, units, n_rare, held, got, n_strong, np.where(named, _MIN_STRONG_NAMED, _MIN_STRONG_NUMBERS)

    def _strong(self, i: int) -> bool:
        """Whether key i is a number of two digits or more."""
        return i not in self.name_ids and len(self.names[i]) > 1

    def _enough(self, units: np.ndarray, n_rare: np.ndarray, held: np.ndarray, got: np.ndarray,
                floor: float) -> np.ndarray:
        """Per unit of `_tally`, whether it may hold enough keys by count and weight (a bound: the
        exact sums, in another order, follow; hence a hair of slack)."""
        got = got + 1e-9
        return (n_rare >= _MIN_RARE) & (held >= self.unit_need[units]) & (got >= _MIN_WEIGHT) \
            & (got >= floor * self.unit_total_arr[units])

    def _best_window(self, u: int, mine: list[tuple[int, int, int]]) -> tuple[float, list[tuple[int, int, int]]] | None:
        """(weight, hits) of the window of `mine` (the text's hits of unit u's keys, in order) of
        the most distinct key weight, holding _MIN_KEYS distinct keys; None when none does."""
        width = max(_MIN_WINDOW, int(_WINDOW * self.unit_chars[u]))
        need = int(self.unit_need[u])
        weight = self.weight
        held: dict[int, int] = {}  # key -> its hits in the window (a plain dict: this loop is hot)
        got, lo = 0.0, 0
        best: tuple[float, int, int] | None = None
        for hi, (a, _, i) in enumerate(mine):  # windows ending at each hit
            n = held.get(i, 0)
            if not n:
                got += weight[i]
            held[i] = n + 1
            while a - mine[lo][0] > width:
                j = mine[lo][2]
                n = held[j] - 1
                if n:
                    held[j] = n
                else:
                    got -= weight[j]
                    del held[j]
                lo += 1
            if len(held) >= need and (best is None or got > best[0] + 1e-9):
                best = (got, lo, hi)
        if best is None:
            return None
        got, lo, hi = best
        # the tightest such window: a key's hit at an end whose key comes again inside is the page's
        # (a small number of the text around the leak), not the leak's: its order is no evidence
        hits = Counter(i for _, _, i in mine[lo:hi + 1])
        while hits[mine[lo][2]] > 1:
            hits[mine[lo][2]] -= 1
            lo += 1
        while hits[mine[hi][2]] > 1:
            hits[mine[hi][2]] -= 1
            hi -= 1
        return got, mine[lo:hi + 1]

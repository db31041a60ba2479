"""Contamination recall on rewritten leaks: eval items edited the ways leaks reach crawls.

    python bench/eval_contamination_rewrites.py --data ../shared/data [--hosts 3000 --leaks 1000] [--no-code]
        [--semantic] [--no-units] [--set KEY=VALUE] [--json]

Eval sets: GSM8K test (fields question, answer) and HumanEval (prompt, canonical_solution), all
items indexed, each field also a unit of its own (`--no-units`: the whole item only);
leaks are drawn only from the odd-numbered items (the even half is left for tuning). Hosts are
real prose (ABC news paragraphs and Python docs pages, full of code); a leak is planted into a host, the other hosts stay clean.
Rewrite kinds: verbatim, recased (case/punctuation), words20 (a fifth of the words replaced,
dropped or repeated), numbers (every number changed), reordered (sentences/lines shuffled),
split (the item cut in two, halves paragraphs apart), templated (chat template, a clause a
line), code_renamed (identifiers renamed, comments dropped, re-indented), and two variants of
our own: words10_reordered (both at once) and prefix60 (the first 60% of the item), and
paraphrase (GSM8K items with words and phrases swapped from a synonym table and opening clauses
moved to the end: a stand-in for a model's rewording that breaks most n-grams), and words33
(every third word replaced: no word 3-gram of the item left). Leaks of one part of an item:
question (a GSM8K question without its worked answer, verbatim), question_paraphrase and
question_words20 (that question paraphrased / a fifth of its words edited), prompt (a HumanEval
prompt, signature and docstring, without its solution). Ports written by people
(rewrites/humaneval_x_*.jsonl.gz): port_cpp, port_go, port_java, port_rust, the item's prompt
and solution in that language; port_cpp_code ... port_rust_code, the port's declaration and
solution only (no docstring: no English word of the item left, only names, literals and calls).
Prints item recall per kind and per method (among counted matches), false contaminated
hosts, and the stage's MB/s on this set (one process).
"""
from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audit.config import parse_config  # noqa: E402
from audit.stages.contamination import ContaminationIndex, ContaminationStage, counted  # noqa: E402

BATCH = 256
_VOCAB = ("river stone market letter window garden silver morning paper station orange winter "
          "bridge candle forest engine ladder museum pocket harbor").split()


def _words20(text: str, rng: random.Random, rate: float = 0.2) -> str:
    out = []
    for w in text.split(" "):
        r = rng.random()
        if r < rate / 3:
            out.append(rng.choice(_VOCAB))
        elif r < 2 * rate / 3:
            continue
        elif r < rate:
            out += [w, w]
        else:
            out.append(w)
    return " ".join(out)


def _numbers(text: str, rng: random.Random) -> str:
    return re.sub(r"\d+", lambda m: str(int(m.group()) + rng.randint(1, 97)), text)


def _pieces(text: str) -> list[str]:
    lines = [x for x in text.split("\n") if x.strip()]
    if len(lines) >= 4:
        return lines
    return [x for x in re.split(r"(?<=[.?!])\s+", text) if x.strip()]


def _reordered(text: str, rng: random.Random) -> str:
    p = _pieces(text)
    rng.shuffle(p)
    return "\n".join(p)


def _templated(text: str, rng: random.Random) -> str:
    clauses = [c.strip() for c in re.split(r"(?<=[,.;?!])\s+", text) if c.strip()]
    head = rng.choice(["<|user|>\nSolve the following problem step by step.", "### Instruction:\nAnswer the question below.",
                       "[INST] Please help me with this task: [/INST]"])
    return head + "\n" + "\n".join(clauses) + "\n<|assistant|>"


def _code_renamed(code: str, rng: random.Random) -> str:
    import keyword
    import builtins
    code = re.sub(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'', '""""""', code)
    code = re.sub(r"#[^\n]*", "", code)
    names = sorted({n for n in re.findall(r"\b[A-Za-z_]\w*\b", code)
                    if not keyword.iskeyword(n) and not hasattr(builtins, n) and n not in ("typing", "List", "self")})
    new = {n: f"v{rng.randint(100, 999)}_{i}" for i, n in enumerate(names)}
    code = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: new.get(m.group(), m.group()), code)
    lines = []
    for line in code.split("\n"):
        if not line.strip():
            continue
        depth = (len(line) - len(line.lstrip(" "))) // 4
        lines.append("  " * depth + line.strip())
    return "\n".join(lines)


# A paraphrase: words and phrases swapped for synonyms from this table (whole words, case kept),
# then in half the sentences holding a comma the opening clause moved to the end. Real paraphrases
# (a model rewording an item) change more than this; it is a stand-in that breaks most n-grams.
_SYNONYMS = dict(x.split(":") for x in (
    "how many:what number of|in total:altogether|more than:over|less than:under|twice:two times|has:owns|"
    "have:own|had:owned|buys:purchases|bought:purchased|buy:purchase|sells:trades|sold:traded|gets:receives|"
    "got:received|gives:hands|gave:handed|makes:produces|made:produced|spends:uses|spent:used|wants:wishes|"
    "needs:requires|need:require|takes:needs|earns:brings in|costs:is priced at|total:overall|money:cash|"
    "store:shop|house:home|friends:pals|friend:pal|children:kids|car:vehicle|big:large|large:big|small:little|"
    "starts:begins|started:began|finished:completed|remaining:left|quickly:fast|also:as well|then:afterwards|"
    "after:following|before:prior to|went:traveled|goes:travels|walks:strolls|ate:consumed|eats:consumes|"
    "answer:result|number:quantity|each:every|every:each|amount:quantity|week:seven days|month:calendar month|"
    "year:twelve months|hours:hrs|minutes:mins|dollars:bucks|price:cost|pays:hands over|paid:handed over|"
    "people:persons|students:pupils|class:group|school:academy|job:work|works:labors|worked:labored|"
    "decides:chooses|decided:chose|wants to:would like to|much:a lot|sell:trade").split("|"))
_SYN_RE = re.compile(r"\b(" + "|".join(sorted(map(re.escape, _SYNONYMS), key=len, reverse=True)) + r")\b", re.I)


def _paraphrase(text: str, rng: random.Random) -> str:
    def swap(m: re.Match) -> str:
        new = _SYNONYMS[m.group().lower()]
        return new[0].upper() + new[1:] if m.group()[0].isupper() else new
    out = []
    for sent in re.split(r"(?<=[.?!])\s+", _SYN_RE.sub(swap, text)):
        at = sent.find(", ")
        if 0 < at and rng.random() < 0.5 and sent[-1:] in ".?!":
            head, tail = sent[:at], sent[at + 2:-1]
            sent = tail[:1].upper() + tail[1:] + ", " + head[:1].lower() + head[1:] + sent[-1]
        out.append(sent)
    return " ".join(out)


def _load(data: Path) -> tuple[list[dict], list[dict]]:
    with open(data / "evals/gsm8k_test.jsonl", encoding="utf-8") as f:
        gsm = [json.loads(x) for x in f if x.strip()]
    with gzip.open(data / "evals/HumanEval.jsonl.gz", "rt", encoding="utf-8") as f:
        he = [json.loads(x) for x in f if x.strip()]
    ports: dict[str, dict[str, str]] = {}
    for lang in PORTS:
        with gzip.open(data / f"rewrites/humaneval_x_{lang}.jsonl.gz", "rt", encoding="utf-8") as f:
            for x in f:
                if x.strip():
                    r = json.loads(x)
                    port = ports.setdefault(r["task_id"].split("/")[-1], {})
                    # the Rust prompts hold only the docstring: the declaration follows it there
                    decl = "" if r["declaration"].strip() in r["prompt"] else r["declaration"]
                    port[lang] = r["prompt"] + decl + r["canonical_solution"]
                    port[lang + "_code"] = r["declaration"] + r["canonical_solution"]
    gsm_items = [{"id": f"gsm{i}", "text": r["question"] + "\n" + r["answer"], "code": False,
                  "fields": {"question": r["question"], "answer": r["answer"]}} for i, r in enumerate(gsm)]
    he_items = [{"id": r["task_id"], "text": r["prompt"] + r["canonical_solution"], "code": True,
                 "fields": {"prompt": r["prompt"], "canonical_solution": r["canonical_solution"]},
                 "ports": ports.get(r["task_id"].split("/")[-1], {})} for r in he]
    return gsm_items, he_items


PORTS = ("cpp", "go", "java", "rust")


KINDS = {
    "verbatim": lambda t, r: t,
    "recased": lambda t, r: re.sub(r"[,.;:!?]", "", t.upper()),
    "words20": _words20,
    "numbers": _numbers,
    "reordered": _reordered,
    "templated": _templated,
    "words10_reordered": lambda t, r: _reordered(_words20(t, r, 0.1), r),
    "prefix60": lambda t, r: t[: int(len(t) * 0.6)],
    "paraphrase": _paraphrase,
    # every third word replaced: no 3-gram survives, so only a tier that does not start from
    # shared n-grams (semantic) can propose the item
    "words33": lambda t, r: " ".join(r.choice(_VOCAB) if k % 3 == 2 else w for k, w in enumerate(t.split(" "))),
}
# Leaks of one field of the item (the rewrite applied to that field alone).
PART_KINDS = {
    "question": ("question", lambda t, r: t),
    "question_paraphrase": ("question", _paraphrase),
    "question_words20": ("question", _words20),
    "prompt": ("prompt", lambda t, r: t),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared/data")
    ap.add_argument("--hosts", type=int, default=3000)
    ap.add_argument("--leaks", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=10)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--no-code", action="store_true", help="switch the code tier off")
    ap.add_argument("--semantic", action="store_true", help="switch the semantic tier on (off by default)")
    ap.add_argument("--no-units", action="store_true", help="match whole items only (no field on its own)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="another contamination setting, e.g. --set semantic_similarity=0.8")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    gsm, he = _load(args.data)
    with open(args.data / "prose/nltk_abc_news_paragraphs.jsonl", encoding="utf-8") as f:
        hosts = [json.loads(x)["text"] for x in f if x.strip()]
    with open(args.data / "prose/python311_docs_rst.jsonl", encoding="utf-8") as f:  # code-rich clean hosts
        hosts += [json.loads(x)["text"] for x in f if x.strip()]
    rng.shuffle(hosts)
    hosts = (hosts * (args.hosts // max(1, len(hosts)) + 1))[: args.hosts]
    tmp = Path(tempfile.mkdtemp(prefix="evalrw"))
    for name, items in (("gsm8k", gsm), ("humaneval", he)):
        with open(tmp / f"{name}.jsonl", "w", encoding="utf-8") as f:
            for it in items:
                f.write(json.dumps({"id": it["id"], **it["fields"]}) + "\n")
    fields = {"gsm8k": ["question", "answer"], "humaneval": ["prompt", "canonical_solution"]}
    config = parse_config({"input": {"paths": ["x/"]}, "contamination": {"code": not args.no_code, "semantic": args.semantic,
                                                            **{k: json.loads(v) for k, v in (x.split("=", 1) for x in args.set)}}, "eval_sets": [
        {"name": n, "path": f"{n}.jsonl", "text_fields": fields[n], "id_field": "id",
         **({"units": []} if args.no_units else {})} for n in ("gsm8k", "humaneval")]},
        base_dir=tmp)
    test_gsm = [(("gsm8k", it["id"]), it) for it in gsm[1::2]]
    test_he = [(("humaneval", it["id"]), it) for it in he[1::2]]
    plan: list[tuple[str, tuple[str, str], str]] = []
    kinds = (list(KINDS) + ["split", "code_renamed"] + list(PART_KINDS) + [f"port_{p}" for p in PORTS]
             + [f"port_{p}_code" for p in PORTS])
    per_kind = max(1, args.leaks // len(kinds))
    for kind in kinds:
        pool = test_he if kind in ("code_renamed", "prompt") or kind.startswith("port_") else (
            test_gsm if kind in ("numbers", "paraphrase", "words33") or kind.startswith("question") else test_gsm + test_he)
        for _ in range(per_kind):
            key, it = rng.choice(pool)
            if kind.startswith("port_"):
                text = it["ports"][kind[5:]]
            elif kind in PART_KINDS:
                text = it["fields"][PART_KINDS[kind][0]]
            else:
                text = it["text"]
            plan.append((kind, key, text))
    texts, truth = [], []
    for h, host in enumerate(hosts):
        if h < len(plan):
            kind, key, item = plan[h]
            paras = host.split("\n")
            if kind == "split":
                cut = len(item) // 2
                cut = item.rfind(" ", 0, cut) if item.rfind(" ", 0, cut) > 0 else cut
                mid = max(1, len(paras) // 2)
                doc = "\n".join(paras[:1] + [item[:cut]] + paras[1:mid] + ["", "", *paras[mid:], item[cut:]])
            else:
                leak = (_code_renamed(item, rng) if kind == "code_renamed" else PART_KINDS[kind][1](item, rng)
                        if kind in PART_KINDS else item if kind.startswith("port_") else KINDS[kind](item, rng))
                at = rng.randint(0, len(paras))
                doc = "\n".join(paras[:at] + [leak] + paras[at:])
            texts.append(doc)
            truth.append((kind, key))
        else:
            texts.append(host)
            truth.append(None)
    t0 = time.perf_counter()
    # the corpus sample the job would take for corpus document frequency: its first records
    c = config.contamination
    index = ContaminationIndex.build(config, texts[:c.corpus_df_sample] if c.corpus_df else None)
    stage = ContaminationStage(config, index)
    build_s = time.perf_counter() - t0
    matches: list = []
    t0 = time.perf_counter()
    for a in range(0, len(texts), BATCH):
        out = stage(pa.table({"text": pa.array(texts[a:a + BATCH], pa.string())}))
        matches += counted(out.column("contamination"), config).to_pylist()
    secs = time.perf_counter() - t0
    mb = sum(len(t.encode()) for t in texts) / 1e6
    hit = Counter()
    total = Counter()
    by_method: dict[str, Counter] = defaultdict(Counter)
    false_docs = clean = 0
    false_methods: Counter = Counter()
    examples = []
    for text, want, got in zip(texts, truth, matches):
        if want is None:
            clean += 1
            false_docs += bool(got)
            false_methods.update(m["method"] for m in got or [])
            if got and len(examples) < 5:
                m = got[0]
                examples.append({**{k: m[k] for k in ("eval_id", "method", "coverage", "evidence")},
                                 "excerpt": text[m["longest_span"][0]:m["longest_span"][1]][:300]})
            continue
        kind, key = want
        total[kind] += 1
        found = [m for m in got or [] if (m["eval_set"], m["eval_id"]) == key]
        if found:
            hit[kind] += 1
            by_method[kind][found[0]["method"]] += 1
    result = {
        "recall": {k: round(hit[k] / total[k], 3) for k in kinds if total[k]},
        "by_method": {k: dict(by_method[k]) for k in kinds},
        "leaks": dict(total), "false_docs": false_docs, "clean_docs": clean,
        "false_doc_rate": round(false_docs / max(1, clean), 5), "false_by_method": dict(false_methods),
        "false_examples": examples, "mb": round(mb, 2), "stage_mb_s": round(mb / secs, 2), "index_build_s": round(build_s, 2),
        "corpus_df": {"sample_documents": index.corpus_sample_docs, "ngrams_left_out": index.corpus_common_grams},
    }
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(f"{'rewrite':20s} recall  leaks  by method")
    for k in kinds:
        print(f"{k:20s} {result['recall'].get(k, 0):.3f}  {total[k]:5d}  {dict(by_method[k])}")
    methods = Counter(m for k in kinds for m, n in by_method[k].items() for _ in range(n))
    print("found by method (all kinds): " + ", ".join(f"{m} {n} ({n / max(1, sum(total.values())):.3f})"
                                                     for m, n in methods.most_common()))
    print(f"false contaminated docs: {false_docs} of {clean} clean ({result['false_doc_rate']:.3%}); "
          f"by method {dict(false_methods)}")
    for e in examples:
        print("  false:", e)
    print(f"stage: {mb:.1f} MB in {secs:.1f} s = {result['stage_mb_s']} MB/s (one process); index {build_s:.1f} s")
    print(f"corpus document frequency: {index.corpus_common_grams} item n-grams left out as common in "
          f"{index.corpus_sample_docs} sampled documents")


if __name__ == "__main__":
    main()

"""Contamination recall on leaks as they appear in the wild, written by hand and by rule, and false
documents on real clean text of several kinds.

    python bench/eval_contamination_wild.py --data ../shared/data [--clean 3000] [--rule 200] [--json]

Eval sets, as a user would configure them (each field also a unit of its own): GSM8K test
(question, answer), HumanEval (prompt, canonical_solution) and a small multiple-choice set
written for this bench (question, choices: a list, read one choice a line).

Leak kinds, each planted into a real ABC news paragraph:
- hand_restated: GSM8K questions restated by hand (other words and order, names and numbers kept);
- hand_mc_question: multiple-choice questions restated by hand, without their choices;
- mc_question: a multiple-choice question verbatim, without its choices;
- rule_restated: GSM8K questions (odd-numbered items) restated by rule: sentences reversed, words
  and phrases swapped from a synonym table (bench/eval_contamination_rewrites.py's), a tenth of
  the words dropped or replaced;
- translated_de / _es / _fr: GSM8K questions translated by hand (checked by reading);
- port_{cpp,go,java,rust}_code: HumanEval ported by people (rewrites/humaneval_x_*.jsonl.gz),
  declaration and solution only: no English word of the docstring left.
None of it comes from, or was tuned on, any published set of model-written rewrites.

Clean documents: ABC news paragraphs, forum and chat lines (webtext, 20 lines a document),
Project Gutenberg passages (3,000 characters each) and Python documentation pages (code-rich),
in equal parts. Prints item recall per kind (and by method), false contaminated documents per
kind of clean text and by method, and the stage's MB/s on the clean text (one process).
"""
from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from audit.config import parse_config  # noqa: E402
from audit.stages.contamination import ContaminationIndex, ContaminationStage, counted  # noqa: E402
from eval_contamination_rewrites import _paraphrase, _words20  # noqa: E402

BATCH = 256

# GSM8K test items (by index) restated by hand.
HAND_RESTATED = {
    1: "To make one robe you need two bolts of blue fiber, plus white fiber amounting to half of the blue. "
       "Altogether, how many bolts does the robe use?",
    3: "Each week James does sprints three times, running 3 of them per session, and every sprint covers "
       "60 meters. What distance in meters does he cover weekly?",
    5: "Kylar is furnishing his new apartment and needs 16 glasses from the store. A glass is $5, yet each "
       "second glass is sold at 60% of that price. What will he pay for all of them?",
    7: "A 200 GB file is being downloaded by Carla at a usual speed of 2 GB per minute. When 40% is done, a "
       "Windows update forces a 20-minute restart, after which she must start the download over. How long "
       "does the whole download take?",
    9: "For her first 40 hours in a week Eliza earns $10 per hour, and overtime is paid at 1.2 times that "
       "hourly rate. She put in 45 hours this week. What did she earn?",
    11: "At the bakery Toula picked up 3 dozen donuts at $68 a dozen, 2 dozen mini cupcakes at $80 a dozen "
        "and 6 dozen mini cheesecakes at $55 a dozen. What did she spend in total?",
    13: "Selling door to door, Melanie sold one third of her vacuum cleaners at the green house, two more at "
        "the red house, then half of the remainder at the orange house, leaving her with 5. How many vacuum "
        "cleaners did she have at the start?",
    15: "Choosing between jewelry worth $5,000 and electronic gadgets worth $8,000, a merchant hears from his "
        "financial advisor that jewelry should rise 2.5% and gadgets 1.2% this month. Picking the option "
        "with the larger profit at month's end, how much profit does he make?",
}
# The same kind of items translated by hand.
TRANSLATED = {
    "de": {
        3: "James beschließt, dreimal pro Woche 3 Sprints zu laufen. Er läuft bei jedem Sprint 60 Meter. "
           "Wie viele Meter läuft er insgesamt pro Woche?",
        5: "Kylar ging in den Laden, um Gläser für seine neue Wohnung zu kaufen. Ein Glas kostet 5 $, aber "
           "jedes zweite Glas kostet nur 60 % des Preises. Kylar möchte 16 Gläser kaufen. Wie viel muss er "
           "dafür bezahlen?",
        9: "Elizas Stundenlohn für die ersten 40 Stunden, die sie pro Woche arbeitet, beträgt 10 $. Außerdem "
           "erhält sie für Überstunden das 1,2-Fache ihres regulären Stundenlohns. Wenn Eliza diese Woche 45 "
           "Stunden gearbeitet hat, wie hoch ist ihr Verdienst in dieser Woche?",
        11: "Toula ging in die Bäckerei und kaufte verschiedene Gebäcksorten. Sie kaufte 3 Dutzend Donuts zu "
            "68 $ pro Dutzend, 2 Dutzend Mini-Cupcakes zu 80 $ pro Dutzend und 6 Dutzend Mini-Käsekuchen zu "
            "55 $ pro Dutzend. Wie hoch waren die Gesamtkosten?",
    },
    "es": {
        3: "James decide correr 3 sprints 3 veces por semana. Corre 60 metros en cada sprint. ¿Cuántos metros "
           "corre en total a la semana?",
        5: "Kylar fue a la tienda a comprar vasos para su nuevo apartamento. Un vaso cuesta 5 $, pero cada "
           "segundo vaso cuesta solo el 60 % del precio. Kylar quiere comprar 16 vasos. ¿Cuánto tiene que "
           "pagar por ellos?",
        9: "La tarifa por hora de Eliza durante las primeras 40 horas que trabaja cada semana es de 10 $. "
           "También recibe un pago por horas extra de 1,2 veces su tarifa horaria normal. Si Eliza trabajó "
           "45 horas esta semana, ¿cuánto gana esta semana?",
        11: "Toula fue a la panadería y compró varios tipos de pasteles. Compró 3 docenas de donas a 68 $ la "
            "docena, 2 docenas de minicupcakes a 80 $ la docena y 6 docenas de minitartas de queso a 55 $ la "
            "docena. ¿Cuál fue el costo total?",
    },
    "fr": {
        3: "James décide de faire 3 sprints 3 fois par semaine. Il court 60 mètres à chaque sprint. Combien "
           "de mètres court-il au total par semaine ?",
        5: "Kylar est allé au magasin acheter des verres pour son nouvel appartement. Un verre coûte 5 $, mais "
           "un verre sur deux ne coûte que 60 % du prix. Kylar veut acheter 16 verres. Combien doit-il payer ?",
        9: "Le taux horaire d'Eliza pour les 40 premières heures qu'elle travaille chaque semaine est de 10 $. "
           "Elle reçoit aussi des heures supplémentaires payées 1,2 fois son taux horaire normal. Si Eliza a "
           "travaillé 45 heures cette semaine, combien gagne-t-elle cette semaine ?",
        11: "Toula est allée à la boulangerie et a acheté différentes pâtisseries. Elle a acheté 3 douzaines "
            "de beignets à 68 $ la douzaine, 2 douzaines de mini cupcakes à 80 $ la douzaine et 6 douzaines de "
            "mini cheesecakes à 55 $ la douzaine. Quel a été le coût total ?",
    },
}
# A multiple-choice set written for this bench: (question, choices, the question restated by hand).
MC = [
    ("Which layer of the Earth's atmosphere contains most of the ozone that absorbs ultraviolet radiation "
     "from the Sun?", ["Troposphere", "Stratosphere", "Mesosphere", "Thermosphere"],
     "Most of the ozone that soaks up the Sun's ultraviolet radiation sits in which layer of Earth's "
     "atmosphere?"),
    ("In the Krebs cycle, which molecule combines with acetyl-CoA to form citrate at the start of each turn?",
     ["Oxaloacetate", "Pyruvate", "Malate", "Succinate"],
     "At the start of each turn of the Krebs cycle, acetyl-CoA joins which molecule to make citrate?"),
    ("Which treaty, signed in 1648, ended the Thirty Years' War and is often cited as the origin of modern "
     "state sovereignty?", ["Treaty of Utrecht", "Peace of Westphalia", "Treaty of Versailles",
                            "Congress of Vienna"],
     "The Thirty Years' War was brought to an end in 1648 by which settlement, often named as the birth of "
     "modern state sovereignty?"),
    ("A resistor of 220 ohms carries a current of 0.05 amperes. What is the voltage across the resistor?",
     ["1.1 volts", "4.4 volts", "11 volts", "44 volts"],
     "What voltage drops across a 220 ohm resistor when 0.05 amperes flow through it?"),
    ("Which sorting algorithm has a worst-case running time of O(n log n) and sorts in place using a binary "
     "heap?", ["Quicksort", "Merge sort", "Heapsort", "Insertion sort"],
     "Using a binary heap, which in-place sorting algorithm guarantees O(n log n) time even in the worst case?"),
    ("Which economist argued in The General Theory of Employment, Interest and Money that aggregate demand "
     "drives output in the short run?", ["Adam Smith", "John Maynard Keynes", "Milton Friedman",
                                          "Friedrich Hayek"],
     "In The General Theory of Employment, Interest and Money, which economist made the case that short-run "
     "output is driven by aggregate demand?"),
    ("What is the name of the boundary around a black hole beyond which no light or other radiation can "
     "escape?", ["Photon sphere", "Event horizon", "Ergosphere", "Accretion disk"],
     "Past which boundary around a black hole can neither light nor any other radiation get out?"),
    ("Which Shakespeare play features the characters Prospero, Miranda, Ariel and Caliban on a remote "
     "island?", ["The Tempest", "Twelfth Night", "Cymbeline", "The Winter's Tale"],
     "Prospero, his daughter Miranda, the spirit Ariel and Caliban live on a remote island in which play "
     "by Shakespeare?"),
]
PORTS = ("cpp", "go", "java", "rust")


def _rule_restated(question: str, rng: random.Random) -> str:
    """Sentences in reverse order, synonyms swapped, a tenth of the words dropped or replaced."""
    sents = [s for s in _paraphrase(question, rng).replace("  ", " ").split(". ") if s.strip()]
    return _words20(". ".join(reversed(sents)), rng, 0.1)


def _clean_docs(data: Path, n: int, rng: random.Random) -> list[tuple[str, str]]:
    """(kind, text) of n clean documents, a quarter of each kind."""
    def jl(p: str) -> list[dict]:
        with open(data / p, encoding="utf-8") as f:
            return [json.loads(x) for x in f if x.strip()]
    news = [r["text"] for r in jl("prose/nltk_abc_news_paragraphs.jsonl")]
    lines = [r["text"] for r in jl("prose/nltk_webtext_lines.jsonl")]
    web = ["\n".join(lines[k:k + 20]) for k in range(0, len(lines), 20)]
    books = [r["text"] for r in jl("prose/gutenberg_books.jsonl")]
    passages = [b[k:k + 3000] for b in books for k in range(0, len(b) - 3000, 3000)]
    docs = [r["text"] for r in jl("prose/python311_docs_rst.jsonl")]
    out = []
    for kind, pool in (("news", news), ("web", web), ("books", passages), ("pydocs", docs)):
        rng.shuffle(pool)
        out += [(kind, t) for t in pool[: n // 4]]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared/data")
    ap.add_argument("--clean", type=int, default=3000)
    ap.add_argument("--rule", type=int, default=200, help="rule-restated and verbatim-MC leaks")
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a contamination setting")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    with open(args.data / "evals/gsm8k_test.jsonl", encoding="utf-8") as f:
        gsm = [json.loads(x) for x in f if x.strip()]
    with gzip.open(args.data / "evals/HumanEval.jsonl.gz", "rt", encoding="utf-8") as f:
        he = [json.loads(x) for x in f if x.strip()]
    tmp = Path(tempfile.mkdtemp(prefix="evalwild"))
    sets = {"gsm8k": [{"id": f"gsm{i}", "question": r["question"], "answer": r["answer"]} for i, r in enumerate(gsm)],
            "humaneval": [{"id": r["task_id"], "prompt": r["prompt"], "canonical_solution": r["canonical_solution"]}
                          for r in he],
            "mc": [{"id": f"mc{i}", "question": q, "choices": c} for i, (q, c, _) in enumerate(MC)]}
    fields = {"gsm8k": ["question", "answer"], "humaneval": ["prompt", "canonical_solution"], "mc": ["question", "choices"]}
    for name, rows in sets.items():
        with open(tmp / f"{name}.jsonl", "w", encoding="utf-8") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
    config = parse_config({"input": {"paths": ["x/"]}, "contamination": {
        k: json.loads(v) for k, v in (x.split("=", 1) for x in args.set)}, "eval_sets": [
        {"name": n, "path": f"{n}.jsonl", "text_fields": fields[n], "id_field": "id"} for n in sets]}, base_dir=tmp)

    leaks: list[tuple[str, tuple[str, str], str]] = []
    leaks += [("hand_restated", ("gsm8k", f"gsm{i}"), t) for i, t in HAND_RESTATED.items()]
    leaks += [(f"translated_{lang}", ("gsm8k", f"gsm{i}"), t) for lang, d in TRANSLATED.items() for i, t in d.items()]
    leaks += [("hand_mc_question", ("mc", f"mc{i}"), r) for i, (_, _, r) in enumerate(MC)]
    leaks += [("mc_question", ("mc", f"mc{i}"), q) for i, (q, _, _) in enumerate(MC)]
    odd = list(range(1, len(gsm), 2))
    leaks += [("rule_restated", ("gsm8k", f"gsm{i}"), _rule_restated(gsm[i]["question"], rng))
              for i in rng.sample(odd, min(args.rule, len(odd)))]
    for lang in PORTS:
        with gzip.open(args.data / f"rewrites/humaneval_x_{lang}.jsonl.gz", "rt", encoding="utf-8") as f:
            for x in f:
                if x.strip():
                    r = json.loads(x)
                    tid = f"HumanEval/{r['task_id'].split('/')[-1]}"
                    leaks.append((f"port_{lang}_code", ("humaneval", tid), r["declaration"] + r["canonical_solution"]))
    with open(args.data / "prose/nltk_abc_news_paragraphs.jsonl", encoding="utf-8") as f:
        hosts = [json.loads(x)["text"] for x in f if x.strip()]
    rng.shuffle(hosts)
    leak_docs = []
    for k, (kind, key, leak) in enumerate(leaks):
        paras = hosts[k % len(hosts)].split("\n")
        at = rng.randint(0, len(paras))
        leak_docs.append("\n".join(paras[:at] + [leak] + paras[at:]))
    clean = _clean_docs(args.data, args.clean, rng)
    texts = leak_docs + [t for _, t in clean]

    t0 = time.perf_counter()
    c = config.contamination
    index = ContaminationIndex.build(config, texts[len(leak_docs):][:c.corpus_df_sample] if c.corpus_df else None)
    stage = ContaminationStage(config, index)
    build_s = time.perf_counter() - t0
    matches: list = []
    clean_s = 0.0
    for a in range(0, len(texts), BATCH):
        t1 = time.perf_counter()
        out = stage(pa.table({"text": pa.array(texts[a:a + BATCH], pa.string())}))
        if a >= len(leak_docs):
            clean_s += time.perf_counter() - t1
        matches += counted(out.column("contamination"), config).to_pylist()
    hit, total = Counter(), Counter()
    by_method: dict[str, Counter] = defaultdict(Counter)
    for (kind, key, _), got in zip(leaks, matches):
        total[kind] += 1
        found = [m for m in got or [] if (m["eval_set"], m["eval_id"]) == key]
        if found:
            hit[kind] += 1
            by_method[kind][f"{found[0]['method']}/{found[0]['unit']}"] += 1
    false_docs, false_methods, clean_total = Counter(), Counter(), Counter()
    examples = []
    for (kind, text), got in zip(clean, matches[len(leak_docs):]):
        clean_total[kind] += 1
        if got:
            false_docs[kind] += 1
            false_methods.update(m["method"] for m in got)
            if len(examples) < 5:
                examples.append({"kind": kind, **{k: got[0][k] for k in ("eval_id", "method", "coverage", "evidence")}})
    mb = sum(len(t.encode()) for _, t in clean) / 1e6
    result = {"recall": {k: round(hit[k] / total[k], 3) for k in total}, "leaks": dict(total),
              "by_method": {k: dict(v) for k, v in by_method.items()},
              "false_docs": dict(false_docs), "clean_docs": dict(clean_total),
              "false_doc_rate": round(sum(false_docs.values()) / max(1, len(clean)), 5),
              "false_by_method": dict(false_methods), "false_examples": examples,
              "clean_mb": round(mb, 2), "stage_mb_s_clean": round(mb / max(clean_s, 1e-9), 2),
              "index_build_s": round(build_s, 1)}
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(f"{'leak kind':18s} recall  leaks  by method/unit")
    for k in total:
        print(f"{k:18s} {result['recall'][k]:.3f}  {total[k]:5d}  {dict(by_method[k])}")
    print(f"false contaminated docs: {sum(false_docs.values())} of {len(clean)} clean "
          f"({result['false_doc_rate']:.3%}); per kind {dict(false_docs)} of {dict(clean_total)}; "
          f"by method {dict(false_methods)}")
    for e in examples:
        print("  false:", e)
    print(f"stage on the clean text: {mb:.1f} MB at {result['stage_mb_s_clean']} MB/s (one process); "
          f"index {build_s:.1f} s")


if __name__ == "__main__":
    main()

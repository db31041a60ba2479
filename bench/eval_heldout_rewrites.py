"""Contamination recall on held-out model-style rewrites (bench/heldout_rewrites.py), per kind and
per half (even positions: the half looked at while tuning; odd: untouched), and false documents on
real clean text.

    python bench/eval_heldout_rewrites.py --data ../shared/data [--clean 1800] [--clean-zh 0]
        [--clean-synthetic 0] [--json]
        [--set KEY=VALUE]   (a contamination setting, e.g. semantic=true)

Eval sets, as a user would configure them (each field also a unit of its own): GSM8K test
(question, answer), HumanEval (prompt, canonical_solution) and multiple-choice items (question,
choices): the wild bench's 32 and this set's 15 + 20 + 25 (Chinese) + 24 + 20.

Leak kinds, each planted into a real ABC news paragraph (a blog post quoting it): js_port, c_port,
py_rewrite, gsm8k_question, gsm8k_question_answer, mc_reworded; the second held-out set, never
tuned on (NEW_KINDS): new_gsm8k_question_answer, new_mc_reworded; and Chinese translations
(bench/heldout_zh.py), each planted among 8 Chinese Leipzig sentences: zh_mc_question,
zh_mc_full (with its choices), zh_gsm8k, and the second Chinese set's zh_mc_question2 (new items,
never tuned on); the third English set's new_mc_reworded2 (MC_HELDOUT3: compounds joined or split,
choices kept, reworded or dropped, short answers restated; never tuned on); and mc_not_asking
(MC_HELDOUT4: MMLU-style stems that do not ask, to complete or instructions, reworded into a
question or a statement; by half, as the first set). Clean documents: the wild bench's six kinds of
real text (news, forum lines, books, Python docs, 75 languages, fortunes); the larger
check, `--clean 14000 --clean-synthetic 300`: 2,333 each of news, books, 75 languages and fortunes,
all 1,292 forum and 497 Python docs documents, and 300 of Presidio's synthetic text (11,421).
"""
from __future__ import annotations

import json
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_contamination_wild import (_clean_docs, _sentences_by_lang, bench_arguments, eval_config,  # noqa: E402
                                     false_documents, run_stage)
from heldout_zh import GSM8K_ZH, MC_ZH2, MC_ZH_FULL, MC_ZH_QUESTION  # noqa: E402
from heldout_rewrites import (C_PORTS, GSM8K_REWORDED, GSM8K_REWORDED_QA, JS_PORTS, MC_HELDOUT,  # noqa: E402
                              PY_REWRITES)
from heldout_rewrites import GSM8K_REWORDED_QA2, MC_HELDOUT2, MC_HELDOUT3, MC_HELDOUT4  # noqa: E402

# Kinds of the second held-out set: never tuned on, reported whole (no halves).
NEW_KINDS = ("new_gsm8k_question_answer", "new_mc_reworded", "zh_mc_question2", "new_mc_reworded2")


def leaks(he_ids: list[str]) -> list[tuple[str, int, tuple[str, str], str]]:
    """(kind, position within its kind, (eval set, eval id), leak text) of every held-out rewrite."""
    out: list[tuple[str, int, tuple[str, str], str]] = []
    for kind, items in (("js_port", JS_PORTS), ("c_port", C_PORTS), ("py_rewrite", PY_REWRITES)):
        out += [(kind, k, ("humaneval", he_ids[i]), t) for k, (i, t) in enumerate(sorted(items.items()))]
    out += [("gsm8k_question", k, ("gsm8k", f"gsm{i}"), t) for k, (i, t) in enumerate(sorted(GSM8K_REWORDED.items()))]
    out += [("gsm8k_question_answer", k, ("gsm8k", f"gsm{i}"), q + "\n" + a)
            for k, (i, (q, a)) in enumerate(sorted(GSM8K_REWORDED_QA.items()))]
    out += [("mc_reworded", k, ("mc", f"mch{k}"), r) for k, (_, _, r) in enumerate(MC_HELDOUT)]
    out += [("new_gsm8k_question_answer", k, ("gsm8k", f"gsm{i}"), q + "\n" + a)
            for k, (i, (q, a)) in enumerate(sorted(GSM8K_REWORDED_QA2.items()))]
    out += [("new_mc_reworded", k, ("mc", f"mch{len(MC_HELDOUT) + k}"), r) for k, (_, _, r) in enumerate(MC_HELDOUT2)]
    out += [("zh_mc_question", k, ("mc", f"mch{k}"), t) for k, t in enumerate(MC_ZH_QUESTION)]
    out += [("zh_mc_full", k, ("mc", f"mch{k}"), t) for k, t in enumerate(MC_ZH_FULL)]
    out += [("zh_gsm8k", k, ("gsm8k", f"gsm{i}"), t) for k, (i, t) in enumerate(sorted(GSM8K_ZH.items()))]
    first = len(MC_HELDOUT) + len(MC_HELDOUT2)
    out += [("zh_mc_question2", k, ("mc", f"mch{first + k}"), zh) for k, (_, _, zh) in enumerate(MC_ZH2)]
    first += len(MC_ZH2)
    out += [("new_mc_reworded2", k, ("mc", f"mch{first + k}"), r) for k, (_, _, r) in enumerate(MC_HELDOUT3)]
    first += len(MC_HELDOUT3)
    out += [("mc_not_asking", k, ("mc", f"mch{first + k}"), r) for k, (_, _, r) in enumerate(MC_HELDOUT4)]
    return out


def main() -> None:
    args = bench_arguments(__doc__.splitlines()[0], clean=1800, clean_zh=0, seed=21).parse_args()
    rng = random.Random(args.seed)
    config, _, he = eval_config(args.data, args.set, [(q, c) for q, c, _ in MC_HELDOUT + MC_HELDOUT2 + MC_ZH2 + MC_HELDOUT3
                                                          + MC_HELDOUT4])
    planted = leaks([r["task_id"] for r in he])
    with open(args.data / "prose/nltk_abc_news_paragraphs.jsonl", encoding="utf-8") as f:
        hosts = [json.loads(x)["text"] for x in f if x.strip()]
    rng.shuffle(hosts)
    leak_docs = []
    # a Chinese leak lives among Chinese text; its own draws leave the other kinds' documents as they were
    zh_rng, zh_hosts = random.Random(args.seed + 1), _sentences_by_lang(args.data)["zh"]
    for k, (kind, _, _, leak) in enumerate(planted):
        paras = zh_rng.sample(zh_hosts, 8) if kind.startswith("zh_") else hosts[k % len(hosts)].split("\n")
        at = (zh_rng if kind.startswith("zh_") else rng).randint(0, len(paras))
        leak_docs.append("\n".join(paras[:at] + [leak] + paras[at:]))
    clean = _clean_docs(args.data, args.clean, rng, args.clean_zh, args.clean_synthetic)
    matches, _, _ = run_stage(config, leak_docs + [t for _, t in clean], len(leak_docs))
    hit, total = Counter(), Counter()
    missed: dict[str, list[str]] = defaultdict(list)
    by_method: dict[str, Counter] = defaultdict(Counter)
    evidence: dict[str, list[str]] = defaultdict(list)
    for (kind, pos, key, _), got in zip(planted, matches):
        half = f"{kind}/{'tuned' if pos % 2 == 0 else 'untouched'}"
        found = [m for m in got or [] if (m["eval_set"], m["eval_id"]) == key]
        for name in (kind,) if kind in NEW_KINDS else (kind, half):
            total[name] += 1
            hit[name] += bool(found)
        if found:
            by_method[kind][f"{found[0]['method']}/{found[0]['unit']}"] += 1
            evidence[kind].append(f"{key[1]}: {found[0]['evidence']}"[:300])
        else:
            missed[kind].append(key[1])
    false_docs, false_methods, clean_total, examples = false_documents(clean, matches[len(leak_docs):])
    result = {"recall": {k: round(hit[k] / total[k], 3) for k in total}, "leaks": dict(total),
              "by_method": {k: dict(v) for k, v in by_method.items()}, "missed": dict(missed),
              "false_docs": dict(false_docs), "clean_docs": dict(clean_total),
              "false_doc_rate": round(sum(false_docs.values()) / max(1, len(clean)), 5),
              "false_by_method": dict(false_methods), "false_examples": examples, "evidence": dict(evidence)}
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(f"{'leak kind':34s} recall  leaks  by method/unit")
    for k in total:
        kind = k.split("/")[0]
        print(f"{k:34s} {result['recall'][k]:.3f}  {total[k]:5d}  "
              + (f"{dict(by_method[kind])}  missed {missed[kind]}" if "/" not in k else ""))
    print(f"false contaminated docs: {sum(false_docs.values())} of {len(clean)} clean "
          f"({result['false_doc_rate']:.3%}); per kind {dict(false_docs)}; by method {dict(false_methods)}")
    for e in examples:
        print("  false:", e)


if __name__ == "__main__":
    main()

"""Eval sets as they are published: item recall per layout and language, and false documents on
real clean text.

    python bench/eval_eval_sets.py --data ../shared/data [--clean 1200] [--clean-zh 300]

Layouts (the multiple-choice items of bench/heldout_rewrites.py's MC_HELDOUT and MC_HELDOUT2, 35):
- `flat`: question and choices (a list) as fields, `text_fields: [question, choices]` (MMLU);
- `arc`: ARC and CommonsenseQA as published, `question: {stem, choices: [{text, label}]}`, with
  `text_fields: [question]` and nothing else said;
- `hub`: ARC on the Hub, `question` and `choices: {text: [...], label: [...]}`.
Each planted into a real ABC news paragraph three ways: the question with its lettered choices
(`verbatim`), the question alone (`question`), and reworded by hand (`reworded`); and eight of them
translated as Japanese and Chinese exams print a question, without a question mark
(heldout_languages.EXAM_STYLE: `exam_ja`, `exam_zh`), on a line of their own among Leipzig
sentences of the language.

A Chinese eval set (C-Eval, CMMLU style: bench/heldout_zh.py's 40 Chinese questions with their
choices): each question copied into Chinese Leipzig sentences (`zh_verbatim`), ten of them reworded
in Chinese there (`zh_reworded`, heldout_zh.ZH_REWORDED), and its English original in an ABC news
paragraph (`zh_set_in_english`, a translation read the other way round).
"""
from __future__ import annotations

import json
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_contamination_wild import _clean_docs, _sentences_by_lang, bench_arguments, run_stage  # noqa: E402
from heldout_rewrites import MC_HELDOUT, MC_HELDOUT2  # noqa: E402
from heldout_languages import EXAM_STYLE  # noqa: E402
from heldout_zh import _MC_ZH, MC_ZH2, ZH_REWORDED  # noqa: E402

from audit.config import AuditConfig, parse_config  # noqa: E402

LETTERS = "ABCDEFGH"


def _layout(kind: str, items: list[tuple[str, list[str]]]) -> tuple[list[dict], list[str]]:
    """The eval set's rows in `kind`'s layout, and its text_fields."""
    if kind == "arc":
        return [{"id": f"m{i}", "question": {"stem": q, "choices": [{"text": t, "label": LETTERS[k]}
                                                                     for k, t in enumerate(c)]}}
                for i, (q, c) in enumerate(items)], ["question"]
    if kind == "hub":
        return [{"id": f"m{i}", "question": q, "choices": {"text": c, "label": list(LETTERS[:len(c)])}}
                for i, (q, c) in enumerate(items)], ["question", "choices"]
    return [{"id": f"m{i}", "question": q, "choices": c} for i, (q, c) in enumerate(items)], ["question", "choices"]


def _config(rows: list[dict], fields: list[str]) -> AuditConfig:
    tmp = Path(tempfile.mkdtemp(prefix="evalsets"))
    (tmp / "items.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return parse_config({"input": {"paths": ["x/"]}, "eval_sets": [
        {"name": "items", "path": "items.jsonl", "text_fields": fields, "id_field": "id"}]}, base_dir=tmp)


def _score(config: AuditConfig, leaks: list[tuple[str, str, str]], clean: list[str]) -> tuple[dict, int]:
    """Item recall per leak kind, and clean documents with a counted match."""
    matches, _, _ = run_stage(config, [t for *_, t in leaks] + clean, len(leaks))
    got: dict[str, list[bool]] = {}
    for (kind, item, _), found in zip(leaks, matches):
        got.setdefault(kind, []).append(any(m["eval_id"] == item for m in found))
    return {k: round(sum(v) / len(v), 3) for k, v in got.items()}, sum(1 for found in matches[len(leaks):] if found)


def main() -> None:
    args = bench_arguments(__doc__.splitlines()[0], clean=1200, clean_zh=300, seed=5).parse_args()
    rng = random.Random(args.seed)
    with open(args.data / "prose/nltk_abc_news_paragraphs.jsonl", encoding="utf-8") as f:
        hosts = [json.loads(x)["text"] for x in f if x.strip()]
    by_lang = _sentences_by_lang(args.data)
    zh_hosts = by_lang["zh"]
    clean = [t for _, t in _clean_docs(args.data, args.clean, rng, args.clean_zh, 0)]

    def hosted(text: str) -> str:
        paras = rng.choice(hosts).split("\n")
        at = rng.randint(0, len(paras))
        return "\n".join(paras[:at] + [text] + paras[at:])

    items = MC_HELDOUT + MC_HELDOUT2
    leaks = []
    for i, (q, c, reworded) in enumerate(items):
        lettered = q + "\n" + "\n".join(f"{LETTERS[k]}. {t}" for k, t in enumerate(c))
        leaks += [(kind, f"m{i}", hosted(text)) for kind, text in
                  (("verbatim", lettered), ("question", q), ("reworded", reworded))]
    for lang, questions in EXAM_STYLE.items():
        for i, text in questions.items():
            page = rng.sample(by_lang[lang], 6)
            leaks.append((f"exam_{lang}", f"m{i}", "".join(page[:3]) + "\n" + text + "\n" + "".join(page[3:])))
    for layout in ("flat", "arc", "hub"):
        recall, false = _score(_config(*_layout(layout, [(q, c) for q, c, _ in items])), leaks, clean)
        print(f"{layout:5} {recall} false documents {false} of {len(clean)}")

    zh = [(q, c) for q, c in _MC_ZH] + [(q, []) for _, _, q in MC_ZH2]
    en = [q for q, _, _ in MC_HELDOUT[:len(_MC_ZH)]] + [q for q, _, _ in MC_ZH2]
    leaks = []
    def zh_page(text: str) -> str:
        at = rng.randint(0, 6)
        page = rng.sample(zh_hosts, 6)
        return "".join(page[:at] + [text] + page[at:])

    for i, ((q, _), original) in enumerate(zip(zh, en)):
        leaks += [("zh_verbatim", f"m{i}", zh_page(q)), ("zh_set_in_english", f"m{i}", hosted(original))]
    leaks += [("zh_reworded", f"m{k if part == 'mc' else len(_MC_ZH) + k}", zh_page(text))
              for (part, k), text in ZH_REWORDED.items()]
    recall, false = _score(_config(*_layout("flat", zh)), leaks, clean)
    print(f"zh    {recall} false documents {false} of {len(clean)}")


if __name__ == "__main__":
    main()

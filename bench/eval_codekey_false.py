"""The code key (method "code_key") on both sides: item recall of HumanEval's human ports, and
documents reported among real clean source files.

    python bench/eval_codekey_false.py --data ../shared/data [--per-lang 1500] [--max-chars 100000]
        [--stage] [--json] [--set KEY=VALUE]

Eval set: HumanEval (prompt, canonical_solution, each also a unit), as a user configures it.

Recall: every port of rewrites/humaneval_x_{cpp,go,java,rust}.jsonl.gz (164 a language) as a
record of its own, in two forms: `code` (declaration and solution: no docstring, the form of the
rewrites and wild benches) and `tested` (that and the port's example test: a port with the
docstring's examples as asserts); item recall per language and form, also on the even- and
odd-numbered items apart (the rewrites bench leaks only odd ones).

False documents: real clean source files found on this machine, one file a document (its first
`--max-chars` characters), at most `--per-lang` files a language, picked in sorted path order with
a fixed seed: Python's standard library, the JDK's src.zip (Java), the Rust standard library's
sources (the rust-docs `src/*.rs.html` pages, tags stripped), C and C++ headers and sources
(/usr/include, site-packages), JavaScript (/usr/share, site-packages) and Go (/usr/share). A folder
that is missing is skipped and named in the output; none at all: exit 2. Counted: documents with a
`code_key` match that counts (coverage >= contamination.code_key_threshold), per language, with
the first few shown (file, item, evidence). `--stage`: the whole contamination stage on them
(every tier, slower), documents with any match that counts, by method.
"""
from __future__ import annotations

import argparse
import glob
import gzip
import html
import json
import os
import random
import re
import sys
import tempfile
import time
import zipfile
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audit.config import parse_config  # noqa: E402
from audit.stages.contamination import ContaminationIndex, ContaminationStage, counted  # noqa: E402
from audit.stages.contamination_codekey import looks_like_any_code  # noqa: E402

PORTS = ("cpp", "go", "java", "rust")
BATCH = 128
_PY = sys.base_prefix + f"/lib/python{sys.version_info.major}.{sys.version_info.minor}"
_SITE = glob.glob(_PY + "/site-packages")
_RUST_SRC = sorted(glob.glob(os.path.expanduser("~/.rustup/toolchains/*/share/doc/rust/html/src")))[:1]
_JDK_SRC = sorted(p for p in glob.glob("/usr/lib/jvm/*/lib/src.zip") + glob.glob("/usr/lib/jvm/*/src.zip")
                  if os.path.isfile(p))[:1]
# language -> (folders, file name endings); Java from the JDK's src.zip, Rust from rustdoc pages
SOURCES = {
    "python": ([_PY], (".py",)),
    "c_cpp": (["/usr/include", *_SITE], (".c", ".h", ".cc", ".cpp", ".hpp", ".cxx", ".hh")),
    "javascript": (["/usr/lib/node_modules", "/usr/share", *_SITE], (".js",)),
    "go": (["/usr/share", "/usr/lib/go", "/usr/local/go/src"], (".go",)),
}
_RUSTDOC_LINE = re.compile(r"<a href=#\d+ id=\d+ data-nosnippet>\d+</a>")
_TAG = re.compile(r"<[^>]+>")


def _files(folders: list[str], ends: tuple[str, ...], skip_site: bool) -> list[str]:
    out = []
    for top in folders:
        if not os.path.isdir(top):
            continue
        for root, dirs, names in os.walk(top):
            dirs[:] = sorted(d for d in dirs if not (skip_site and d == "site-packages") and d != "__pycache__")
            out += [os.path.join(root, n) for n in sorted(names) if n.endswith(ends)]
    return out


def _rustdoc_source(page: str) -> str:
    """The Rust source a rustdoc `src` page shows (line-number anchors and tags dropped)."""
    at = page.find('<pre class="rust"><code>')
    end = page.find("</code></pre>", at)
    if at < 0 or end < 0:
        return ""
    return html.unescape(_TAG.sub("", _RUSTDOC_LINE.sub("", page[at:end])))


def clean_code(per_lang: int, max_chars: int, seed: int) -> tuple[list[tuple[str, str, str]], list[str]]:
    """(language, path, text) of the clean source files, and the sources not found."""
    rng = random.Random(seed)
    missing: list[str] = []
    docs: list[tuple[str, str, str]] = []

    def take(lang: str, paths: list[str], read) -> None:
        paths = sorted(set(paths))
        rng.shuffle(paths)
        n = 0
        for p in paths:
            if n >= per_lang:
                break
            try:
                text = read(p)
            except (OSError, UnicodeDecodeError, KeyError):
                continue
            if text.strip():
                docs.append((lang, p, text[:max_chars]))
                n += 1

    def read_file(p: str) -> str:
        with open(p, encoding="utf-8", errors="replace") as f:
            return f.read(max_chars)

    for lang, (folders, ends) in SOURCES.items():
        paths = _files(folders[:1], ends, lang == "python") + _files(folders[1:], ends, False)
        if not paths:
            missing.append(f"{lang}: none of {folders}")
        take(lang, paths, read_file)
    if _JDK_SRC:
        with zipfile.ZipFile(_JDK_SRC[0]) as z:
            take("java", [n for n in z.namelist() if n.endswith(".java")],
                 lambda n: z.read(n)[: max_chars * 2].decode("utf-8", errors="replace"))
    else:
        missing.append("java: no /usr/lib/jvm/*/lib/src.zip")
    if _RUST_SRC:
        take("rust", _files(_RUST_SRC, (".rs.html",), False), lambda p: _rustdoc_source(Path(p).read_text(encoding="utf-8", errors="replace")))
    else:
        missing.append("rust: no ~/.rustup/toolchains/*/share/doc/rust/html/src")
    return docs, missing


def _ports(data: Path) -> dict[str, list[tuple[str, str, str]]]:
    """Per form, (language, task id, port text) of every human port."""
    out: dict[str, list[tuple[str, str, str]]] = {"code": [], "tested": []}
    for lang in PORTS:
        with gzip.open(data / f"rewrites/humaneval_x_{lang}.jsonl.gz", "rt", encoding="utf-8") as f:
            for x in f:
                if x.strip():
                    r = json.loads(x)
                    tid = f"HumanEval/{r['task_id'].split('/')[-1]}"
                    code = r["declaration"] + r["canonical_solution"]
                    out["code"].append((lang, tid, code))
                    if r.get("example_test") and r["example_test"] != "None":
                        out["tested"].append((lang, tid, code + "\n" + r["example_test"]))
    return out


def _code_key_hits(index: ContaminationIndex, config, texts: list[str]) -> list[list[dict]]:
    """Per text, the code_key matches that count (the tier alone, as ContaminationIndex.match runs it)."""
    arr = pa.array(texts, pa.string())
    matches = []
    for a in range(0, len(texts), BATCH):
        found: dict[int, list[dict]] = {}
        sub = arr.slice(a, min(BATCH, len(texts) - a))
        keyed = looks_like_any_code(sub)
        if keyed.any():
            keyed[keyed] = index.code_key.maybe(sub.filter(pa.array(keyed)))
        index._code_key_matches(texts[a:a + len(sub)], 0, len(sub), keyed, found)
        lim = config.contamination.limit("code_key")
        for t in range(len(sub)):
            matches.append([m for m in found.get(t, []) if m["coverage"] >= lim])
    return matches


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared/data")
    ap.add_argument("--per-lang", type=int, default=1500)
    ap.add_argument("--max-chars", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--stage", action="store_true", help="the whole contamination stage, every tier")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a contamination setting")
    args = ap.parse_args()
    he_path = args.data / "evals/HumanEval.jsonl.gz"
    if not he_path.is_file():
        print(f"--data: {he_path} not found; point --data at the shared data folder", file=sys.stderr)
        sys.exit(2)
    docs, missing = clean_code(args.per_lang, args.max_chars, args.seed)
    if not docs:
        print("no clean source files found (looked for: " + "; ".join(missing) + ")", file=sys.stderr)
        sys.exit(2)
    with gzip.open(he_path, "rt", encoding="utf-8") as f:
        he = [json.loads(x) for x in f if x.strip()]
    tmp = Path(tempfile.mkdtemp(prefix="evalck"))
    with open(tmp / "humaneval.jsonl", "w", encoding="utf-8") as f:
        f.writelines(json.dumps({"id": r["task_id"], "prompt": r["prompt"], "canonical_solution": r["canonical_solution"]})
                     + "\n" for r in he)
    config = parse_config({"input": {"paths": ["x/"]}, "contamination": {
        k: json.loads(v) for k, v in (x.split("=", 1) for x in args.set)}, "eval_sets": [
        {"name": "humaneval", "path": "humaneval.jsonl", "text_fields": ["prompt", "canonical_solution"],
         "id_field": "id"}]}, base_dir=tmp)
    t0 = time.perf_counter()
    index = ContaminationIndex.build(config)
    assert index is not None and index.code_key is not None, "contamination.code_key is off"
    build_s = time.perf_counter() - t0

    recall: dict[str, dict[str, float]] = {}
    for form, ports in _ports(args.data).items():
        got = _code_key_hits(index, config, [t for _, _, t in ports])
        for lang in PORTS:
            rows = [(tid, g) for (lg, tid, _), g in zip(ports, got) if lg == lang]
            if not rows:
                continue
            hit = [any(m["eval_id"] == tid for m in g) for tid, g in rows]
            odd = [h for (tid, _), h in zip(rows, hit) if int(tid.split("/")[-1]) % 2]
            even = [h for (tid, _), h in zip(rows, hit) if not int(tid.split("/")[-1]) % 2]
            recall[f"{lang}_{form}"] = {"all": round(float(np.mean(hit)), 3), "odd": round(float(np.mean(odd)), 3),
                                        "even": round(float(np.mean(even)), 3), "n": len(rows)}

    texts = [t for _, _, t in docs]
    t0 = time.perf_counter()
    if args.stage:
        stage = ContaminationStage(config, index)
        found = []
        for a in range(0, len(texts), BATCH):
            out = stage(pa.table({"text": pa.array(texts[a:a + BATCH], pa.string())}))
            found += [g or [] for g in counted(out.column("contamination"), config).to_pylist()]
    else:
        found = _code_key_hits(index, config, texts)
    secs = time.perf_counter() - t0
    per_lang, false_lang, by_method = Counter(), Counter(), Counter()
    examples = []
    for (lang, path, text), got in zip(docs, found):
        per_lang[lang] += 1
        if got:
            false_lang[lang] += 1
            by_method.update({m["method"] for m in got})
            if len(examples) < 12:
                m = got[0]
                examples.append({"file": path, "eval_id": m["eval_id"], "method": m["method"],
                                 "coverage": m["coverage"], "evidence": m["evidence"],
                                 "excerpt": text[m["longest_span"][0]:m["longest_span"][1]][:160]})
    mb = sum(len(t.encode()) for t in texts) / 1e6
    result = {"recall": recall, "clean_files": dict(per_lang), "false_docs": dict(false_lang),
              "false_total": sum(false_lang.values()), "clean_total": len(docs),
              "false_rate": round(sum(false_lang.values()) / len(docs), 5), "by_method": dict(by_method),
              "examples": examples, "missing": missing, "clean_mb": round(mb, 2),
              "mb_s": round(mb / max(secs, 1e-9), 2), "index_build_s": round(build_s, 2),
              "what": "whole stage" if args.stage else "code_key tier"}
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(f"{'port':12s}  all    odd    even   (items)")
    for k, v in recall.items():
        print(f"{k:12s}  {v['all']:.3f}  {v['odd']:.3f}  {v['even']:.3f}  ({v['n']})")
    print(f"clean source files: {dict(per_lang)} ({mb:.1f} MB); skipped: {missing or 'none'}")
    print(f"false documents ({result['what']}): {result['false_total']} of {len(docs)} "
          f"({result['false_rate']:.3%}); per language {dict(false_lang)}; by method {dict(by_method)}")
    for e in examples:
        print("  false:", e)
    print(f"{result['what']} on the clean files: {mb:.1f} MB at {result['mb_s']} MB/s (one process); "
          f"index {build_s:.1f} s")


if __name__ == "__main__":
    main()

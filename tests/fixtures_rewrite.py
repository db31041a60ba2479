"""Multiple-choice eval items, their restatements by hand and a news paragraph sharing a few of
their words, shared by the rewrite tier's tests; and a helper that runs the contamination stage
over texts against them."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa

from audit.config import AuditConfig, parse_config
from audit.stages.contamination import ContaminationStage, counted

# (id, question, choices): short questions, MMLU's size, of several subjects.
MC_ITEMS = [
    ("dna", "Which enzyme unwinds the DNA double helix at the replication fork by breaking the hydrogen bonds "
            "between base pairs?", ["Helicase", "Ligase", "Primase", "Topoisomerase"]),
    ("rubicon", "Which Roman general crossed the Rubicon river in 49 BC, starting a civil war against the Senate "
                "and Pompey?", ["Julius Caesar", "Mark Antony", "Marcus Crassus", "Scipio Africanus"]),
    ("vat", "Which kind of tax is levied on the value added at each stage of the production and distribution of "
            "goods?", ["Excise duty", "Value-added tax", "Poll tax", "Capital gains tax"]),
    ("tcp", "Which transport protocol guarantees ordered, reliable delivery of a byte stream using "
            "acknowledgements and retransmission?", ["UDP", "TCP", "ICMP", "ARP"]),
]
# The DNA question in other words and order, without its choices ...
DNA_RESTATED = ("At the replication fork, which enzyme breaks the hydrogen bonds that join base pairs, "
                "unwinding the double helix of DNA?")
# ... and with its choices reworded into the sentence, as a quiz site writes it.
DNA_FULL = ("Quick biology check: at a replication fork, what opens up DNA's double helix, snapping the "
            "hydrogen bonds that hold base pairs together? Is it helicase, ligase, primase or topoisomerase?")
# A news paragraph holding a few of the DNA question's words (fork, double, bonds, base, pairs).
NEWS = ("Road crews broke ground on Monday at the fork where the highway splits near the old army base. "
        "The council expects traffic to double by spring, and it sold bonds to pay for two pairs of new "
        "bridges across the river. Residents asked for a crossing guard near the primary school.")
HOST = ("The museum reopened its east wing on Saturday after a year of repairs. Visitors queued along "
        "the square for the new exhibition of local paintings and old maps.")


def mc_config(tmp: Path, contamination: dict[str, Any] | None = None,
              items: list[tuple[str, str, list[str]]] = MC_ITEMS) -> AuditConfig:
    """A config whose one eval set is `items` (fields question and choices, each a unit), with
    `contamination` settings."""
    with open(tmp / "mc.jsonl", "w", encoding="utf-8") as f:
        f.writelines(json.dumps({"id": i, "question": q, "choices": c}) + "\n" for i, q, c in items)
    return parse_config({"input": {"paths": ["x/"]}, "contamination": contamination or {}, "eval_sets": [
        {"name": "mc", "path": "mc.jsonl", "text_fields": ["question", "choices"], "id_field": "id"}]},
        base_dir=tmp)


def mc_counted(tmp: Path, texts: list[str], contamination: dict[str, Any] | None = None,
               items: list[tuple[str, str, list[str]]] = MC_ITEMS) -> list[list[dict]]:
    """The counted contamination matches of each of `texts` against `items` (see mc_config)."""
    config = mc_config(tmp, contamination, items)
    out = ContaminationStage(config)(pa.table({"text": pa.array(texts, pa.string())}))
    return counted(out.column("contamination"), config).to_pylist()

# An item whose rarest words are compounds (two hyphenated, one joined, one pair of words), and
# its restatement writing them otherwise: apart, and the pair hyphenated.
FPGA = ("fpga", "Which reconfigurable chip, a field-programmable gate array, is prototyped on a breadboard and "
                "programmed in a hardware-description language?", ["ASIC", "FPGA", "CPLD", "GPU"])
FPGA_RESTATED = ("Programmed in a hardware description language and often tried out on a bread board first, a "
                 "field programmable gate-array is what kind of reconfigurable chip?")

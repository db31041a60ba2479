"""Held-out Chinese translations, written by hand for bench/eval_heldout_rewrites.py as a chat model
translates a quiz or a word problem into Chinese (written before any change to the gloss tier
they measure; the gloss tier is tuned on bench/eval_contamination_wild.py's Chinese kinds, never
on these).

Kinds:
- MC_ZH_QUESTION: the 15 multiple-choice items of bench/heldout_rewrites.py's MC_HELDOUT (by
  position), the question alone; names transliterated as Chinese writes them (康德, 休谟,
  托尔德西里亚斯, 奥威尔), formulas and numbers kept;
- MC_ZH_FULL: the same question with its choices, printed as a Chinese quiz page prints them
  (one "A. ..." line a choice);
- GSM8K_ZH: 10 GSM8K test questions (by index; none of those the wild bench translates, none of
  heldout_rewrites.py's), names transliterated, numbers sometimes in Chinese numerals (十倍,
  三分之一, 三十张).
"""
from __future__ import annotations

# (question, [choice A, B, C, D]) of MC_HELDOUT's items, in order, translated into Chinese.
_MC_ZH: list[tuple[str, list[str]]] = [
    ("下列哪一项最能描述真核细胞中线粒体的功能？",
     ["合成蛋白质", "通过细胞呼吸产生ATP", "储存遗传信息", "将物质运出细胞"]),
    ("在完全竞争市场中，厂商实现利润最大化的产量位于以下哪种情况：",
     ["边际收益等于边际成本", "平均总成本最低", "总收益最大", "价格超过平均可变成本的幅度最大"]),
    ("哪位哲学家认为，唯一无条件的善是善良意志？",
     ["约翰·斯图尔特·密尔", "伊曼努尔·康德", "亚里士多德", "大卫·休谟"]),
    ("函数 f(x) = x^2 sin(x) 的导数是什么？",
     ["2x sin(x)", "x^2 cos(x)", "2x sin(x) + x^2 cos(x)", "2x cos(x) - x^2 sin(x)"]),
    ("《托尔德西里亚斯条约》（1494年）将欧洲以外新发现的土地划分给了哪两个国家？",
     ["英国和法国", "西班牙和葡萄牙", "西班牙和荷兰", "葡萄牙和英国"]),
    ("在计算机网络中，OSI模型的哪一层负责在不同网络之间路由数据包？",
     ["数据链路层", "传输层", "网络层", "会话层"]),
    ("一名患者出现乏力、面色苍白，且平均红细胞体积偏低。以下哪项是最可能的诊断？",
     ["维生素B12缺乏性贫血", "缺铁性贫血", "叶酸缺乏性贫血", "溶血性贫血"]),
    ("根据美国宪法，以下哪项权力专属于众议院？",
     ["批准条约", "确认联邦法官的任命", "提出财政收入法案", "审理弹劾案"]),
    ("关于多普勒效应，下列哪种说法是正确的？",
     ["声源远离观察者时，观察到的频率升高", "声源向观察者靠近时，观察到的频率升高", "声速随声源的运动而改变",
      "波的振幅决定其被观察到的频率"]),
    ("在经典条件反射中，当条件刺激反复出现而不伴随无条件刺激时，条件反应会逐渐减弱，这一现象称为什么？",
     ["自发恢复", "消退", "泛化", "分化"]),
    ("在一棵有n个节点的平衡二叉搜索树中查找一个元素，其时间复杂度是多少？",
     ["O(1)", "O(log n)", "O(n)", "O(n log n)"]),
    ("哪一项会计原则要求费用与其帮助产生的收入在同一会计期间内确认？",
     ["收入确认原则", "配比原则", "历史成本原则", "持续经营原则"]),
    ("按体积计算，哪种气体在地球大气中所占的比例最大？",
     ["氧气", "二氧化碳", "氮气", "氩气"]),
    ("如果事件A的概率为0.3，事件B的概率为0.5，且A与B相互独立，那么A和B同时发生的概率是多少？",
     ["0.8", "0.15", "0.2", "0.65"]),
    ("乔治·奥威尔的哪部小说描绘了一个在“老大哥”领导的政权持续监视下的社会？",
     ["《动物农场》", "《美丽新世界》", "《一九八四》", "《华氏451度》"]),
]

MC_ZH_QUESTION: list[str] = [q for q, _ in _MC_ZH]
MC_ZH_FULL: list[str] = [q + "\n" + "\n".join(f"{'ABCD'[k]}. {c}" for k, c in enumerate(cs)) for q, cs in _MC_ZH]

# GSM8K test questions (by index) translated into Chinese.
GSM8K_ZH: dict[int, str] = {
    40: "布兰登的iPhone用的年头是本的iPhone的四倍，本的iPhone用的年头是苏西的iPhone的两倍。如果苏西的iPhone用了一年，"
        "布兰登的iPhone用了几年？",
    48: "特蕾西用一根4英尺长的铁丝在花园里给番茄苗做支架。这根铁丝被剪成了每段6英寸长的小段。她一共得到了多少段？",
    56: "彼得打算这周去看电影。他每次都买一张7美元的电影票和一份7美元的爆米花。如果他这周有42美元，他可以去看几次电影？",
    72: "汤米在为他的慈善机构筹款，布朗尼每块卖3美元，芝士蛋糕每块卖4美元。如果汤米卖出了43块布朗尼和23块芝士蛋糕，"
        "他一共筹到了多少钱？",
    88: "玛丽莲的第一张唱片的销量是哈拉尔德的十倍。如果他们的唱片一共卖出了88,000张，哈拉尔德卖出了多少张？",
    104: "波比正在拼一幅1000片的拼图。她先把四分之一的拼图块放到了板上，然后她妈妈又放了剩下拼图块的三分之一。"
         "还剩多少块拼图需要放？",
    120: "米格尔每周画画要用掉两本画纸。如果每本画纸有三十张，他每个月要用多少张纸？",
    136: "世界上只剩下27只独角兽，其中三分之一生活在苏格兰高地。苏格兰的独角兽中有三分之二是雌性。苏格兰的雌性独角兽有多少只？",
    152: "卡尔买了十包饼干，每包里有六块饼干，每块饼干0.10美元。如果他用一张10美元的钞票付款，能找回多少零钱？",
    200: "巴尔杜尔从井里打水。他每天早上打5桶水，每天下午打6桶水。如果每桶水有5升，他每天一共能打多少升水？",
}

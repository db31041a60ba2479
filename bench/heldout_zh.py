"""Held-out Chinese translations, written by hand for bench/eval_heldout_rewrites.py as a chat model
translates a quiz or a word problem into Chinese (written before any change to the gloss tier
they measure). MC_ZH_QUESTION, MC_ZH_FULL and GSM8K_ZH were held out at first and have since been
looked at while tuning the gloss tier (2026-11-25, with bench/eval_contamination_wild.py's Chinese
kinds); MC_ZH2, written then before any change, is the held-out set now: never tuned on.

Kinds:
- MC_ZH_QUESTION: the 15 multiple-choice items of bench/heldout_rewrites.py's MC_HELDOUT (by
  position), the question alone; names transliterated as Chinese writes them (康德, 休谟,
  托尔德西里亚斯, 奥威尔), formulas and numbers kept;
- MC_ZH_FULL: the same question with its choices, printed as a Chinese quiz page prints them
  (one "A. ..." line a choice);
- GSM8K_ZH: 10 GSM8K test questions (by index; none of those the wild bench translates, none of
  heldout_rewrites.py's), names transliterated, numbers sometimes in Chinese numerals (十倍,
  三分之一, 三十张);
- MC_ZH2: a second held-out set, never tuned on (kind zh_mc_question2): 25 new multiple-choice items
  (chemistry, physics, biology, history, law, economics, medicine, computing, literature, earth
  science, statistics; 8-24 English words; names, dates and numbers in some) and their questions
  alone in Chinese.
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

# The second held-out set (kind zh_mc_question2 of bench/eval_heldout_rewrites.py), written by hand
# before any change to the gloss tier it measures and never looked at while tuning it: new
# multiple-choice items (question, [choices A-D]; eval ids mch<35 + k>), and the question alone
# translated into Chinese as a Chinese quiz site words it (names transliterated, numbers kept).
MC_ZH2: list[tuple[str, list[str], str]] = [
    ("Which element has the highest electronegativity on the Pauling scale?",
     ["Oxygen", "Fluorine", "Chlorine", "Nitrogen"],
     "按照鲍林标度，电负性最高的元素是哪一种？"),
    ("A ball is dropped from a height of 20 meters. Ignoring air resistance, about how long does it take to "
     "reach the ground?",
     ["0.5 seconds", "1 second", "2 seconds", "4 seconds"],
     "一个小球从20米高处由静止释放，不计空气阻力，大约需要多长时间落地？"),
    ("During which phase of mitosis do sister chromatids separate and move toward opposite poles of the cell?",
     ["Prophase", "Metaphase", "Anaphase", "Telophase"],
     "在有丝分裂的哪个时期，姐妹染色单体彼此分离并移向细胞的两极？"),
    ("Which dynasty built most of the sections of the Great Wall of China that still stand today?",
     ["The Qin dynasty", "The Han dynasty", "The Tang dynasty", "The Ming dynasty"],
     "今天仍然屹立的长城，大部分是哪个朝代修建的？"),
    ("In 1815, at which battle was Napoleon Bonaparte finally defeated by the armies of Wellington and Blücher?",
     ["Austerlitz", "Leipzig", "Waterloo", "Borodino"],
     "1815年，拿破仑·波拿巴在哪一场战役中最终被威灵顿和布吕歇尔率领的军队击败？"),
    ("Under the principle of habeas corpus, what right does a detained person have?",
     ["To challenge the lawfulness of the detention before a court", "To remain silent during questioning",
      "To be tried by a jury of peers", "To receive free legal counsel"],
     "根据人身保护令原则，被拘押的人享有哪项权利？"),
    ("In tort law, besides duty, breach and causation, what must a plaintiff usually prove to establish "
     "negligence?",
     ["Damages", "Intent", "Malice", "Consideration"],
     "在侵权法中，要证明对方存在过失，原告除了注意义务、违反义务和因果关系之外，通常还必须证明什么？"),
    ("What does the Gini coefficient measure in a country's economy?",
     ["The inequality of income distribution", "The rate of inflation", "The rate of unemployment",
      "The balance of trade"],
     "基尼系数衡量的是一个国家经济的哪个方面？"),
    ("If the central bank raises the reserve requirement for commercial banks, what is the most likely effect "
     "on the money supply?",
     ["It increases", "It decreases", "It stays the same", "It doubles"],
     "如果中央银行提高商业银行的法定存款准备金率，货币供应量最可能发生什么变化？"),
    ("According to Adam Smith, what leads individuals pursuing their own self-interest to promote the good of "
     "society?",
     ["The invisible hand of the market", "The regulation of the state", "The moral duty of the citizen",
      "The guilds of the merchants"],
     "根据亚当·斯密的观点，是什么引导追求自身利益的个人促进了整个社会的利益？"),
    ("Deficiency of which vitamin causes scurvy, a disease once common among sailors on long voyages?",
     ["Vitamin A", "Vitamin C", "Vitamin D", "Vitamin K"],
     "缺乏哪种维生素会导致坏血病？这种病过去在远洋航行的水手中十分常见。"),
    ("Which organ in the human body produces insulin?",
     ["The liver", "The pancreas", "The kidney", "The spleen"],
     "人体中哪个器官分泌胰岛素？"),
    ("A patient with type 1 diabetes develops rapid breathing, a fruity breath odor and very high blood "
     "glucose. What is the most likely complication?",
     ["Diabetic ketoacidosis", "Hypoglycemia", "Lactic acidosis", "Diabetic neuropathy"],
     "一名1型糖尿病患者出现呼吸急促、呼气有烂苹果味，且血糖非常高。最可能的并发症是什么？"),
    ("Which data structure processes its elements on a last-in, first-out basis?",
     ["Queue", "Stack", "Heap", "Linked list"],
     "哪种数据结构按照“后进先出”的原则处理元素？"),
    ("In public-key cryptography such as RSA, which key is used to encrypt a message sent to a recipient?",
     ["The recipient's public key", "The recipient's private key", "The sender's private key",
      "A shared session key"],
     "在RSA等公钥密码体制中，向接收者发送消息时应使用哪个密钥进行加密？"),
    ("What is the worst-case time complexity of quicksort on an array of n elements?",
     ["O(n log n)", "O(n^2)", "O(n)", "O(log n)"],
     "对一个含有n个元素的数组进行快速排序，最坏情况下的时间复杂度是多少？"),
    ("Who wrote the novel One Hundred Years of Solitude, which is set in the fictional town of Macondo?",
     ["Gabriel García Márquez", "Jorge Luis Borges", "Mario Vargas Llosa", "Pablo Neruda"],
     "小说《百年孤独》以虚构的小镇马孔多为背景，它的作者是谁？"),
    ("In Shakespeare's Hamlet, who kills Polonius while he is hiding behind a curtain?",
     ["Hamlet", "Laertes", "Claudius", "Horatio"],
     "在莎士比亚的《哈姆雷特》中，波洛涅斯躲在帷幕后面时被谁杀死了？"),
    ("Which poetic form consists of fourteen lines, usually written in iambic pentameter?",
     ["Sonnet", "Haiku", "Limerick", "Villanelle"],
     "哪种诗体由十四行诗句组成，通常采用抑扬格五音步写成？"),
    ("Which layer of the Earth lies directly beneath the crust and makes up most of the planet's volume?",
     ["The outer core", "The mantle", "The inner core", "The lithosphere"],
     "地球的哪一层位于地壳正下方，并占据了地球体积的大部分？"),
    ("What is the pH of a neutral aqueous solution at 25 degrees Celsius?",
     ["0", "7", "14", "1"],
     "在25摄氏度时，中性水溶液的pH值是多少？"),
    ("In hypothesis testing, what does a researcher usually do when the p-value is below 0.05?",
     ["Reject the null hypothesis", "Accept the null hypothesis", "Increase the significance level",
      "Discard the sample"],
     "在假设检验中，当p值低于0.05时，研究者通常会怎样做？"),
    ("Which ancient civilization built the city of Machu Picchu in the Andes mountains of Peru?",
     ["The Aztecs", "The Maya", "The Inca", "The Olmecs"],
     "哪个古代文明在秘鲁的安第斯山脉建造了马丘比丘城？"),
    ("Why does the Moon always show the same side to the Earth?",
     ["Because it does not rotate", "Because of tidal locking", "Because of the Earth's shadow",
      "Because of the Sun's gravity"],
     "为什么月球总是以同一面朝向地球？"),
    ("Who was the first President of the United States to be impeached by the House of Representatives?",
     ["Andrew Johnson", "Richard Nixon", "Bill Clinton", "Andrew Jackson"],
     "谁是第一位遭到众议院弹劾的美国总统？"),
]


# Ten of the Chinese questions above reworded in Chinese (other words, other order; written by hand
# 2026-11-25 for bench/eval_eval_sets.py's Chinese eval set, before Han characters were stems; no
# setting tuned on them): (set, position) -> the rewording. "mc": _MC_ZH, "mc2": MC_ZH2.
ZH_REWORDED: dict[tuple[str, int], str] = {
    ("mc", 0): "真核细胞里的线粒体主要承担什么功能？下面哪个说法最准确？",
    ("mc", 2): "有一位哲学家主张，只有善良意志才是无条件的善，这位哲学家是谁？",
    ("mc", 5): "在OSI七层网络模型里，负责把数据包从一个网络路由到另一个网络的是哪一层？",
    ("mc", 7): "按照美国宪法的规定，哪一项权力只归众议院所有？",
    ("mc2", 0): "在鲍林电负性标度中，哪种元素的电负性最高？",
    ("mc2", 2): "姐妹染色单体在有丝分裂的哪一个阶段相互分开，并分别移向细胞两极？",
    ("mc2", 3): "如今依然矗立的长城，主要是在哪个朝代建造的？",
    ("mc2", 4): "拿破仑·波拿巴于1815年在哪场战役中被威灵顿和布吕歇尔的联军彻底打败？",
    ("mc2", 6): "在侵权法上，原告要证明被告有过失，除了注意义务、义务的违反和因果关系以外，一般还需要证明哪一点？",
    ("mc2", 7): "基尼系数用来衡量一个国家经济中的哪一方面？",
}

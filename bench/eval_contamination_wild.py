"""Contamination recall on leaks as they appear in the wild, written by hand and by rule, and false
documents on real clean text of several kinds.

    python bench/eval_contamination_wild.py --data ../shared/data [--clean 3000] [--rule 200] [--json]
        [--set rewrite_keys=false]   (without the translation keys)

Eval sets, as a user would configure them (each field also a unit of its own): GSM8K test
(question, answer), HumanEval (prompt, canonical_solution) and a small multiple-choice set
written for this bench (question, choices: a list, read one choice a line).

Leak kinds, each planted into a real ABC news paragraph:
- hand_restated: GSM8K questions restated by hand (other words and order, names and numbers kept);
- hand_mc_question: multiple-choice questions restated by hand, without their choices;
- hand_mc_full: a multiple-choice question and its choices restated together by hand, as a quiz or
  blog words them ("Is it A, B, C or D?");
- mc_question: a multiple-choice question verbatim, without its choices;
- rule_restated: GSM8K questions (odd-numbered items) restated by rule: sentences reversed, words
  and phrases swapped from a synonym table (bench/eval_contamination_rewrites.py's), a tenth of
  the words dropped or replaced;
- translated_de / _es / _fr / _zh / _ru: GSM8K questions translated by hand (checked by reading;
  12-13 a language; Chinese and Russian names transliterated, small numbers often in words), each
  planted among Leipzig sentences of its language;
- translated_zh_mc: multiple-choice questions with their choices translated into Chinese by hand
  (all 32 of MC), planted among Chinese Leipzig sentences;
- translated_zh_mc_question: 16 of those questions translated again without their choices,
  worded apart from the ones above;
- translated_{de,es,fr,ru}_mc_question: the same 16 questions translated by hand into German,
  Spanish, French and Russian without their choices (few numbers and names: cognates are left);
- heldout_{it,pt,nl,pl,uk}_mc_question and heldout_{it,pt,ja,el}_gsm8k: the 16 questions translated by
  hand into Italian, Portuguese, Dutch, Polish and Ukrainian, and 6-8 GSM8K questions into Italian,
  Portuguese, Japanese and Greek (bench/heldout_languages.py); heldout_{it,pt}_gsm8k_words: 6 GSM8K
  questions whose small numbers are words, translated with them in words, languages no tier was written for, and
  heldout_{nl,pl,sv,tr}_gsm8k_words: 6 other such questions into Dutch, Polish, Swedish and Turkish: never tuned on;
  planted with an RNG of their own, after the clean documents are drawn;
- port_{cpp,go,java,rust}_code: HumanEval ported by people (rewrites/humaneval_x_*.jsonl.gz),
  declaration and solution only: no English word of the docstring left.
None of it comes from, or was tuned on, any published set of model-written rewrites.

Clean documents: ABC news paragraphs, forum and chat lines (webtext, 20 lines a document),
Project Gutenberg passages (3,000 characters each), Python documentation pages (code-rich),
Leipzig sentences of 75 languages (15 of one language a document) and Debian fortunes in English,
Chinese, Russian, German and Spanish (8 a document), in equal parts; then --clean-zh Chinese
documents (kind "chinese": Leipzig zh sentences, 15 a document, and Chinese Debian fortunes, 8 a
document, modern prose and classical verse, none drawn already); then --clean-synthetic documents of
five Presidio sentences each (kind "synthetic": letters, forms and chat around fake personal data). Prints item recall per kind
(and by method), false contaminated documents per kind of clean text and by method, and the
stage's MB/s on the clean text (one process). As in a job, the language stage runs first (not
timed): its column names the language whose number words the translation keys read.
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
from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from audit.config import AuditConfig, parse_config  # noqa: E402
from heldout_languages import GSM8K as HELD_GSM8K, GSM8K_WORDS as HELD_GSM8K_WORDS, MC_QUESTION as HELD_MC  # noqa: E402
from heldout_languages import GSM8K_WORDS_MORE as HELD_GSM8K_WORDS_MORE  # noqa: E402
from audit.stages.contamination import ContaminationIndex, ContaminationStage, counted  # noqa: E402
from audit.stages.language import LanguageStage  # noqa: E402
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
# More of them, and Chinese and Russian ones (names transliterated, so only the numbers carry),
# translated by hand from the English items (checked by reading, numbers compared one by one).
TRANSLATED["de"] |= {
    15: "Ein Händler möchte zwischen 2 Kaufplänen wählen: Schmuck im Wert von 5.000 $ oder elektronische "
        "Geräte im Wert von 8.000 $. Sein Finanzberater vermutet, dass der Schmuckmarkt im selben Monat um "
        "2,5 % steigen wird, der Markt für elektronische Geräte dagegen um 1,2 %. Wenn der Händler mit seiner "
        "Wahl am Ende dieses Monats den größten Gewinn erzielen will, wie hoch wäre dieser Gewinn?",
    17: "Jill bekommt 20 $ pro Stunde für das Unterrichten und 30 $ als Cheerleading-Trainerin. Wenn sie 50 "
        "Wochen im Jahr arbeitet, davon 35 Stunden pro Woche als Lehrerin und 15 Stunden pro Woche als "
        "Trainerin, wie hoch ist ihr Jahresgehalt?",
    25: "Marie bestellte ein Hähnchengericht für 12 $, 5 Packungen Milch zu je 3 $, 4 Äpfel zu je 1,50 $ und "
        "einige Schachteln Pizza. Marie zahlte insgesamt 50 $. Wie viele Schachteln Pizza hat Marie "
        "bestellt, wenn jede Schachtel 8,50 $ kostet?",
}
TRANSLATED["es"] |= {
    15: "Un comerciante quiere elegir entre 2 planes de compra: joyas por valor de 5.000 $ o aparatos "
        "electrónicos por valor de 8.000 $. Su asesor financiero prevé que el mercado de joyas subirá un "
        "2,5 % y el de aparatos electrónicos un 1,2 % en el mismo mes. Si el comerciante quiere obtener el "
        "máximo beneficio al final de este mes con su elección, ¿cuánto sería ese beneficio?",
    17: "A Jill le pagan 20 $ por hora por dar clases y 30 $ por ser entrenadora de animadoras. Si trabaja 50 "
        "semanas al año, 35 horas a la semana como profesora y 15 horas a la semana como entrenadora, ¿cuál "
        "es su salario anual?",
    25: "Marie pidió un plato de pollo que cuesta 12 $, 5 paquetes de leche de 3 $ cada uno, 4 manzanas de "
        "1,50 $ cada una y algunas cajas de pizza. Marie pagó un total de 50 $. ¿Cuántas cajas de pizza "
        "pidió Marie si cada caja cuesta 8,50 $?",
}
TRANSLATED["fr"] |= {
    15: "Un commerçant veut choisir entre 2 plans d'achat : des bijoux d'une valeur de 5 000 $ ou des "
        "gadgets électroniques d'une valeur de 8 000 $. Son conseiller financier prévoit que le marché des "
        "bijoux augmentera de 2,5 % et celui des gadgets électroniques de 1,2 % au cours du même mois. Si le "
        "commerçant veut maximiser son bénéfice à la fin de ce mois, quel serait ce bénéfice ?",
    17: "Jill est payée 20 $ de l'heure pour enseigner et 30 $ comme entraîneuse de pom-pom girls. Si elle "
        "travaille 50 semaines par an, 35 heures par semaine comme enseignante et 15 heures par semaine "
        "comme entraîneuse, quel est son salaire annuel ?",
    25: "Marie a commandé un plat de poulet à 12 $, 5 packs de lait à 3 $ chacun, 4 pommes à 1,50 $ chacune "
        "et quelques boîtes de pizza. Marie a payé 50 $ au total. Combien de boîtes de pizza Marie "
        "a-t-elle commandées si chaque boîte coûte 8,50 $ ?",
}
TRANSLATED["zh"] = {
    5: "凯拉去商店为他的新公寓买玻璃杯。一个杯子5美元，但每第二个杯子只要原价的60%。凯拉想买16个杯子。他一共需要付多少钱？",
    7: "卡拉正在下载一个200 GB的文件。通常她每分钟能下载2 GB，但下载到40%时，Windows强制重启以安装更新，这需要20分钟。"
       "之后卡拉必须从头重新下载。下载这个文件总共需要多长时间？",
    9: "伊丽莎每周前40个小时的时薪是10美元。加班时她能得到正常时薪1.2倍的加班费。如果伊丽莎这周工作了45个小时，她这周的收入是多少？",
    11: "图拉去面包店买了各种糕点。她买了3打甜甜圈，每打68美元；2打迷你纸杯蛋糕，每打80美元；还有6打迷你芝士蛋糕，每打55美元。"
        "总共花了多少钱？",
    15: "一位商人想在2种采购方案之间做出选择：价值5,000美元的珠宝或价值8,000美元的电子产品。他的财务顾问预计，同一个月内珠宝"
        "市场将上涨2.5%，而电子产品市场将上涨1.2%。如果商人希望通过选择在本月底获得最大利润，这个利润是多少？",
    17: "吉尔教书每小时收入20美元，做啦啦队教练每小时收入30美元。如果她一年工作50周，每周当老师35小时，当教练15小时，她的年薪是多少？",
    19: "玛丽莎正在徒步一条12英里的小路。她用1小时走了前4英里，又用了一个小时走了接下来的两英里。如果她希望平均速度达到每小时"
        "4英里，剩下的路程她需要以多快的速度（英里每小时）行走？",
    25: "玛丽点了一份12美元的鸡肉餐、5盒每盒3美元的牛奶、4个每个1.50美元的苹果，还有几盒披萨。玛丽一共付了50美元。如果每盒披萨"
        "8.50美元，玛丽点了几盒披萨？",
}
TRANSLATED["ru"] = {
    5: "Кайлар пошёл в магазин купить стаканы для своей новой квартиры. Один стакан стоит 5 $, но каждый "
       "второй стакан стоит только 60 % от цены. Кайлар хочет купить 16 стаканов. Сколько ему нужно за них "
       "заплатить?",
    7: "Карла скачивает файл размером 200 ГБ. Обычно она может скачивать 2 ГБ в минуту, но на 40 % загрузки "
       "Windows принудительно перезагружается для установки обновлений, что занимает 20 минут. Затем Карле "
       "приходится начинать загрузку с начала. Сколько времени занимает загрузка файла?",
    9: "Почасовая ставка Элизы за первые 40 часов работы в неделю составляет 10 $. За сверхурочные она "
       "получает в 1,2 раза больше своей обычной почасовой ставки. Если Элиза на этой неделе отработала 45 "
       "часов, сколько она заработала за эту неделю?",
    11: "Тула пошла в пекарню и купила разную выпечку. Она купила 3 дюжины пончиков по 68 $ за дюжину, 2 "
        "дюжины мини-кексов по 80 $ за дюжину и 6 дюжин мини-чизкейков по 55 $ за дюжину. Сколько всего она "
        "потратила?",
    15: "Торговец хочет выбрать между 2 вариантами покупки: ювелирными украшениями стоимостью 5 000 $ или "
        "электронными гаджетами стоимостью 8 000 $. Его финансовый советник предполагает, что рынок "
        "украшений вырастет на 2,5 %, а рынок электронных гаджетов — на 1,2 % в течение того же месяца. Если "
        "торговец хочет получить максимальную прибыль к концу месяца, какой будет эта прибыль?",
    17: "Джилл получает 20 $ в час за преподавание и 30 $ в час как тренер группы поддержки. Если она работает "
        "50 недель в году, 35 часов в неделю учителем и 15 часов в неделю тренером, какова её годовая зарплата?",
    19: "Марисса идёт по тропе длиной 12 миль. Первые 4 мили она прошла за 1 час, а следующие две мили — ещё "
        "за час. Если она хочет, чтобы её средняя скорость была 4 мили в час, с какой скоростью (в милях в "
        "час) ей нужно пройти оставшееся расстояние?",
    25: "Мари заказала одно блюдо из курицы за 12 $, 5 пакетов молока по 3 $ каждый, 4 яблока по 1,50 $ "
        "каждое и несколько коробок пиццы. Всего Мари заплатила 50 $. Сколько коробок пиццы заказала Мари, "
        "если каждая коробка стоит 8,50 $?",
}
# Five more items in every language, written for this round (numbers often in words, as a
# translator writes small ones; names transliterated in Chinese and Russian), checked by reading.
TRANSLATED["de"] |= {
    21: "Raymond und Samantha sind Cousin und Cousine. Raymond wurde sechs Jahre vor Samantha geboren. Mit 23 "
        "Jahren bekam Raymond einen Sohn. Wenn Samantha jetzt 31 ist, vor wie vielen Jahren wurde Raymonds "
        "Sohn geboren?",
    27: "Cynthia isst jeden Abend eine Portion Eiscreme. Sie kauft Eiscreme in Packungen mit je 15 Portionen, "
        "eine Packung kostet 4,00 $. Wie viel gibt sie nach 60 Tagen für Eiscreme aus?",
    29: "Gloria kauft Schuhe und findet ein Paar Stiefel, das in ihr Schuhbudget passt. Sie muss sich jedoch "
        "zwischen den Stiefeln und zwei Paar High Heels entscheiden, die zusammen fünf Dollar weniger kosten "
        "als die Stiefel. Wenn ein Paar High Heels 33 $ kostet und das andere doppelt so viel, wie viele Dollar "
        "kosten die Stiefel?",
    31: "Gunter versucht, die Geleebohnen in einem Glas zu zählen. Er fragt seine Freunde, wie viele sie im Glas "
        "vermuten. Einer sagt 80. Ein anderer sagt 20 mehr als die Hälfte des ersten. Ein Dritter sagt 25 % "
        "mehr als der erste. Wie hoch ist ihre durchschnittliche Schätzung?",
    37: "John will all sein Spielzeug verkaufen und mit dem Geld Videospiele kaufen. Er hat 13 Lego-Sets und "
        "verkauft sie für je 15 $. Am Ende kauft er 8 Videospiele für je 20 $ und hat noch 5 $ übrig. Wie viele "
        "Lego-Sets hat er noch?",
}
TRANSLATED["es"] |= {
    21: "Raymond y Samantha son primos. Raymond nació seis años antes que Samantha. Raymond tuvo un hijo a los "
        "23 años. Si Samantha tiene ahora 31 años, ¿hace cuántos años nació el hijo de Raymond?",
    27: "Cynthia come una porción de helado cada noche. Compra cajas de helado de 15 porciones cada una a 4,00 $ "
        "la caja. Después de 60 días, ¿cuánto habrá gastado en helado?",
    29: "Gloria está comprando zapatos cuando encuentra un par de botas que se ajustan a su presupuesto. Sin "
        "embargo, tiene que elegir entre las botas y dos pares de tacones que juntos cuestan cinco dólares menos "
        "que las botas. Si un par de tacones cuesta 33 $ y el otro cuesta el doble, ¿cuántos dólares cuestan "
        "las botas?",
    31: "Gunter intenta contar las gominolas de un frasco. Pregunta a sus amigos cuántas creen que hay. Uno dice "
        "80. Otro dice 20 más que la mitad del primero. Un tercero dice un 25 % más que el primero. ¿Cuál es la "
        "media de sus estimaciones?",
    37: "John planea vender todos sus juguetes y usar el dinero para comprar videojuegos. Tiene 13 sets de Lego "
        "y los vende a 15 $ cada uno. Al final compra 8 videojuegos a 20 $ cada uno y le sobran 5 $. ¿Cuántos "
        "sets de Lego le quedan?",
}
TRANSLATED["fr"] |= {
    21: "Raymond et Samantha sont cousins. Raymond est né six ans avant Samantha. Raymond a eu un fils à l'âge "
        "de 23 ans. Si Samantha a maintenant 31 ans, il y a combien d'années le fils de Raymond est-il né ?",
    27: "Cynthia mange une portion de glace chaque soir. Elle achète des boîtes de glace de 15 portions "
        "chacune, au prix de 4,00 $ la boîte. Au bout de 60 jours, combien aura-t-elle dépensé en glace ?",
    29: "Gloria fait les magasins de chaussures quand elle trouve une paire de bottes qui correspond à son "
        "budget. Elle doit cependant choisir entre les bottes et deux paires de talons hauts qui, ensemble, "
        "coûtent cinq dollars de moins que les bottes. Si une paire de talons coûte 33 $ et l'autre deux fois "
        "plus, combien de dollars coûtent les bottes ?",
    31: "Gunter essaie de compter les bonbons dans un bocal. Il demande à ses amis combien ils pensent qu'il y "
        "en a. L'un dit 80. Un autre dit 20 de plus que la moitié du premier. Un troisième dit 25 % de plus que "
        "le premier. Quelle est leur estimation moyenne ?",
    37: "John prévoit de vendre tous ses jouets et d'utiliser l'argent pour acheter des jeux vidéo. Il a 13 "
        "boîtes de Lego qu'il vend 15 $ chacune. Il finit par acheter 8 jeux vidéo à 20 $ chacun et il lui "
        "reste 5 $. Combien de boîtes de Lego lui reste-t-il ?",
}
TRANSLATED["zh"] |= {
    21: "雷蒙德和萨曼莎是表兄妹。雷蒙德比萨曼莎早出生六年。雷蒙德23岁时有了一个儿子。如果萨曼莎现在31岁，雷蒙德的儿子是多少年前出生的？",
    27: "辛西娅每天晚上吃一份冰淇淋。她买的冰淇淋每盒有15份，每盒4.00美元。60天后，她在冰淇淋上要花多少钱？",
    29: "格洛丽亚在买鞋时看到一双符合她鞋子预算的靴子。但她必须在这双靴子和两双高跟鞋之间做出选择，这两双高跟鞋加起来比靴子便宜"
        "五美元。如果一双高跟鞋售价33美元，另一双的价格是它的两倍，这双靴子多少美元？",
    31: "冈特想数一数罐子里的软糖。他问朋友们觉得罐子里有多少颗。一个人说80颗。另一个人说比第一个人的一半多20颗。第三个人说比第一"
        "个人多25%。他们猜测的平均数是多少？",
    37: "约翰打算卖掉他所有的玩具，用这笔钱买电子游戏。他有13套乐高，每套卖15美元。最后他买了8个电子游戏，每个20美元，还剩下5美元。"
        "他还剩多少套乐高？",
}
TRANSLATED["ru"] |= {
    21: "Раймонд и Саманта — двоюродные брат и сестра. Раймонд родился на шесть лет раньше Саманты. В 23 года у "
        "Раймонда родился сын. Если Саманте сейчас 31 год, сколько лет назад родился сын Раймонда?",
    27: "Синтия каждый вечер съедает одну порцию мороженого. Она покупает мороженое в коробках по 15 порций, "
        "коробка стоит 4,00 $. Сколько она потратит на мороженое за 60 дней?",
    29: "Глория выбирает обувь и находит пару сапог, которые укладываются в её бюджет. Однако ей приходится "
        "выбирать между сапогами и двумя парами туфель на каблуках, которые вместе стоят на пять долларов "
        "меньше сапог. Если одна пара туфель стоит 33 $, а другая вдвое дороже, сколько долларов стоят сапоги?",
    31: "Гюнтер пытается сосчитать мармеладки в банке. Он спрашивает друзей, сколько их там, по их мнению. Один "
        "говорит 80. Другой говорит на 20 больше половины того, что назвал первый. Третий говорит на 25 % "
        "больше, чем первый. Каково их среднее предположение?",
    37: "Джон собирается продать все свои игрушки и на вырученные деньги купить видеоигры. У него 13 наборов "
        "Lego, и он продаёт их по 15 $ за штуку. В итоге он покупает 8 видеоигр по 20 $ за каждую, и у него "
        "остаётся 5 $. Сколько наборов Lego у него осталось?",
}
# A multiple-choice set written for this bench: (question, choices, the question restated by hand,
# the question and its choices restated together, as a quiz or blog post words them).
MC = [
    ("Which layer of the Earth's atmosphere contains most of the ozone that absorbs ultraviolet radiation "
     "from the Sun?", ["Troposphere", "Stratosphere", "Mesosphere", "Thermosphere"],
     "Most of the ozone that soaks up the Sun's ultraviolet radiation sits in which layer of Earth's "
     "atmosphere?",
     "Quiz time: where in the atmosphere does most ozone, the gas that blocks the Sun's UV rays, reside? "
     "Is it the troposphere, the stratosphere, the mesosphere or the thermosphere?"),
    ("In the Krebs cycle, which molecule combines with acetyl-CoA to form citrate at the start of each turn?",
     ["Oxaloacetate", "Pyruvate", "Malate", "Succinate"],
     "At the start of each turn of the Krebs cycle, acetyl-CoA joins which molecule to make citrate?",
     "Each round of the citric acid (Krebs) cycle begins when acetyl-CoA merges with one molecule to give "
     "citrate. Is that molecule oxaloacetate, pyruvate, malate or succinate?"),
    ("Which treaty, signed in 1648, ended the Thirty Years' War and is often cited as the origin of modern "
     "state sovereignty?", ["Treaty of Utrecht", "Peace of Westphalia", "Treaty of Versailles",
                            "Congress of Vienna"],
     "The Thirty Years' War was brought to an end in 1648 by which settlement, often named as the birth of "
     "modern state sovereignty?",
     "What agreement of 1648 closed the Thirty Years' War and is commonly credited with founding the modern "
     "sovereign state: the treaty of Utrecht, the Westphalian peace, Versailles, or the Vienna congress?"),
    ("A resistor of 220 ohms carries a current of 0.05 amperes. What is the voltage across the resistor?",
     ["1.1 volts", "4.4 volts", "11 volts", "44 volts"],
     "What voltage drops across a 220 ohm resistor when 0.05 amperes flow through it?",
     "If 0.05 A runs through a 220-ohm resistor, what's the voltage across it? Options: 1.1 V, 4.4 V, 11 V "
     "or 44 V."),
    ("Which sorting algorithm has a worst-case running time of O(n log n) and sorts in place using a binary "
     "heap?", ["Quicksort", "Merge sort", "Heapsort", "Insertion sort"],
     "Using a binary heap, which in-place sorting algorithm guarantees O(n log n) time even in the worst case?",
     "Which sort works in place on a binary heap and never takes more than O(n log n) steps: quicksort, "
     "mergesort, heapsort or insertion sort?"),
    ("Which economist argued in The General Theory of Employment, Interest and Money that aggregate demand "
     "drives output in the short run?", ["Adam Smith", "John Maynard Keynes", "Milton Friedman",
                                          "Friedrich Hayek"],
     "In The General Theory of Employment, Interest and Money, which economist made the case that short-run "
     "output is driven by aggregate demand?",
     "Whose General Theory of Employment, Interest and Money claimed that total demand sets output in the "
     "short term? Smith, Keynes, Friedman or Hayek?"),
    ("What is the name of the boundary around a black hole beyond which no light or other radiation can "
     "escape?", ["Photon sphere", "Event horizon", "Ergosphere", "Accretion disk"],
     "Past which boundary around a black hole can neither light nor any other radiation get out?",
     "Once past which edge of a black hole can no light or radiation escape: the photon sphere, the event "
     "horizon, the ergosphere or the accretion disc?"),
    ("Which Shakespeare play features the characters Prospero, Miranda, Ariel and Caliban on a remote "
     "island?", ["The Tempest", "Twelfth Night", "Cymbeline", "The Winter's Tale"],
     "Prospero, his daughter Miranda, the spirit Ariel and Caliban live on a remote island in which play "
     "by Shakespeare?",
     "In which of Shakespeare's plays do Prospero, Miranda, Ariel and Caliban share a faraway island: The "
     "Tempest, Twelfth Night, Cymbeline or The Winter's Tale?"),
    # written for this round: medicine, law, economics, computer science, math, history, science
    ("Which vitamin deficiency causes scurvy, a disease marked by bleeding gums and poor wound healing?",
     ["Vitamin A", "Vitamin B12", "Vitamin C", "Vitamin D"],
     "Bleeding gums and wounds that heal poorly are signs of scurvy, which results from lacking which vitamin?",
     "Scurvy (gums that bleed, wounds slow to close) comes from a shortage of which vitamin: A, B12, C or D?"),
    ("Under the United States Constitution, which amendment protects against unreasonable searches and "
     "seizures by the government?", ["First Amendment", "Fourth Amendment", "Fifth Amendment", "Eighth Amendment"],
     "Which amendment to the U.S. Constitution shields people from unreasonable government searches and "
     "seizures?",
     "Protection from unreasonable searches and seizures by the state comes from which amendment of the US "
     "Constitution: the 1st, the 4th, the 5th or the 8th?"),
    ("When the price of a good rises and the quantity demanded falls by a larger percentage, demand for the "
     "good is described as what?", ["Perfectly inelastic", "Inelastic", "Unit elastic", "Elastic"],
     "If quantity demanded drops by a bigger percentage than a good's price goes up, how is demand for that "
     "good described?",
     "A price increase causes a proportionally larger drop in the quantity people demand. Economists call "
     "such demand elastic, inelastic, unit elastic, or perfectly inelastic?"),
    ("Which data structure follows the last-in, first-out principle, where the most recently added element "
     "is removed first?", ["Queue", "Stack", "Linked list", "Hash table"],
     "In which data structure is the element added most recently the first one taken out, following "
     "last-in, first-out order?",
     "Last in, first out: the newest element leaves first. Is that a queue, a stack, a linked list, or a "
     "hash table?"),
    ("What is the derivative of the function f(x) = x^3 sin(x) with respect to the variable x?",
     ["3x^2 sin(x)", "x^3 cos(x)", "3x^2 sin(x) + x^3 cos(x)", "3x^2 cos(x)"],
     "Differentiate f(x) = x^3 sin(x) with respect to x. What derivative do you get?",
     "Take the derivative of x^3 sin(x) in x. Is it 3x^2 sin(x), x^3 cos(x), 3x^2 sin(x) + x^3 cos(x), "
     "or 3x^2 cos(x)?"),
    ("Which empire was ruled by Mansa Musa, whose pilgrimage to Mecca in 1324 became famous for its lavish "
     "display of gold?", ["Songhai Empire", "Mali Empire", "Ghana Empire", "Kanem-Bornu Empire"],
     "Mansa Musa's 1324 pilgrimage to Mecca, famed for the gold he gave away, was made by the ruler of "
     "which empire?",
     "Mansa Musa, remembered for the gold of his 1324 hajj to Mecca, ruled which empire: Songhai, Mali, "
     "Ghana or Kanem-Bornu?"),
    ("What is the pH of an aqueous solution whose hydrogen ion concentration is 1 x 10^-3 moles per liter?",
     ["3", "-3", "11", "7"],
     "An aqueous solution holds hydrogen ions at 1 x 10^-3 moles per liter. What pH does it have?",
     "If the concentration of hydrogen ions in water is 1 x 10^-3 mol per litre, is the pH 3, -3, 7 or 11?"),
    ("Which organelle is the site of photosynthesis in plant cells, containing the chlorophyll that captures "
     "light energy?", ["Mitochondrion", "Chloroplast", "Ribosome", "Golgi apparatus"],
     "In plant cells, photosynthesis takes place in which organelle, whose chlorophyll absorbs the energy "
     "of light?",
     "Plant cells trap light energy with chlorophyll in the organelle where photosynthesis happens. Is it "
     "the mitochondria, the chloroplasts, the ribosomes or the Golgi body?"),
    ("Which type of white blood cell is primarily responsible for producing antibodies in the adaptive "
     "immune response?", ["Neutrophils", "B lymphocytes", "Erythrocytes", "Platelets"],
     "In adaptive immunity, antibodies are mainly made by which kind of white blood cell?",
     "Antibody production during an adaptive immune response is mostly the job of which cells: neutrophils, "
     "B cells, red blood cells, or platelets?"),
    ("In contract law, what is the term for something of value exchanged between the parties that makes a "
     "promise legally enforceable?", ["Consideration", "Estoppel", "Novation", "Rescission"],
     "What do contract lawyers call the thing of value the parties swap that makes a promise enforceable "
     "at law?",
     "A promise becomes binding in contract law when each side gives something of value. Is this called "
     "consideration, estoppel, novation or rescission?"),
    ("A car accelerates uniformly from rest to 20 meters per second in 4 seconds. What is the magnitude of "
     "its acceleration?", ["4 m/s^2", "5 m/s^2", "80 m/s^2", "16 m/s^2"],
     "Starting at rest, a car reaches 20 meters per second after 4 seconds of steady acceleration. How "
     "large is the acceleration?",
     "Going from standstill to 20 m/s in 4 s at constant acceleration, how fast does a car accelerate: 4, "
     "5, 16 or 80 m/s^2?"),
    ("Which body sets the target for the federal funds rate as part of monetary policy in the United States?",
     ["The Treasury Department", "The Federal Open Market Committee", "Congress",
      "The Securities and Exchange Commission"],
     "Who decides the federal funds rate target when the United States conducts its monetary policy?",
     "In America's monetary policy the target federal funds rate is chosen by the Treasury, the Federal "
     "Open Market Committee, Congress, or the SEC?"),
    ("In relational databases, which normal form requires that every non-key attribute depend on the whole "
     "of every candidate key?", ["First normal form", "Second normal form", "Fourth normal form",
                                 "Fifth normal form"],
     "Which normal form of relational databases demands that each non-key attribute depend on all of every "
     "candidate key, not just part of it?",
     "Non-key attributes must depend on an entire candidate key, never on a part of it, in which normal "
     "form of a relational database: 1NF, 2NF, 4NF or 5NF?"),
    ("Who was the first emperor of a unified China, known for standardizing weights, measures and the "
     "writing system?", ["Liu Bang", "Qin Shi Huang", "Kublai Khan", "Emperor Wu of Han"],
     "Which ruler became the first emperor of a united China and standardized its writing, weights and "
     "measures?",
     "The first emperor to rule all of China, who made writing, weights and measures uniform, was Liu Bang, "
     "Qin Shi Huang, Kublai Khan, or Han Wudi?"),
    ("In how many distinct ways can 5 different books be arranged in a single row on a shelf?",
     ["25", "60", "120", "720"],
     "How many different orders are there for lining up five distinct books in one row on a shelf?",
     "Five different books go on a shelf side by side. How many arrangements are possible: 25, 60, 120 or "
     "720?"),
    ("Which type of plate boundary forms where two tectonic plates move apart from each other, as along the "
     "Mid-Atlantic Ridge?", ["Convergent boundary", "Divergent boundary", "Transform boundary",
                             "Subduction zone"],
     "Along the Mid-Atlantic Ridge two tectonic plates pull away from one another. What kind of plate "
     "boundary is this?",
     "Tectonic plates separating, as at the Mid-Atlantic Ridge, make which boundary: convergent, divergent, "
     "transform, or a subduction zone?"),
    ("Which neurotransmitter is most closely associated with the degeneration of neurons in Parkinson's "
     "disease?", ["Serotonin", "Dopamine", "Acetylcholine", "GABA"],
     "Parkinson's disease involves the loss of neurons that produce which neurotransmitter?",
     "The neurons lost in Parkinson's disease chiefly release which chemical messenger: serotonin, "
     "dopamine, acetylcholine or GABA?"),
    ("Which document, signed by King John of England in 1215, limited royal power and protected certain "
     "rights of the barons?", ["Bill of Rights", "Magna Carta", "Petition of Right", "Domesday Book"],
     "In 1215 King John of England put his seal to which charter curbing the crown's power and guarding "
     "the barons' rights?",
     "What did England's King John sign in 1215 to cap royal authority and secure rights for his barons: "
     "the Bill of Rights, Magna Carta, the Petition of Right or the Domesday Book?"),
    ("Which internet protocol translates human-readable domain names into the numerical IP addresses that "
     "computers use?", ["HTTP", "DNS", "DHCP", "SMTP"],
     "On the internet, what protocol turns domain names people can read into the numeric IP addresses "
     "machines use?",
     "Turning a domain name like example.com into the IP address a computer needs is the job of HTTP, DNS, "
     "DHCP or SMTP?"),
    ("In economics, what term describes the value of the next best alternative that is given up when a "
     "choice is made?", ["Sunk cost", "Marginal cost", "Opportunity cost", "Fixed cost"],
     "When you make a choice, what do economists call the value of the best alternative you give up?",
     "The worth of the next-best option you forgo when choosing is known as which cost: sunk, marginal, "
     "opportunity or fixed?"),
    ("Which element of the periodic table has the highest electronegativity value on the Pauling scale?",
     ["Oxygen", "Chlorine", "Fluorine", "Nitrogen"],
     "On the Pauling scale, which element in the periodic table is the most electronegative?",
     "Top of the Pauling electronegativity scale among the elements: is it oxygen, chlorine, fluorine or "
     "nitrogen?"),
    ("Which organ produces insulin, the hormone that lowers blood glucose levels after a meal?",
     ["Liver", "Pancreas", "Kidney", "Adrenal gland"],
     "After a meal, blood sugar is brought down by insulin, a hormone made by which organ?",
     "Insulin, which lowers the glucose in your blood after you eat, is secreted by the liver, the "
     "pancreas, the kidneys or the adrenal glands?"),
    ("In criminal law, what standard of proof must the prosecution meet to convict a defendant in the "
     "United States?", ["Preponderance of the evidence", "Clear and convincing evidence",
                        "Beyond a reasonable doubt", "Probable cause"],
     "To get a conviction in an American criminal trial, the prosecution has to prove guilt to which "
     "standard?",
     "US prosecutors convict only by meeting which burden of proof: a preponderance of evidence, clear and "
     "convincing evidence, proof beyond reasonable doubt, or probable cause?"),
    ("Which planet in our solar system has the shortest day, rotating once on its axis in about ten hours?",
     ["Saturn", "Jupiter", "Earth", "Mars"],
     "Spinning once on its axis roughly every ten hours, which planet of the solar system has the shortest "
     "day?",
     "The solar system's shortest day, about ten hours a rotation, belongs to Saturn, Jupiter, Earth or "
     "Mars?"),
]
# Multiple-choice questions of MC translated into Chinese by hand with their choices, as a Chinese
# quiz page would print them (numbers, formulas and acronyms kept; names transliterated).
TRANSLATED_MC_ZH = {
    0: "地球大气层的哪一层含有吸收太阳紫外线辐射的大部分臭氧？A. 对流层 B. 平流层 C. 中间层 D. 热层",
    2: "哪一项条约于1648年签订，结束了三十年战争，并常被视为现代国家主权的起源？A. 乌得勒支条约 B. 威斯特伐利亚和约 "
       "C. 凡尔赛条约 D. 维也纳会议",
    3: "一个220欧姆的电阻通过0.05安培的电流。电阻两端的电压是多少？A. 1.1伏 B. 4.4伏 C. 11伏 D. 44伏",
    4: "哪种排序算法的最坏情况运行时间为O(n log n)，并使用二叉堆进行原地排序？A. 快速排序 B. 归并排序 C. 堆排序 D. 插入排序",
    5: "哪位经济学家在《就业、利息和货币通论》中提出，短期内总需求决定产出？A. 亚当·斯密 B. 约翰·梅纳德·凯恩斯 "
       "C. 米尔顿·弗里德曼 D. 弗里德里希·哈耶克",
    7: "莎士比亚的哪部戏剧讲述了普洛斯彼罗、米兰达、爱丽儿和凯列班在一座偏远小岛上的故事？A. 暴风雨 B. 第十二夜 C. 辛白林 "
       "D. 冬天的故事",
    13: "曼萨·穆萨统治的是哪个帝国？他在1324年前往麦加朝圣，因挥金如土而闻名。A. 桑海帝国 B. 马里帝国 C. 加纳帝国 "
        "D. 加涅姆-博尔努帝国",
    14: "氢离子浓度为每升1×10^-3摩尔的水溶液，其pH值是多少？A. 3 B. -3 C. 11 D. 7",
    18: "一辆汽车从静止开始匀加速，4秒内速度达到每秒20米。它的加速度大小是多少？A. 4 m/s^2 B. 5 m/s^2 C. 80 m/s^2 D. 16 m/s^2",
    22: "5本不同的书排成一排放在书架上，共有多少种不同的排法？A. 25 B. 60 C. 120 D. 720",
    25: "1215年由英格兰国王约翰签署、限制王权并保护贵族某些权利的文件是哪一份？A. 权利法案 B. 大宪章 C. 权利请愿书 D. 末日审判书",
    26: "哪种互联网协议把人类可读的域名转换成计算机使用的数字IP地址？A. HTTP B. DNS C. DHCP D. SMTP",
    28: "在鲍林标度上，元素周期表中哪种元素的电负性最高？A. 氧 B. 氯 C. 氟 D. 氮",
    31: "太阳系中哪颗行星的一天最短，大约十小时自转一周？A. 土星 B. 木星 C. 地球 D. 火星",
}
# The other 18 of MC, translated by hand for this round (choice labels as Chinese quiz pages print
# them: "A.", "（A）", one a line).
TRANSLATED_MC_ZH |= {
    1: "在克雷布斯循环（三羧酸循环）中，每一轮开始时，哪种分子与乙酰辅酶A结合生成柠檬酸？A. 草酰乙酸 B. 丙酮酸 C. 苹果酸 "
       "D. 琥珀酸",
    6: "黑洞周围的哪一个边界一旦越过，光和任何其他辐射都无法逃逸？（A）光子球（B）事件视界（C）能层（D）吸积盘",
    8: "哪种维生素缺乏会导致坏血病？这种疾病的特征是牙龈出血和伤口愈合不良。\nA. 维生素A\nB. 维生素B12\nC. 维生素C\n"
       "D. 维生素D",
    9: "根据美国宪法，哪一条修正案保护人们免受政府不合理的搜查和扣押？A. 第一修正案 B. 第四修正案 C. 第五修正案 D. 第八修正案",
    10: "当一种商品的价格上涨、需求量下降的百分比更大时，这种商品的需求被称为什么？A. 完全无弹性 B. 缺乏弹性 C. 单位弹性 "
        "D. 富有弹性",
    11: "哪种数据结构遵循后进先出原则，即最近添加的元素最先被移除？（A）队列（B）栈（C）链表（D）哈希表",
    12: "函数f(x) = x^3 sin(x)对x的导数是什么？A. 3x^2 sin(x) B. x^3 cos(x) C. 3x^2 sin(x) + x^3 cos(x) D. 3x^2 cos(x)",
    15: "植物细胞中进行光合作用的细胞器是哪一个？它含有捕获光能的叶绿素。A. 线粒体 B. 叶绿体 C. 核糖体 D. 高尔基体",
    16: "在适应性免疫应答中，主要负责产生抗体的是哪一类白细胞？\nA. 中性粒细胞\nB. B淋巴细胞\nC. 红细胞\nD. 血小板",
    17: "在合同法中，双方交换的、使承诺具有法律强制力的有价值之物称为什么？A. 对价 B. 禁反言 C. 债务更新 D. 撤销",
    19: "在美国的货币政策中，由哪个机构设定联邦基金利率目标？A. 财政部 B. 联邦公开市场委员会 C. 国会 D. 证券交易委员会",
    20: "在关系数据库中，哪一种范式要求每个非主属性完全依赖于每一个候选键？A. 第一范式 B. 第二范式 C. 第四范式 D. 第五范式",
    21: "谁是统一中国的第一位皇帝，以统一度量衡和文字而闻名？A. 刘邦 B. 秦始皇 C. 忽必烈 D. 汉武帝",
    23: "两个构造板块彼此分离时（例如沿大西洋中脊）形成的是哪种板块边界？（A）汇聚边界（B）离散边界（C）转换边界（D）俯冲带",
    24: "哪种神经递质与帕金森病中神经元的退化关系最为密切？A. 血清素 B. 多巴胺 C. 乙酰胆碱 D. γ-氨基丁酸（GABA）",
    27: "在经济学中，做出选择时所放弃的次优选择的价值称为什么？A. 沉没成本 B. 边际成本 C. 机会成本 D. 固定成本",
    29: "哪个器官分泌胰岛素？胰岛素是一种在饭后降低血糖水平的激素。A. 肝脏 B. 胰腺 C. 肾脏 D. 肾上腺",
    30: "在美国的刑事诉讼中，检方必须达到什么证明标准才能给被告定罪？A. 优势证据 B. 清楚且令人信服的证据 C. 排除合理怀疑 "
        "D. 合理根据",
}
# Questions of MC translated into Chinese by hand without their choices, worded apart from the
# translations above (another translator's page).
TRANSLATED_MC_ZH_QUESTION = {
    0: "吸收太阳紫外辐射的臭氧大多位于地球大气的哪一层？",
    1: "克雷布斯循环每一轮开始时，乙酰辅酶A与哪种分子结合形成柠檬酸？",
    4: "哪一种排序算法利用二叉堆原地排序，且最坏情况下的时间复杂度为O(n log n)？",
    6: "黑洞周围那条连光或其他辐射都无法逃脱的边界叫什么？",
    8: "缺乏哪种维生素会引起以牙龈出血、伤口难以愈合为特征的坏血病？",
    10: "如果一种商品价格上升时，需求量下降的百分比大于价格上升的百分比，那么该商品的需求被描述为什么？",
    11: "遵循“后进先出”原则、最后加入的元素最先取出的是哪种数据结构？",
    15: "植物细胞中，光合作用发生在哪种含有叶绿素、能捕获光能的细胞器里？",
    16: "在适应性免疫反应中，哪一类白细胞主要负责产生抗体？",
    19: "美国货币政策中，联邦基金利率的目标是由哪个机构制定的？",
    23: "两个构造板块相互远离（如大西洋中脊）的地方形成的是什么类型的板块边界？",
    24: "帕金森病中退化的神经元与哪种神经递质关系最密切？",
    26: "把人们能读懂的域名转换为计算机使用的数字IP地址的是哪种互联网协议？",
    27: "经济学中，用什么术语来描述做选择时放弃的次优方案的价值？",
    29: "哪个器官产生胰岛素——一种在餐后降低血糖的激素？",
    31: "在我们的太阳系中，哪颗行星的一天最短，大约每十小时绕轴自转一圈？",
}
# Questions of MC translated by hand into German, Spanish, French and Russian, question alone (the
# 16 items of TRANSLATED_MC_ZH_QUESTION, chosen before this set was written; names and terms as
# each language writes them, Russian names in Cyrillic; checked by reading).
TRANSLATED_MC_QUESTION = {
    "de": {
        0: "Welche Schicht der Erdatmosphäre enthält den größten Teil des Ozons, das die ultraviolette Strahlung "
           "der Sonne absorbiert?",
        1: "Welches Molekül verbindet sich im Krebs-Zyklus zu Beginn jeder Runde mit Acetyl-CoA zu Citrat?",
        4: "Welcher Sortieralgorithmus hat im schlechtesten Fall eine Laufzeit von O(n log n) und sortiert "
           "mithilfe eines binären Heaps in-place?",
        6: "Wie heißt die Grenze um ein Schwarzes Loch, jenseits derer weder Licht noch andere Strahlung "
           "entweichen kann?",
        8: "Welcher Vitaminmangel verursacht Skorbut, eine Krankheit mit Zahnfleischbluten und schlechter "
           "Wundheilung?",
        10: "Wenn der Preis eines Gutes steigt und die nachgefragte Menge um einen größeren Prozentsatz sinkt, wie "
            "wird die Nachfrage nach dem Gut bezeichnet?",
        11: "Welche Datenstruktur folgt dem Last-in-First-out-Prinzip, bei dem das zuletzt hinzugefügte Element "
            "zuerst entfernt wird?",
        15: "In welcher Organelle der Pflanzenzellen findet die Photosynthese statt, die das Chlorophyll enthält, "
            "das die Lichtenergie einfängt?",
        16: "Welche Art von weißen Blutkörperchen ist bei der adaptiven Immunantwort hauptsächlich für die "
            "Produktion von Antikörpern verantwortlich?",
        19: "Welches Gremium legt in den Vereinigten Staaten im Rahmen der Geldpolitik den Zielwert für die "
            "Federal Funds Rate fest?",
        23: "Welche Art von Plattengrenze entsteht dort, wo sich zwei tektonische Platten voneinander entfernen, "
            "wie entlang des Mittelatlantischen Rückens?",
        24: "Welcher Neurotransmitter ist am engsten mit der Degeneration von Neuronen bei der Parkinson-Krankheit "
            "verbunden?",
        26: "Welches Internetprotokoll übersetzt für Menschen lesbare Domainnamen in die numerischen IP-Adressen, "
            "die Computer verwenden?",
        27: "Welcher Begriff beschreibt in der Volkswirtschaftslehre den Wert der nächstbesten Alternative, auf "
            "die man bei einer Entscheidung verzichtet?",
        29: "Welches Organ produziert Insulin, das Hormon, das den Blutzuckerspiegel nach einer Mahlzeit senkt?",
        31: "Welcher Planet unseres Sonnensystems hat den kürzesten Tag und dreht sich in etwa zehn Stunden "
            "einmal um seine Achse?",
    },
    "es": {
        0: "¿Qué capa de la atmósfera terrestre contiene la mayor parte del ozono que absorbe la radiación "
           "ultravioleta del Sol?",
        1: "En el ciclo de Krebs, ¿qué molécula se combina con el acetil-CoA para formar citrato al comienzo de "
           "cada vuelta?",
        4: "¿Qué algoritmo de ordenación tiene un tiempo de ejecución en el peor caso de O(n log n) y ordena in "
           "situ usando un montículo binario?",
        6: "¿Cómo se llama el límite alrededor de un agujero negro más allá del cual ni la luz ni ninguna otra "
           "radiación puede escapar?",
        8: "¿La carencia de qué vitamina causa el escorbuto, una enfermedad caracterizada por encías sangrantes y "
           "mala cicatrización de las heridas?",
        10: "Cuando el precio de un bien sube y la cantidad demandada cae en un porcentaje mayor, ¿cómo se "
            "describe la demanda de ese bien?",
        11: "¿Qué estructura de datos sigue el principio de último en entrar, primero en salir, en el que el "
            "elemento añadido más recientemente se elimina primero?",
        15: "¿Qué orgánulo es el lugar de la fotosíntesis en las células vegetales y contiene la clorofila que "
            "capta la energía de la luz?",
        16: "¿Qué tipo de glóbulo blanco es el principal responsable de producir anticuerpos en la respuesta "
            "inmunitaria adaptativa?",
        19: "¿Qué organismo fija el objetivo de la tasa de fondos federales como parte de la política monetaria "
            "de Estados Unidos?",
        23: "¿Qué tipo de límite de placas se forma donde dos placas tectónicas se separan una de otra, como a lo "
            "largo de la dorsal mesoatlántica?",
        24: "¿Qué neurotransmisor está más estrechamente asociado con la degeneración de las neuronas en la "
            "enfermedad de Parkinson?",
        26: "¿Qué protocolo de internet traduce los nombres de dominio legibles por humanos a las direcciones IP "
            "numéricas que usan los ordenadores?",
        27: "En economía, ¿qué término describe el valor de la siguiente mejor alternativa a la que se renuncia "
            "al tomar una decisión?",
        29: "¿Qué órgano produce la insulina, la hormona que reduce el nivel de glucosa en la sangre después de "
            "una comida?",
        31: "¿Qué planeta de nuestro sistema solar tiene el día más corto y gira una vez sobre su eje en unas "
            "diez horas?",
    },
    "fr": {
        0: "Quelle couche de l'atmosphère terrestre contient la plus grande partie de l'ozone qui absorbe le "
           "rayonnement ultraviolet du Soleil ?",
        1: "Dans le cycle de Krebs, quelle molécule se combine avec l'acétyl-CoA pour former du citrate au début "
           "de chaque tour ?",
        4: "Quel algorithme de tri a un temps d'exécution dans le pire des cas en O(n log n) et trie sur place à "
           "l'aide d'un tas binaire ?",
        6: "Comment s'appelle la frontière autour d'un trou noir au-delà de laquelle ni la lumière ni aucun autre "
           "rayonnement ne peut s'échapper ?",
        8: "Quelle carence en vitamine provoque le scorbut, une maladie marquée par des saignements des gencives "
           "et une mauvaise cicatrisation des plaies ?",
        10: "Lorsque le prix d'un bien augmente et que la quantité demandée baisse d'un pourcentage plus grand, "
            "comment qualifie-t-on la demande de ce bien ?",
        11: "Quelle structure de données suit le principe du dernier entré, premier sorti, où l'élément ajouté "
            "le plus récemment est retiré en premier ?",
        15: "Quel organite est le siège de la photosynthèse dans les cellules végétales et contient la "
            "chlorophylle qui capte l'énergie lumineuse ?",
        16: "Quel type de globule blanc est principalement responsable de la production d'anticorps dans la "
            "réponse immunitaire adaptative ?",
        19: "Quel organe fixe l'objectif du taux des fonds fédéraux dans le cadre de la politique monétaire des "
            "États-Unis ?",
        23: "Quel type de limite de plaques se forme là où deux plaques tectoniques s'éloignent l'une de l'autre, "
            "comme le long de la dorsale médio-atlantique ?",
        24: "Quel neurotransmetteur est le plus étroitement associé à la dégénérescence des neurones dans la "
            "maladie de Parkinson ?",
        26: "Quel protocole Internet traduit les noms de domaine lisibles par l'homme en adresses IP numériques "
            "utilisées par les ordinateurs ?",
        27: "En économie, quel terme désigne la valeur de la meilleure alternative suivante à laquelle on renonce "
            "lorsqu'on fait un choix ?",
        29: "Quel organe produit l'insuline, l'hormone qui fait baisser le taux de glucose sanguin après un "
            "repas ?",
        31: "Quelle planète de notre système solaire a la journée la plus courte, tournant une fois sur son axe "
            "en environ dix heures ?",
    },
    "ru": {
        0: "Какой слой атмосферы Земли содержит большую часть озона, поглощающего ультрафиолетовое излучение "
           "Солнца?",
        1: "Какая молекула в цикле Кребса соединяется с ацетил-КоА, образуя цитрат в начале каждого оборота?",
        4: "Какой алгоритм сортировки имеет время работы O(n log n) в худшем случае и сортирует на месте с "
           "помощью двоичной кучи?",
        6: "Как называется граница вокруг чёрной дыры, за которой ни свет, ни другое излучение не могут "
           "вырваться наружу?",
        8: "Недостаток какого витамина вызывает цингу — болезнь, при которой кровоточат дёсны и плохо "
           "заживают раны?",
        10: "Если цена товара растёт, а величина спроса падает на больший процент, как называют спрос на этот "
            "товар?",
        11: "Какая структура данных следует принципу «последним пришёл — первым ушёл», когда первым удаляется "
            "элемент, добавленный последним?",
        15: "Какой органоид растительной клетки является местом фотосинтеза и содержит хлорофилл, улавливающий "
            "энергию света?",
        16: "Какой тип лейкоцитов в основном отвечает за выработку антител при адаптивном иммунном ответе?",
        19: "Какой орган устанавливает целевой уровень ставки по федеральным фондам в рамках денежно-кредитной "
            "политики США?",
        23: "Какой тип границы плит образуется там, где две тектонические плиты расходятся, как вдоль "
            "Срединно-Атлантического хребта?",
        24: "Какой нейромедиатор наиболее тесно связан с дегенерацией нейронов при болезни Паркинсона?",
        26: "Какой интернет-протокол преобразует понятные человеку доменные имена в числовые IP-адреса, "
            "которые используют компьютеры?",
        27: "Каким термином в экономике называют ценность следующей по выгодности альтернативы, от которой "
            "отказываются при выборе?",
        29: "Какой орган вырабатывает инсулин — гормон, снижающий уровень глюкозы в крови после еды?",
        31: "У какой планеты Солнечной системы самый короткий день: она совершает оборот вокруг своей оси "
            "примерно за десять часов?",
    },
}
PORTS = ("cpp", "go", "java", "rust")


def _rule_restated(question: str, rng: random.Random) -> str:
    """Sentences in reverse order, synonyms swapped, a tenth of the words dropped or replaced."""
    sents = [s for s in _paraphrase(question, rng).replace("  ", " ").split(". ") if s.strip()]
    return _words20(". ".join(reversed(sents)), rng, 0.1)


def _sentences_by_lang(data: Path) -> dict[str, list[str]]:
    """Leipzig corpus sentences (lingua's test data), 75 languages, by language code."""
    out: dict[str, list[str]] = defaultdict(list)
    with open(data / "multilingual/lingua_testdata_sentences.jsonl", encoding="utf-8") as f:
        for x in f:
            if x.strip():
                r = json.loads(x)
                out[r["lang"]].append(r["text"])
    return out


def _clean_docs(data: Path, n: int, rng: random.Random, n_zh: int = 0, n_synthetic: int = 0) -> list[tuple[str, str]]:
    """(kind, text) of n clean documents, a sixth of each kind (a kind with fewer: all of it), then
    `n_zh` Chinese ones (kind "chinese": Leipzig zh sentences and Chinese fortunes not drawn
    already), then `n_synthetic` of five Presidio sentences (kind "synthetic": letters, forms and
    chat written around fake personal data)."""
    def jl(p: str) -> list[dict]:
        with open(data / p, encoding="utf-8") as f:
            return [json.loads(x) for x in f if x.strip()]
    news = [r["text"] for r in jl("prose/nltk_abc_news_paragraphs.jsonl")]
    lines = [r["text"] for r in jl("prose/nltk_webtext_lines.jsonl")]
    web = ["\n".join(lines[k:k + 20]) for k in range(0, len(lines), 20)]
    books = [r["text"] for r in jl("prose/gutenberg_books.jsonl")]
    passages = [b[k:k + 3000] for b in books for k in range(0, len(b) - 3000, 3000)]
    docs = [r["text"] for r in jl("prose/python311_docs_rst.jsonl")]
    # many languages: 15 Leipzig sentences of one language (news and web text, numbers and names
    # in them), and 8 Debian fortunes of one of en/zh/ru/de/es
    multi = [" ".join(v[k:k + 15]) for v in _sentences_by_lang(data).values() for k in range(0, len(v) - 15, 15)]
    by_lang: dict[str, list[str]] = defaultdict(list)
    for r in jl("multilingual/debian_fortunes_en_zh_ru_de_es.jsonl"):
        by_lang[r["lang"]].append(r["text"])
    fortunes = ["\n\n".join(v[k:k + 8]) for v in by_lang.values() for k in range(0, len(v) - 8, 8)]
    out = []
    kinds = (("news", news), ("web", web), ("books", passages), ("pydocs", docs), ("multilingual", multi),
             ("fortunes", fortunes))
    for kind, pool in kinds:
        rng.shuffle(pool)
        out += [(kind, t) for t in pool[: n // len(kinds)]]
    drawn = {t for _, t in out}
    zh = [" ".join(v[k:k + 15]) for v in [_sentences_by_lang(data)["zh"]] for k in range(0, len(v) - 15, 15)]
    zh += ["\n\n".join(by_lang["zh"][k:k + 8]) for k in range(0, len(by_lang["zh"]) - 8, 8)]
    zh = [t for t in zh if t not in drawn]
    rng.shuffle(zh)
    out += [("chinese", t) for t in zh[:n_zh]]
    if n_synthetic:  # (drawn last: the other kinds' documents stay as they were)
        with open(data / "pii/presidio_synth_dataset_v2.json", encoding="utf-8") as f:
            lines = [r["full_text"] for r in json.load(f)]
        out += [("synthetic", "\n".join(lines[k:k + 5])) for k in range(0, len(lines), 5)][:n_synthetic]
    return out


def eval_config(data: Path, settings: list[str], extra_mc: Sequence[tuple[str, list[str]]] = ()
                ) -> tuple[AuditConfig, list[dict], list[dict]]:
    """The config of the bench's eval sets, as a user writes them (GSM8K test, HumanEval, and the
    multiple-choice items MC then `extra_mc`, ids mc0... and mch0...), written into a temporary
    folder (`settings`: KEY=VALUE contamination settings); and the GSM8K and HumanEval rows."""
    with open(data / "evals/gsm8k_test.jsonl", encoding="utf-8") as f:
        gsm = [json.loads(x) for x in f if x.strip()]
    with gzip.open(data / "evals/HumanEval.jsonl.gz", "rt", encoding="utf-8") as f:
        he = [json.loads(x) for x in f if x.strip()]
    tmp = Path(tempfile.mkdtemp(prefix="evalwild"))
    sets = {"gsm8k": [{"id": f"gsm{i}", "question": r["question"], "answer": r["answer"]} for i, r in enumerate(gsm)],
            "humaneval": [{"id": r["task_id"], "prompt": r["prompt"], "canonical_solution": r["canonical_solution"]}
                          for r in he],
            "mc": [{"id": f"mc{i}", "question": q, "choices": c} for i, (q, c, *_) in enumerate(MC)]
            + [{"id": f"mch{i}", "question": q, "choices": c} for i, (q, c) in enumerate(extra_mc)]}
    fields = {"gsm8k": ["question", "answer"], "humaneval": ["prompt", "canonical_solution"], "mc": ["question", "choices"]}
    for name, rows in sets.items():
        with open(tmp / f"{name}.jsonl", "w", encoding="utf-8") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
    config = parse_config({"input": {"paths": ["x/"]}, "contamination": {
        k: json.loads(v) for k, v in (x.split("=", 1) for x in settings)}, "eval_sets": [
        {"name": n, "path": f"{n}.jsonl", "text_fields": fields[n], "id_field": "id"} for n in sets]}, base_dir=tmp)
    return config, gsm, he


def run_stage(config: AuditConfig, texts: list[str], clean_from: int) -> tuple[list, float, float]:
    """Each text's counted matches (the index's corpus sample: texts[clean_from:]), the index's
    build seconds and the stage's seconds on texts[clean_from:]. As in a job, the language stage
    (when `languages.identify` is on) runs first: its column says whose number words are read."""
    t0 = time.perf_counter()
    c = config.contamination
    index = ContaminationIndex.build(config, texts[clean_from:][:c.corpus_df_sample] if c.corpus_df else None)
    stage = ContaminationStage(config, index)
    language = LanguageStage(config).ready() if config.languages.identify else None
    build_s = time.perf_counter() - t0
    matches: list = []
    clean_s = 0.0
    for a in range(0, len(texts), BATCH):
        batch = pa.table({"text": pa.array(texts[a:a + BATCH], pa.string())})
        batch = language(batch) if language is not None else batch  # (not timed: the stage's own cost)
        t1 = time.perf_counter()
        out = stage(batch)
        if a >= clean_from:
            clean_s += time.perf_counter() - t1
        matches += counted(out.column("contamination"), config).to_pylist()
    return matches, build_s, clean_s


def false_documents(clean: list[tuple[str, str]], matches: list) -> tuple[Counter, Counter, Counter, list[dict]]:
    """Per kind of clean text its documents with a counted match and its documents, the methods
    of those matches, and the first five as examples."""
    false_docs, false_methods, clean_total = Counter(), Counter(), Counter()
    examples = []
    for (kind, text), got in zip(clean, matches):
        clean_total[kind] += 1
        if got:
            false_docs[kind] += 1
            false_methods.update(m["method"] for m in got)
            if len(examples) < 5:
                examples.append({"kind": kind, **{k: got[0][k] for k in ("eval_id", "method", "coverage", "evidence")},
                                 "excerpt": text[got[0]["longest_span"][0]:got[0]["longest_span"][1]][:400]})
    return false_docs, false_methods, clean_total, examples


def bench_arguments(description: str, clean: int, clean_zh: int, seed: int) -> argparse.ArgumentParser:
    """The options this bench and bench/eval_heldout_rewrites.py share, with their defaults."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared/data")
    ap.add_argument("--clean", type=int, default=clean)
    ap.add_argument("--clean-zh", type=int, default=clean_zh,
                    help="Chinese clean documents on top of --clean (the wild bench's)")
    ap.add_argument("--clean-synthetic", type=int, default=0,
                    help="Presidio's synthetic documents (up to 300) on top of --clean")
    ap.add_argument("--seed", type=int, default=seed)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a contamination setting")
    return ap


def main() -> None:
    ap = bench_arguments(__doc__.splitlines()[0], clean=3000, clean_zh=700, seed=20)
    ap.add_argument("--rule", type=int, default=200, help="rule-restated and verbatim-MC leaks")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    config, gsm, he = eval_config(args.data, args.set)

    leaks: list[tuple[str, tuple[str, str], str]] = []
    leaks += [("hand_restated", ("gsm8k", f"gsm{i}"), t) for i, t in HAND_RESTATED.items()]
    leaks += [(f"translated_{lang}", ("gsm8k", f"gsm{i}"), t) for lang, d in TRANSLATED.items() for i, t in d.items()]
    leaks += [("hand_mc_question", ("mc", f"mc{i}"), r) for i, (_, _, r, _) in enumerate(MC)]
    leaks += [("hand_mc_full", ("mc", f"mc{i}"), r) for i, (_, _, _, r) in enumerate(MC)]
    leaks += [("mc_question", ("mc", f"mc{i}"), q) for i, (q, _, _, _) in enumerate(MC)]
    leaks += [("translated_zh_mc", ("mc", f"mc{i}"), t) for i, t in TRANSLATED_MC_ZH.items()]
    leaks += [("translated_zh_mc_question", ("mc", f"mc{i}"), t) for i, t in TRANSLATED_MC_ZH_QUESTION.items()]
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
    # last: the kinds above are planted as before this one was added
    leaks += [(f"translated_{lang}_mc_question", ("mc", f"mc{i}"), t) for lang, d in TRANSLATED_MC_QUESTION.items()
              for i, t in d.items()]
    with open(args.data / "prose/nltk_abc_news_paragraphs.jsonl", encoding="utf-8") as f:
        hosts = [json.loads(x)["text"] for x in f if x.strip()]
    rng.shuffle(hosts)
    sentences = _sentences_by_lang(args.data)
    leak_docs = []
    for k, (kind, key, leak) in enumerate(leaks):
        lang = kind.split("_")[1] if kind.startswith("translated_") else ""
        # a translation lives among text of its language: 8 Leipzig sentences of it
        paras = rng.sample(sentences[lang], 8) if lang else hosts[k % len(hosts)].split("\n")
        at = rng.randint(0, len(paras))
        leak_docs.append("\n".join(paras[:at] + [leak] + paras[at:]))
    clean = _clean_docs(args.data, args.clean, rng, args.clean_zh, args.clean_synthetic)
    # held-out languages, with an RNG of their own: every kind and clean document above stays as it was
    held_rng = random.Random(args.seed + 1)
    held = [(f"heldout_{lang}_mc_question", ("mc", f"mc{i}"), t) for lang, d in HELD_MC.items() for i, t in d.items()]
    held += [(f"heldout_{lang}_gsm8k", ("gsm8k", f"gsm{i}"), t) for lang, d in HELD_GSM8K.items() for i, t in d.items()]
    held += [(f"heldout_{lang}_gsm8k_words", ("gsm8k", f"gsm{i}"), t) for lang, d in HELD_GSM8K_WORDS.items()
             for i, t in d.items()]
    # (last: the held-out kinds above are planted as before)
    held += [(f"heldout_{lang}_gsm8k_words", ("gsm8k", f"gsm{i}"), t) for lang, d in HELD_GSM8K_WORDS_MORE.items()
             for i, t in d.items()]
    for kind, _, leak in held:
        paras = held_rng.sample(sentences[kind.split("_")[1]], 8)
        at = held_rng.randint(0, len(paras))
        leak_docs.append("\n".join(paras[:at] + [leak] + paras[at:]))
    leaks += held
    texts = leak_docs + [t for _, t in clean]

    matches, build_s, clean_s = run_stage(config, texts, len(leak_docs))
    hit, total = Counter(), Counter()
    missed: dict[str, list[str]] = defaultdict(list)
    by_method: dict[str, Counter] = defaultdict(Counter)
    for (kind, key, _), got in zip(leaks, matches):
        total[kind] += 1
        found = [m for m in got or [] if (m["eval_set"], m["eval_id"]) == key]
        if found:
            hit[kind] += 1
            by_method[kind][f"{found[0]['method']}/{found[0]['unit']}"] += 1
        else:
            missed[kind].append(key[1])
    false_docs, false_methods, clean_total, examples = false_documents(clean, matches[len(leak_docs):])
    mb = sum(len(t.encode()) for _, t in clean) / 1e6
    result = {"recall": {k: round(hit[k] / total[k], 3) for k in total}, "leaks": dict(total),
              "by_method": {k: dict(v) for k, v in by_method.items()},
              "missed": {k: v for k, v in missed.items() if len(v) <= 20},
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
        print(f"{k:18s} {result['recall'][k]:.3f}  {total[k]:5d}  {dict(by_method[k])}"
              + (f"  missed {missed[k]}" if 0 < len(missed[k]) <= 20 else ""))
    print(f"false contaminated docs: {sum(false_docs.values())} of {len(clean)} clean "
          f"({result['false_doc_rate']:.3%}); per kind {dict(false_docs)} of {dict(clean_total)}; "
          f"by method {dict(false_methods)}")
    for e in examples:
        print("  false:", e)
    print(f"stage on the clean text: {mb:.1f} MB at {result['stage_mb_s_clean']} MB/s (one process); "
          f"index {build_s:.1f} s")


if __name__ == "__main__":
    main()

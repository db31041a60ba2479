"""Held-out translations into languages no tier was built for: Italian, Portuguese, Dutch, Polish,
Ukrainian, Japanese, Greek, Swedish and Turkish.

The wild bench's multiple-choice questions (eval_contamination_wild.MC, the question alone; all five
languages) and GSM8K test questions (Italian, Portuguese; Japanese and Greek), translated by hand (2026-11-25, each
language before any change for it; read through twice, every number compared with the English). They measure whether the translation
readers (the keys of numbers and names, the cognate reader) carry to a language close to the ones
they were written for; nothing is tuned on them.
"""
from __future__ import annotations

# MC index (eval_contamination_wild.MC) -> the question alone, translated.
MC_QUESTION = {
    "it": {
        0: "Quale strato dell'atmosfera terrestre contiene la maggior parte dell'ozono che assorbe la radiazione "
           "ultravioletta del Sole?",
        1: "Nel ciclo di Krebs, quale molecola si combina con l'acetil-CoA per formare il citrato all'inizio di "
           "ogni giro?",
        4: "Quale algoritmo di ordinamento ha un tempo di esecuzione nel caso peggiore di O(n log n) e ordina sul "
           "posto usando un heap binario?",
        6: "Come si chiama il confine attorno a un buco nero oltre il quale né la luce né altre radiazioni "
           "possono sfuggire?",
        8: "Quale carenza vitaminica causa lo scorbuto, una malattia caratterizzata da gengive sanguinanti e da "
           "una cattiva guarigione delle ferite?",
        10: "Quando il prezzo di un bene aumenta e la quantità domandata diminuisce di una percentuale maggiore, "
            "come si definisce la domanda di quel bene?",
        11: "Quale struttura dati segue il principio last-in, first-out, per cui l'elemento aggiunto più di "
            "recente è il primo a essere rimosso?",
        15: "Quale organello è la sede della fotosintesi nelle cellule vegetali e contiene la clorofilla che "
            "cattura l'energia luminosa?",
        16: "Quale tipo di globulo bianco è il principale responsabile della produzione di anticorpi nella "
            "risposta immunitaria adattativa?",
        19: "Quale organismo fissa l'obiettivo per il tasso sui federal funds nell'ambito della politica "
            "monetaria degli Stati Uniti?",
        23: "Quale tipo di margine tra placche si forma dove due placche tettoniche si allontanano l'una "
            "dall'altra, come lungo la dorsale medio-atlantica?",
        24: "Quale neurotrasmettitore è più strettamente associato alla degenerazione dei neuroni nella malattia "
            "di Parkinson?",
        26: "Quale protocollo di Internet traduce i nomi di dominio leggibili dall'uomo negli indirizzi IP "
            "numerici usati dai computer?",
        27: "In economia, quale termine descrive il valore della migliore alternativa successiva a cui si "
            "rinuncia quando si compie una scelta?",
        29: "Quale organo produce l'insulina, l'ormone che abbassa i livelli di glucosio nel sangue dopo un "
            "pasto?",
        31: "Quale pianeta del nostro sistema solare ha il giorno più corto, compiendo una rotazione sul proprio "
            "asse in circa dieci ore?",
    },
    "pt": {
        0: "Qual camada da atmosfera terrestre contém a maior parte do ozônio que absorve a radiação "
           "ultravioleta do Sol?",
        1: "No ciclo de Krebs, qual molécula se combina com o acetil-CoA para formar citrato no início de cada "
           "volta?",
        4: "Qual algoritmo de ordenação tem tempo de execução no pior caso de O(n log n) e ordena no próprio "
           "lugar usando um heap binário?",
        6: "Como se chama a fronteira em torno de um buraco negro além da qual nem a luz nem qualquer outra "
           "radiação consegue escapar?",
        8: "Qual deficiência de vitamina causa o escorbuto, uma doença marcada por gengivas que sangram e má "
           "cicatrização de feridas?",
        10: "Quando o preço de um bem sobe e a quantidade demandada cai em uma porcentagem maior, como se "
            "descreve a demanda por esse bem?",
        11: "Qual estrutura de dados segue o princípio last-in, first-out, em que o elemento adicionado mais "
            "recentemente é o primeiro a ser removido?",
        15: "Qual organela é o local da fotossíntese nas células vegetais, contendo a clorofila que captura a "
            "energia luminosa?",
        16: "Que tipo de glóbulo branco é o principal responsável pela produção de anticorpos na resposta imune "
            "adaptativa?",
        19: "Qual órgão define a meta da taxa dos fundos federais como parte da política monetária dos Estados "
            "Unidos?",
        23: "Que tipo de limite de placas se forma onde duas placas tectônicas se afastam uma da outra, como ao "
            "longo da Dorsal Mesoatlântica?",
        24: "Qual neurotransmissor está mais estreitamente associado à degeneração de neurônios na doença de "
            "Parkinson?",
        26: "Qual protocolo da internet traduz nomes de domínio legíveis por humanos nos endereços IP numéricos "
            "que os computadores usam?",
        27: "Em economia, que termo descreve o valor da próxima melhor alternativa da qual se abre mão quando "
            "se faz uma escolha?",
        29: "Qual órgão produz a insulina, o hormônio que reduz os níveis de glicose no sangue após uma "
            "refeição?",
        31: "Qual planeta do nosso sistema solar tem o dia mais curto, girando uma vez em torno do próprio eixo "
            "em cerca de dez horas?",
    },
    "nl": {
        0: "Welke laag van de aardatmosfeer bevat het grootste deel van de ozon die de ultraviolette straling "
           "van de zon absorbeert?",
        1: "Welk molecuul verbindt zich in de citroenzuurcyclus (Krebscyclus) met acetyl-CoA tot citraat aan het "
           "begin van elke ronde?",
        4: "Welk sorteeralgoritme heeft in het slechtste geval een looptijd van O(n log n) en sorteert ter "
           "plaatse met behulp van een binaire heap?",
        6: "Hoe heet de grens rond een zwart gat waarachter licht noch andere straling kan ontsnappen?",
        8: "Welk vitaminetekort veroorzaakt scheurbuik, een ziekte met bloedend tandvlees en slechte "
           "wondgenezing?",
        10: "Als de prijs van een goed stijgt en de gevraagde hoeveelheid met een groter percentage daalt, hoe "
            "noemt men de vraag naar dat goed dan?",
        11: "Welke datastructuur volgt het last-in-first-out-principe, waarbij het laatst toegevoegde element "
            "als eerste wordt verwijderd?",
        15: "Welk organel is in plantencellen de plaats van de fotosynthese en bevat het chlorofyl dat de "
            "lichtenergie opvangt?",
        16: "Welk type witte bloedcel is bij de adaptieve immuunrespons vooral verantwoordelijk voor de productie "
            "van antistoffen?",
        19: "Welk orgaan stelt in de Verenigde Staten in het kader van het monetaire beleid het streefcijfer voor "
            "de federal funds rate vast?",
        23: "Welk type plaatgrens ontstaat waar twee tektonische platen van elkaar af bewegen, zoals langs de "
            "Mid-Atlantische Rug?",
        24: "Welke neurotransmitter wordt het sterkst in verband gebracht met de degeneratie van neuronen bij de "
            "ziekte van Parkinson?",
        26: "Welk internetprotocol vertaalt voor mensen leesbare domeinnamen naar de numerieke IP-adressen die "
            "computers gebruiken?",
        27: "Welke term beschrijft in de economie de waarde van het beste alternatief dat je opgeeft wanneer je "
            "een keuze maakt?",
        29: "Welk orgaan maakt insuline aan, het hormoon dat na een maaltijd de bloedglucosespiegel verlaagt?",
        31: "Welke planeet van ons zonnestelsel heeft de kortste dag en draait in ongeveer tien uur één keer om "
            "haar as?",
    },
    "pl": {
        0: "Która warstwa atmosfery ziemskiej zawiera większość ozonu pochłaniającego promieniowanie "
           "ultrafioletowe Słońca?",
        1: "Która cząsteczka łączy się w cyklu Krebsa z acetylo-CoA, tworząc cytrynian na początku każdego "
           "obrotu?",
        4: "Który algorytm sortowania ma pesymistyczny czas działania O(n log n) i sortuje w miejscu przy użyciu "
           "kopca binarnego?",
        6: "Jak nazywa się granica wokół czarnej dziury, zza której nie może uciec ani światło, ani żadne inne "
           "promieniowanie?",
        8: "Niedobór której witaminy powoduje szkorbut, chorobę objawiającą się krwawieniem dziąseł i słabym "
           "gojeniem się ran?",
        10: "Jak określa się popyt na dobro, gdy jego cena rośnie, a wielkość popytu spada o większy procent?",
        11: "Która struktura danych działa według zasady last-in, first-out, czyli ostatnio dodany element jest "
            "usuwany jako pierwszy?",
        15: "Które organellum komórek roślinnych jest miejscem fotosyntezy i zawiera chlorofil wychwytujący "
            "energię światła?",
        16: "Który rodzaj białych krwinek odpowiada przede wszystkim za wytwarzanie przeciwciał w adaptacyjnej "
            "odpowiedzi immunologicznej?",
        19: "Który organ w Stanach Zjednoczonych ustala docelową stopę federal funds w ramach polityki "
            "pieniężnej?",
        23: "Jaki rodzaj granicy płyt powstaje tam, gdzie dwie płyty tektoniczne oddalają się od siebie, jak "
            "wzdłuż Grzbietu Śródatlantyckiego?",
        24: "Który neuroprzekaźnik jest najściślej związany z degeneracją neuronów w chorobie Parkinsona?",
        26: "Który protokół internetowy tłumaczy czytelne dla ludzi nazwy domen na numeryczne adresy IP używane "
            "przez komputery?",
        27: "Jakim terminem w ekonomii określa się wartość następnej najlepszej alternatywy, z której rezygnuje "
            "się, dokonując wyboru?",
        29: "Który narząd wytwarza insulinę, hormon obniżający poziom glukozy we krwi po posiłku?",
        31: "Która planeta Układu Słonecznego ma najkrótszą dobę i obraca się wokół własnej osi w około dziesięć "
            "godzin?",
    },
    "uk": {
        0: "Який шар атмосфери Землі містить більшу частину озону, що поглинає ультрафіолетове випромінювання "
           "Сонця?",
        1: "Яка молекула в циклі Кребса з'єднується з ацетил-КоА, утворюючи цитрат на початку кожного оберту?",
        4: "Який алгоритм сортування має в найгіршому випадку час виконання O(n log n) і сортує на місці за "
           "допомогою бінарної купи?",
        6: "Як називається межа навколо чорної діри, за якою ні світло, ні інше випромінювання не можуть "
           "вирватися назовні?",
        8: "Нестача якого вітаміну спричиняє цингу — хворобу, що проявляється кровоточивістю ясен і поганим "
           "загоєнням ран?",
        10: "Як називають попит на товар, якщо ціна на нього зростає, а обсяг попиту падає на більший відсоток?",
        11: "Яка структура даних працює за принципом last-in, first-out, тобто останній доданий елемент "
            "видаляється першим?",
        15: "Яка органела рослинних клітин є місцем фотосинтезу і містить хлорофіл, що вловлює енергію світла?",
        16: "Який тип білих кров'яних тілець переважно відповідає за вироблення антитіл в адаптивній імунній "
            "відповіді?",
        19: "Який орган у Сполучених Штатах встановлює цільовий рівень ставки федеральних фондів у межах "
            "монетарної політики?",
        23: "Який тип межі плит утворюється там, де дві тектонічні плити віддаляються одна від одної, як уздовж "
            "Серединно-Атлантичного хребта?",
        24: "Який нейромедіатор найтісніше пов'язаний із дегенерацією нейронів при хворобі Паркінсона?",
        26: "Який інтернет-протокол перетворює зрозумілі людині доменні імена на числові IP-адреси, якими "
            "користуються комп'ютери?",
        27: "Який термін в економіці описує цінність найкращої альтернативи, від якої відмовляються під час "
            "ухвалення рішення?",
        29: "Який орган виробляє інсулін — гормон, що знижує рівень глюкози в крові після їжі?",
        31: "Яка планета Сонячної системи має найкоротшу добу, обертаючись навколо своєї осі приблизно за десять "
            "годин?",
    },
}

# GSM8K test index -> the question, translated (numbers kept as digits, as translators do; Japanese and
# Greek names transliterated, in katakana and Greek letters).
GSM8K = {
    "it": {
        3: "James decide di correre 3 sprint 3 volte alla settimana. Corre 60 metri per ogni sprint. Quanti "
           "metri corre in totale ogni settimana?",
        5: "Kylar è andato in negozio a comprare dei bicchieri per il suo nuovo appartamento. Un bicchiere costa "
           "5 $, ma ogni secondo bicchiere costa solo il 60% del prezzo. Kylar vuole comprare 16 bicchieri. "
           "Quanto deve pagare in tutto?",
        9: "La paga oraria di Eliza per le prime 40 ore di lavoro settimanali è di 10 $. Riceve inoltre una paga "
           "per gli straordinari pari a 1,2 volte la sua normale tariffa oraria. Se questa settimana Eliza ha "
           "lavorato 45 ore, quanto ha guadagnato?",
        11: "Toula è andata in pasticceria e ha comprato diversi tipi di dolci: 3 dozzine di ciambelle a 68 $ la "
            "dozzina, 2 dozzine di mini cupcake a 80 $ la dozzina e 6 dozzine di mini cheesecake a 55 $ la "
            "dozzina. Quanto ha speso in totale?",
        15: "Un commerciante deve scegliere tra 2 piani di acquisto: gioielli del valore di 5.000 $ oppure "
            "dispositivi elettronici del valore di 8.000 $. Il suo consulente finanziario prevede che nello "
            "stesso mese il mercato dei gioielli salirà del 2,5% e quello dei dispositivi elettronici dell'1,2%. "
            "Se il commerciante vuole massimizzare il profitto alla fine del mese, a quanto ammonterebbe questo "
            "profitto?",
        17: "Jill guadagna 20 $ all'ora come insegnante e 30 $ all'ora come allenatrice di cheerleading. Se "
            "lavora 50 settimane all'anno, 35 ore a settimana come insegnante e 15 ore a settimana come "
            "allenatrice, qual è il suo stipendio annuale?",
        21: "Raymond e Samantha sono cugini. Raymond è nato 6 anni prima di Samantha. Raymond ha avuto un figlio "
            "all'età di 23 anni. Se Samantha ora ha 31 anni, quanti anni fa è nato il figlio di Raymond?",
        25: "Marie ha ordinato un pasto di pollo da 12 $, 5 confezioni di latte da 3 $ l'una, 4 mele da 1,50 $ "
            "l'una e alcune scatole di pizza. Marie ha pagato in tutto 50 $. Quante scatole di pizza ha "
            "ordinato, se ogni scatola costa 8,50 $?",
    },
    "pt": {
        3: "James decide correr 3 sprints 3 vezes por semana. Ele corre 60 metros em cada sprint. Quantos metros "
           "ele corre no total por semana?",
        5: "Kylar foi à loja comprar copos para o seu novo apartamento. Um copo custa 5 $, mas cada segundo copo "
           "custa apenas 60% do preço. Kylar quer comprar 16 copos. Quanto ele precisa pagar por eles?",
        9: "O valor por hora de Eliza nas primeiras 40 horas que ela trabalha por semana é de 10 $. Ela também "
           "recebe horas extras pagas a 1,2 vez o seu valor por hora normal. Se Eliza trabalhou 45 horas esta "
           "semana, quanto ela ganhou nesta semana?",
        11: "Toula foi à padaria e comprou vários tipos de doces. Ela comprou 3 dúzias de donuts a 68 $ a dúzia, "
            "2 dúzias de minicupcakes a 80 $ a dúzia e 6 dúzias de minicheesecakes a 55 $ a dúzia. Qual foi o "
            "custo total?",
        15: "Um comerciante quer escolher entre 2 planos de compra: joias no valor de 5.000 $ ou aparelhos "
            "eletrônicos no valor de 8.000 $. O seu consultor financeiro prevê que o mercado de joias vai subir "
            "2,5% enquanto o de aparelhos eletrônicos vai subir 1,2% no mesmo mês. Se o comerciante quer "
            "maximizar o lucro no fim deste mês, qual seria esse lucro?",
        17: "Jill recebe 20 $ por hora para dar aulas e 30 $ por hora como treinadora de líderes de torcida. Se "
            "ela trabalha 50 semanas por ano, 35 horas por semana como professora e 15 horas por semana como "
            "treinadora, qual é o seu salário anual?",
        21: "Raymond e Samantha são primos. Raymond nasceu 6 anos antes de Samantha. Raymond teve um filho aos "
            "23 anos. Se Samantha tem agora 31 anos, há quantos anos nasceu o filho de Raymond?",
        25: "Marie pediu uma refeição de frango que custa 12 $, 5 pacotes de leite a 3 $ cada, 4 maçãs a 1,50 $ "
            "cada e algumas caixas de pizza. Marie pagou no total 50 $. Quantas caixas de pizza Marie pediu, se "
            "cada caixa custa 8,50 $?",
    },
    "ja": {
        3: "ジェームズは週に3回、1回につき3本のスプリントを走ることにしました。1本のスプリントでは60メートル走ります。"
           "彼は1週間に合計で何メートル走りますか？",
        11: "トゥーラはパン屋に行き、いろいろな種類のお菓子を買いました。1ダース68ドルのドーナツを3ダース、1ダース80ドル"
            "のミニカップケーキを2ダース、1ダース55ドルのミニチーズケーキを6ダース買いました。合計金額はいくらでしたか？",
        15: "ある商人が2つの購入プランから1つを選ぼうとしています。5,000ドル相当の宝石か、8,000ドル相当の電子機器です。"
            "彼のファイナンシャルアドバイザーは、同じ月のうちに宝石市場は2.5%、電子機器市場は1.2%上昇すると予測して"
            "います。月末に利益を最大にする選択をした場合、その利益はいくらになりますか？",
        21: "レイモンドとサマンサはいとこ同士です。レイモンドはサマンサより6年早く生まれました。レイモンドは23歳のときに"
            "息子が生まれました。サマンサが現在31歳だとすると、レイモンドの息子は何年前に生まれましたか？",
        25: "マリーは12ドルのチキンの食事を1つ、1つ3ドルの牛乳を5パック、1つ1.50ドルのリンゴを4個、そしてピザを何箱か"
            "注文しました。マリーは合計で50ドル払いました。ピザ1箱が8.50ドルだとすると、マリーはピザを何箱注文しましたか？",
        27: "シンシアは毎晩アイスクリームを1人前食べます。彼女は1カートンに15人前入ったアイスクリームを1カートン4.00ドル"
            "で買っています。60日後、彼女はアイスクリームにいくら使うことになりますか？",
        29: "グロリアは靴を買いに行き、予算に合うブーツを見つけました。しかし、そのブーツと、2足合わせてブーツより5ドル安い"
            "ハイヒール2足のどちらかを選ばなければなりません。ハイヒールの1足が33ドルで、もう1足がその2倍の値段だとすると、"
            "ブーツは何ドルですか？",
        31: "グンターは瓶に入ったジェリービーンズの数を数えようとしています。彼は友達に瓶の中にいくつ入っていると思うか尋ね"
            "ます。1人は80個と答えます。別の1人は最初の人の半分より20個多いと答えます。3人目は最初の人より25%多いと答え"
            "ます。彼らの推測の平均はいくつですか？",
    },
    "el": {
        3: "Ο Τζέιμς αποφασίζει να τρέχει 3 σπριντ 3 φορές την εβδομάδα. Τρέχει 60 μέτρα σε κάθε σπριντ. Πόσα μέτρα "
           "τρέχει συνολικά την εβδομάδα;",
        11: "Η Τούλα πήγε στο αρτοποιείο και αγόρασε διάφορα γλυκά. Αγόρασε 3 ντουζίνες ντόνατς προς 68 $ τη ντουζίνα, 2 "
            "ντουζίνες μίνι κεκάκια προς 80 $ τη ντουζίνα και 6 ντουζίνες μίνι τσιζκέικ προς 55 $ τη ντουζίνα. Πόσο ήταν "
            "το συνολικό κόστος;",
        21: "Ο Ρέιμοντ και η Σαμάνθα είναι ξαδέρφια. Ο Ρέιμοντ γεννήθηκε 6 χρόνια πριν από τη Σαμάνθα. Ο Ρέιμοντ "
            "απέκτησε γιο σε ηλικία 23 ετών. Αν η Σαμάνθα είναι τώρα 31 ετών, πόσα χρόνια πριν γεννήθηκε ο γιος του "
            "Ρέιμοντ;",
        25: "Η Μαρί παρήγγειλε ένα γεύμα με κοτόπουλο που κοστίζει 12 $, 5 συσκευασίες γάλα προς 3 $ η καθεμία, 4 μήλα "
            "προς 1,50 $ το καθένα και μερικά κουτιά πίτσα. Η Μαρί πλήρωσε συνολικά 50 $. Πόσα κουτιά πίτσα παρήγγειλε, "
            "αν κάθε κουτί κοστίζει 8,50 $;",
        27: "Η Σίνθια τρώει μία μερίδα παγωτό κάθε βράδυ. Αγοράζει κουτιά παγωτού με 15 μερίδες το καθένα, με κόστος "
            "4,00 $ το κουτί. Μετά από 60 ημέρες, πόσα θα έχει ξοδέψει για παγωτό;",
        31: "Ο Γκούντερ προσπαθεί να μετρήσει τα ζελεδάκια σε ένα βάζο. Ρωτά τους φίλους του πόσα νομίζουν ότι υπάρχουν "
            "στο βάζο. Ο ένας λέει 80. Ένας άλλος λέει 20 περισσότερα από το μισό του πρώτου. Ένας τρίτος λέει 25% "
            "περισσότερα από τον πρώτο. Ποια είναι η μέση εκτίμησή τους;",
    },
}

# GSM8K test questions whose English writes small numbers in words, translated with them in words
# (tre, três, quattro, quatro, dodici, dezesseis, ...), as a faithful translator keeps them.
GSM8K_WORDS = {
    "it": {
        0: "Le anatre di Janet depongono 16 uova al giorno. Lei ne mangia tre a colazione ogni mattina e ogni giorno "
           "prepara dei muffin per i suoi amici con quattro. Vende le restanti al mercato contadino ogni giorno a 2 $ "
           "per ogni uovo fresco. Quanti dollari guadagna ogni giorno al mercato?",
        10: "Un nuovo programma ha avuto 60 download nel primo mese. Nel secondo mese i download sono stati tre volte "
            "quelli del primo mese, ma poi sono calati del 30% nel terzo mese. Quanti download ha avuto il programma "
            "in totale nei tre mesi?",
        28: "Henry ha fatto due soste durante il suo giro in bici di 60 miglia. Si è fermato la prima volta dopo 20 "
            "miglia. La seconda sosta è stata 15 miglia prima della fine del giro. Quante miglia ha percorso tra la "
            "prima e la seconda sosta?",
        71: "Kelian ha due ricette per preparare dei piatti: una ha 20 istruzioni e la seconda ne ha il doppio della "
            "prima. Quante istruzioni deve leggere Kelian per preparare i due piatti?",
        94: "In un quartiere, il numero di conigli domestici è dodici in meno del numero complessivo di cani e gatti. "
            "Se ci sono due gatti per ogni cane e i cani sono 60, quanti animali domestici ci sono in tutto nel "
            "quartiere?",
        111: "La barca di Julia ha cominciato a imbarcare acqua mentre lei era sul lago. La barca imbarcava due litri "
             "d'acqua ogni dieci piedi che remava verso la riva. Le servivano sedici secondi per remare venti piedi. "
             "La riva era a 64 secondi di distanza. Quanta acqua aveva imbarcato la barca quando Julia ha raggiunto "
             "la riva?",
    },
    "pt": {
        0: "As patas de Janet põem 16 ovos por dia. Ela come três no café da manhã todas as manhãs e faz muffins para "
           "os amigos todos os dias com quatro. Ela vende o restante diariamente na feira a 2 $ por ovo fresco. "
           "Quantos dólares ela ganha por dia na feira?",
        10: "Um novo programa teve 60 downloads no primeiro mês. No segundo mês, o número de downloads foi três vezes "
            "o do primeiro mês, mas depois caiu 30% no terceiro mês. Quantos downloads o programa teve no total nos "
            "três meses?",
        28: "Henry fez duas paradas durante o seu passeio de bicicleta de 60 milhas. Parou pela primeira vez depois de "
            "20 milhas. A segunda parada foi 15 milhas antes do fim do passeio. Quantas milhas ele percorreu entre a "
            "primeira e a segunda parada?",
        71: "Kelian tem duas receitas para preparar pratos, uma com 20 instruções e a segunda com o dobro de "
            "instruções da primeira. Quantas instruções Kelian tem de ler para preparar os dois pratos?",
        94: "Num bairro, o número de coelhos de estimação é doze a menos do que o número total de cães e gatos. Se há "
            "dois gatos para cada cão e o número de cães é 60, quantos animais de estimação há ao todo no bairro?",
        111: "O barco de Julia começou a fazer água enquanto ela estava no lago. O barco recebia dois litros de água a "
             "cada dez pés que ela remava em direção à margem. Ela levava dezesseis segundos para remar vinte pés. A "
             "margem ficava a 64 segundos de distância. Quanta água o barco tinha recebido quando Julia chegou à "
             "margem?",
    },
}

# GSM8K test questions whose English writes small numbers in words (other items than the ones above),
# translated by hand (2026-11-25, before any change for number words; every number compared with the
# English) into Dutch, Polish, Swedish and Turkish with those numbers in words, as a faithful
# translator keeps them; names as the language writes them (Polish and Turkish inflect them:
# Adriena, Cery, Mike'ın). Languages no number-word table was written for: never tuned on.
GSM8K_WORDS_MORE = {
    "nl": {
        87: "Een bedrijf betaalt elk van zijn werknemers $600 per maand. Het bedrijf heeft als beleid dat het salaris "
            "van werknemers die vijf jaar in dienst zijn, elk jaar met 10% van het beginsalaris stijgt. Als Sylvie "
            "afgelopen december 5 jaar in dienst was, wat is dan haar jaarsalaris na nog drie dienstjaren?",
        119: "Het totale salaris van Adrien was 30 procent hoger dan dat van Lylah. Vier jaar later was zijn salaris "
             "gestegen en verdiende hij 40% meer dan vier jaar eerder. Als de salarissen van Adrien en Lylah tegelijk "
             "stegen en Adrien vier jaar geleden $40000 verdiende, hoeveel salaris ontvingen de twee vier jaar later "
             "dan samen?",
        152: "Carl koopt tien pakken koekjes. In elk pak zitten zes koekjes. Elk koekje kost $0,10. Hoeveel "
             "wisselgeld krijgt Carl terug als hij met een biljet van $10 betaalt?",
        255: "Tien stallen hebben elk 20 koeien. Meneer Sylas koopt 40 koeien en verdeelt ze gelijk, zodat er in elk "
             "van de twintig stallen evenveel nieuwe koeien bij komen. Hoeveel koeien staan er in 8 van de stallen?",
        293: "Drie vrienden, Mike, Jim en Tony, besloten een spel te spelen. Na 3 rondes heeft Mike 21 punten, Jim 3 "
             "punten minder dan Mike en Tony 2 keer zoveel als Mike. In de vierde ronde krijgt elke speler een extra "
             "punt als hij meer dan 20 punten heeft. Hoeveel punten hebben de drie spelers samen nadat de extra "
             "punten zijn uitgedeeld?",
        313: "Zes jaar geleden, toen Noah half zo oud was als Cera, was de bevolking van Chili half zo groot als nu. "
             "Cera is nu 46 jaar oud. Als de bevolking van Chili zes jaar geleden 3000 keer de leeftijd van Noah was, "
             "hoe groot is de bevolking van Chili dan nu?",
    },
    "pl": {
        87: "Firma płaci każdemu ze swoich pracowników 600 $ miesięcznie. Zgodnie z polityką firmy pensja każdego "
            "pracownika, który przepracował w firmie pięć lat, rośnie co roku o 10% pensji początkowej. Jeśli Sylvie "
            "w grudniu ubiegłego roku minęło 5 lat pracy w firmie, jaka będzie jej roczna pensja po kolejnych trzech "
            "latach pracy?",
        119: "Łączna pensja Adriena była o 30 procent wyższa niż pensja Lylah. Cztery lata później jego pensja "
             "wzrosła i zarabiał o 40% więcej niż cztery lata wcześniej. Jeśli pensje Adriena i Lylah rosły "
             "jednocześnie, a Adrien cztery lata temu zarabiał 40000 $, oblicz łączną pensję, jaką oboje "
             "otrzymywali cztery lata później.",
        152: "Carl kupuje dziesięć paczek ciastek. W każdej paczce jest sześć ciastek. Każde ciastko kosztuje 0,10 $. "
             "Ile reszty dostanie Carl, jeśli zapłaci banknotem o nominale 10 $?",
        255: "W dziesięciu oborach jest po 20 krów. Pan Sylas kupuje 40 krów i dzieli je po równo, umieszczając tyle "
             "samo nowych krów w każdej z dwudziestu obór. Ile krów jest w 8 oborach?",
        293: "Trzej przyjaciele: Mike, Jim i Tony postanowili zagrać w grę. Po 3 rundach Mike ma 21 punktów, Jim o 3 "
             "punkty mniej niż Mike, a Tony 2 razy więcej niż Mike. W czwartej rundzie każdy gracz, który ma ponad "
             "20 punktów, dostaje dodatkowy punkt. Ile punktów mają łącznie wszyscy trzej gracze po rozdaniu "
             "dodatkowych punktów?",
        313: "Sześć lat temu, gdy Noah był o połowę młodszy od Cery, ludność Chile była o połowę mniejsza niż "
             "obecnie. Obecnie Cera ma 46 lat. Jeśli sześć lat temu ludność Chile była 3000 razy większa niż wiek "
             "Noaha, oblicz obecną liczbę ludności Chile.",
    },
    "sv": {
        87: "Ett företag betalar var och en av sina anställda 600 $ i månaden. Företaget har som policy att varje år "
            "höja lönen med 10 % av ingångslönen för de anställda som har stannat i företaget i fem år. Om Sylvie "
            "fyllde 5 år i företaget i december förra året, vad är då hennes årslön efter ytterligare tre års tjänst?",
        119: "Adriens totala lön var 30 procent högre än Lylahs. Fyra år senare hade hans lön ökat, och han tjänade "
             "40 % mer än han gjorde fyra år tidigare. Om Adriens och Lylahs löner ökade samtidigt, och Adrien "
             "tjänade 40000 $ för fyra år sedan, hur stor var den sammanlagda lön som de två fick fyra år senare?",
        152: "Carl köper tio paket kakor. Varje paket innehåller sex kakor. Varje kaka kostar 0,10 $. Hur mycket "
             "växel får Carl tillbaka om han betalar med en 10-dollarsedel?",
        255: "Tio bås har 20 kor vardera. Herr Sylas köper 40 kor och fördelar dem jämnt, så att lika många nya kor "
             "hamnar i vart och ett av de tjugo båsen. Hur många kor finns det i 8 av båsen?",
        293: "Tre vänner, Mike, Jim och Tony, bestämde sig för att spela ett spel. Efter 3 omgångar har Mike 21 poäng, "
             "Jim 3 poäng mindre än Mike och Tony 2 gånger så många som Mike. I den fjärde omgången får varje spelare "
             "en extrapoäng om hen har över 20 poäng. Hur många poäng har de tre spelarna sammanlagt efter att "
             "extrapoängen har delats ut?",
        313: "För sex år sedan, när Noah var hälften så gammal som Cera, var Chiles befolkning hälften så stor som "
             "den är nu. Cera är nu 46 år gammal. Om Chiles befolkning för sex år sedan var 3000 gånger Noahs ålder, "
             "hur stor är Chiles befolkning nu?",
    },
    "tr": {
        87: "Bir şirket çalışanlarının her birine ayda 600 $ ödüyor. Şirketin, beş yıldır şirkette çalışanların "
            "maaşını her yıl başlangıç maaşının %10'u kadar artırma politikası var. Sylvie geçen aralık ayında "
            "şirkette 5 yılını doldurduysa, üç yıl daha çalıştıktan sonra yıllık maaşı ne kadar olur?",
        119: "Adrien'in toplam maaşı Lylah'ınkinden yüzde 30 daha yüksekti. Dört yıl sonra maaşı artmıştı ve dört yıl "
             "önce kazandığından %40 daha fazla kazanıyordu. Adrien'in ve Lylah'ın maaşları aynı anda arttıysa ve "
             "Adrien dört yıl önce 40000 $ kazandıysa, dört yıl sonra ikisinin aldığı toplam maaşı hesaplayın.",
        152: "Carl on paket kurabiye alıyor. Her pakette altı kurabiye var. Her kurabiye 0,10 $. Carl 10 $'lık bir "
             "banknotla öderse ne kadar para üstü alır?",
        255: "On ahırın her birinde 20 inek var. Bay Sylas 40 inek satın alıyor ve bunları eşit olarak paylaştırıp "
             "yirmi ahırın her birine aynı sayıda yeni inek koyuyor. Ahırların 8'inde kaç inek vardır?",
        293: "Üç arkadaş, Mike, Jim ve Tony bir oyun oynamaya karar verdi. 3 turdan sonra Mike'ın 21 puanı var, Jim'in "
             "Mike'tan 3 puan eksik, Tony'nin ise Mike'ın 2 katı puanı var. Dördüncü turda 20 puanın üzerinde puanı "
             "olan her oyuncu fazladan bir puan alıyor. Ekstra puanlar dağıtıldıktan sonra üç oyuncunun toplam kaç "
             "puanı olur?",
        313: "Altı yıl önce, Noah Cera'nın yarısı yaşındayken Şili'nin nüfusu şimdikinin yarısıydı. Cera şu anda 46 "
             "yaşında. Şili'nin altı yıl önceki nüfusu Noah'ın yaşının 3000 katıysa, Şili'nin şimdiki nüfusunu "
             "hesaplayın.",
    },
}


# Exam style, as Japanese and Chinese exams print a question: without a question mark (Japanese ends
# it with the particle か, Chinese with a blank to fill). Eight of bench/heldout_rewrites.py's
# MC_HELDOUT questions (by position), translated by hand 2026-11-25 before the translation tier read
# either form (both 0 and 6 of 8 then: the Chinese ones the gloss tier found); no setting tuned on them.
EXAM_STYLE: dict[str, dict[int, str]] = {
    "ja": {
        0: "次のうち、真核細胞におけるミトコンドリアの機能を最もよく説明しているものはどれか。",
        2: "無条件に善いものは善意志だけであると論じた哲学者は誰か。",
        4: "トルデシリャス条約（1494年）は、ヨーロッパ以外の新たに発見された土地をどの二つの国の間で分割したか。",
        5: "コンピュータネットワークにおいて、異なるネットワーク間でパケットをルーティングする役割を担うのはOSI参照モデルのどの層か。",
        6: "疲労感、蒼白、平均赤血球容積の低下を示す患者がいる。最も可能性の高い診断は次のうちどれか。",
        7: "合衆国憲法の下で、下院だけに与えられている権限はどれか。",
        8: "ドップラー効果に関する次の記述のうち、正しいものはどれか。",
        9: "古典的条件づけにおいて、無条件刺激を伴わずに条件刺激を繰り返し提示したとき、条件反応が次第に弱まることを何というか。",
    },
    "zh": {
        0: "下列关于真核细胞中线粒体功能的描述，最准确的是（ ）",
        2: "认为唯一无条件的善是善良意志的哲学家是（ ）",
        4: "《托尔德西里亚斯条约》（1494年）把欧洲以外新发现的土地划分给了（ ）两个国家",
        5: "在计算机网络中，负责在不同网络之间路由数据包的是OSI模型中的（ ）",
        6: "某患者出现乏力、面色苍白，平均红细胞体积偏低，最可能的诊断是（ ）",
        7: "根据美国宪法，专属于众议院的权力是（ ）",
        8: "下列关于多普勒效应的说法中，正确的是（ ）",
        9: "在经典条件反射中，条件刺激反复出现而不伴随无条件刺激时，条件反应逐渐减弱的现象称为（ ）",
    },
}

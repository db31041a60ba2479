"""Held-out rewrites, written by hand for bench/eval_heldout_rewrites.py as a chat model writes them.

Kinds (each item keyed by its index in its eval set; none of them comes from, or was written
looking at, a published set of model rewrites or the HumanEval-X ports):
- JS_PORTS / C_PORTS: HumanEval items 0, 8, ..., 152 translated to JavaScript (camelCase names)
  and to C (snake_case names, arrays with their length), the docstring a comment in other words
  or dropped, sometimes another algorithm, sometimes a usage example;
- PY_REWRITES: HumanEval items 4, 12, ..., 156 rewritten in Python: the same name and signature,
  other local names and structure, the docstring reworded;
- GSM8K_REWORDED: GSM8K test questions 0, 64, ..., 1216 reworded (longer, another sentence order,
  names and numbers kept); GSM8K_REWORDED_QA: items 32, 160, ..., 1184 with the worked answer
  reworded too;
- MC_HELDOUT: multiple-choice items written for this set, with their rewordings (question
  restated, choices kept or dropped); MC_HELDOUT2 and MC_HELDOUT3 (compounds joined or split,
  short answers restated), written later, never tuned on.

The bench tunes on the even positions of each kind and reports the odd ones apart (`HALVES`).
"""
from __future__ import annotations

# GSM8K test questions (by index: every 64th) reworded as a chat model rewrites one: longer, the
# sentences in another order, the names and numbers kept.
GSM8K_REWORDED = {
    0: "Every day, the ducks that Janet keeps produce 16 eggs. Each morning she eats three of those eggs for "
       "breakfast, and she also uses four of them daily to bake muffins for her friends. Whatever eggs remain, "
       "she takes to the farmers' market, where she sells each fresh duck egg for $2. How many dollars does "
       "Janet earn at the farmers' market each day?",
    64: "Sophia is planning a road trip and wants to figure out how many miles her car can travel on one full "
        "tank of gas. According to her car's owner's manual, the tank has a capacity of 12 gallons. Since she "
        "last filled up, she has driven 100 miles, and it took 4 gallons of gas to refill the tank. Based on "
        "this, how far can Sophia drive on a single tank?",
    128: "At the local store, Well's mother sells three kinds of produce: watermelons, peppers, and oranges. "
         "The price of one watermelon is three times the price of a single pepper, while an orange is 5 "
         "dollars cheaper than a watermelon. Suppose each pepper costs 15$. If Dillon is sent to buy 4 "
         "watermelons, 20 peppers, and 10 oranges, how much money will he spend altogether?",
    192: "Tom starts out with 50 trees. Each year he plants 10 new trees, but he also cuts down 2 trees every "
         "year. After 10 years have passed, 30% of his trees die. How many trees does Tom have remaining at "
         "the end?",
    256: "Brady decides to count how much money is in his piggy bank. Inside, he finds 100 pennies, 40 "
         "nickels, 20 dimes, and 40 one-dollar bills. What is the total amount of money in Brady's piggy "
         "bank, expressed in dollars?",
    320: "When a party began, there were 25 men and 15 women in attendance. An hour later, one quarter (1/4) "
         "of all the people at the party had gone home. Given that 22 of the men were still at the party, "
         "how many women remained?",
    384: "After selling 3/5 of his land, Mr. Ruther was left with 12.8 hectares. What was the size of his "
         "land, in hectares, before he sold any of it?",
    448: "A salesman purchased a case containing 48 pairs of sneakers, paying $576 for the whole case. During "
         "a flash sale on Monday he sold 17 of them at $20 each. For the rest of the week, he sold the "
         "remaining sneakers to a department store at $25 apiece. What was the salesman's total profit in "
         "dollars?",
    512: "Hannah's gym teacher has asked her to run 8 laps, where each lap measures 0.25 km. For every "
         "kilometer she runs, Hannah needs to drink 60 ml of water. How many milliliters of water should "
         "Hannah drink in total?",
    576: "Michael wants to put new carpet in his bedroom, which is 18 feet long and 12 feet wide. The carpet "
         "he picked out costs $12 per square foot, and the padding that goes underneath it costs another $2 "
         "per square foot. On top of that, his contractor charges $4 per square foot to tear out the old "
         "carpet and $34 per square foot to install the new one. What is the total cost for Michael to "
         "replace his carpet?",
    640: "Bill is buying a new two-ton truck, which has a base price of $30,000. He wants to add several "
         "extra features, each at additional cost: a king cab upgrade for $7,500, leather seats that cost "
         "one-third as much as the king cab upgrade, running boards that cost $500 less than the leather "
         "seats, a towing package, and an upgraded exterior light package priced at $1500. In dollars, how "
         "much will Bill's new truck cost in total?",
    704: "Gerald and Julia split $100 between them in a 3:2 ratio. Afterwards, Gerald spent $10 of his share "
         "on a book. How much money does Gerald have left?",
    768: "Within one hour, Ezra managed to read twice the number of books that Ahmed read. Ezra read 300 books "
         "during this hour, and he has decided to read another 150. Altogether, how many books have Ezra and "
         "Ahmed read?",
    832: "Eva has saved $20.00. Her brother Anthony has saved $10.00 more than Eva, and Roy has saved 40% "
         "more money from doing chores than Anthony has. How much money does Roy have saved?",
    896: "John rents out his car 10 times each month, and each rental lasts 3 hours. He is paid $25 for every "
         "hour the car is rented. His monthly car payment is $500. How much profit does John make from his "
         "car each month?",
    960: "On an island marked with an X on their map, a pirate crew is searching for buried treasure. On the "
         "first day they dug ten holes, on the second day thirteen holes, and on the third day eight holes, "
         "although they quit early that day to fill in two holes that the pirates kept falling into. On the "
         "fourth day they finally dug up a treasure chest filled with gold, jewels, and an aged hat. By that "
         "point the island had four times as many holes as it had at the end of the first day. How many holes "
         "did the pirates dig on the fourth day before they found the treasure?",
    1024: "Suzanne had a bake sale where she sold 80 cookies at $1 each and 60 cupcakes at $4 each. To thank "
          "her two sisters for their help, she gave each of them $10. How much of her earnings does Suzanne "
          "have left?",
    1088: "A normal student has 6 periods a day, but John must take 2 extra classes on top of that. Every "
          "class lasts 40 minutes, and John attends class 5 days a week. In addition, on both Saturday and "
          "Sunday he spends 1/16 of his weekly class minutes on extra learning. How many hours per week does "
          "John spend learning in total?",
    1152: "Mark has bought two lottery tickets. The first ticket has a 20% chance of winning, and the second "
          "ticket is three times as likely to win as the first. As a percentage, what is the probability that "
          "both of Mark's tickets win?",
    1216: "A bus can hold 200 people. It left Chengli city carrying 20 people. At the first stop, 40 people got "
          "on. At the second station, the number of people who boarded was 3/4 of the number who had boarded "
          "at the first station. Then, at the third station, the number of passengers on the bus doubled. How "
          "many more people would be needed to fill the bus to capacity?",
}
# GSM8K items (every 128th from 32) with the question and the worked answer both reworded.
GSM8K_REWORDED_QA = {
    32: ("John looks after 10 dogs. Walking each dog and letting it take care of its business takes .5 hours "
         "per day. How many hours does John spend caring for the dogs each week?",
         "Each day John spends 10 x 0.5 = 5 hours on the dogs. Since there are 7 days in a week, that comes "
         "to 5 x 7 = 35 hours every week. The answer is 35."),
    160: ("On Monday, a water tank is 17 feet deep. By Tuesday, the water level has risen by 7 feet. On "
          "Wednesday, the depth is two thirds of what it was on Tuesday. How deep is the water in the tank on "
          "Wednesday?",
          "First, find Tuesday's depth: 17 + 7 = 24 feet. Two thirds of that is 24 / 3 = 8, and 8 x 2 = 16. "
          "So on Wednesday the tank's water is 16 feet deep. The answer is 16."),
    288: ("A landscaping company needs to bring 80 flagstones to a customer's yard in a single trip. Each "
          "flagstone weighs 75 pounds, and each delivery truck can carry at most 2000 pounds. How many trucks "
          "are needed?",
          "The total weight of the flagstones is 80 x 75 = 6000 pounds. Dividing by what one truck can carry "
          "gives 6000 / 2000 = 3. Therefore, the company needs 3 trucks. The answer is 3."),
    416: ("In a herd made up of camels and dromedaries, there are 180 heads and 304 humps in total. A camel "
          "has two humps and a dromedary has one. How many dromedaries are in the herd?",
          "Let x be the number of camels, so the number of dromedaries is 180 - x, because every animal has "
          "exactly one head. Counting humps gives 2x + (180 - x) = 304, which simplifies to x + 180 = 304, so "
          "x = 124 camels. That leaves 180 - 124 = 56 dromedaries. The answer is 56."),
    544: ("Jeff and Brad want to share 100 dollars so that Jeff receives 4 times as much as Brad. How many "
          "dollars does Jeff get?",
          "If Brad's share counts as 1 part, Jeff's is 4 parts, for 5 parts in all. One part is 100 / 5 = 20 "
          "dollars, so Jeff gets 20 x 4 = 80 dollars. The answer is 80."),
    672: ("Christina keeps a calendar where she writes down her mood every day. In the last thirty days she "
          "had twelve good days, eight bad days, and the remaining days were neutral. The first eight days "
          "were all good, the next eight were all bad, and the eight after that were all neutral. If the "
          "following three days were good, neutral, and good, how many good days are left in the month?",
          "The number of neutral days is 30 - 12 - 8 = 10. The first three blocks of 8 days use up 8 x 3 = 24 "
          "days, so 30 - 24 = 6 days remain. She had 12 good days and 8 were already used, so 12 - 8 = 4 good "
          "days are left for those 6 days. Two of the next three days were good, so 4 - 2 = 2 good days "
          "remain. The answer is 2."),
    800: ("In a single game of bowling, Pierson scored 278 points. Nikita's score was 11 points more than "
          "half of Pierson's. What is the combined score of Pierson and Nikita?",
          "Half of Pierson's score is 278 / 2 = 139, so Nikita scored 139 + 11 = 150 points. Adding the two "
          "scores, 278 + 150 = 428. Together they scored 428 points. The answer is 428."),
    928: ("Each summer Rita picks Junebugs off her plants by hand. She removed 39 Junebugs on Monday. On "
          "Tuesday and again on Wednesday she removed double Monday's number. On Thursday she removed 48, and "
          "on Friday she removed 57. On average, how many Junebugs did she remove per day?",
          "On Tuesday and Wednesday she removed 2 x 39 = 78 Junebugs each day. Over the five days that is 39 + "
          "78 + 78 + 48 + 57 = 300 Junebugs. Averaged over 5 days, 300 / 5 = 60 Junebugs per day. The answer "
          "is 60."),
    1056: ("Every week Greg changes the sheets on 4 twin beds and 1 king size bed. His washing machine can "
           "only handle 2 twin sets of sheets per load, or 1 king set per load. How many loads of laundry "
           "does Greg do over a year?",
           "The 4 twin sets need 4 / 2 = 2 loads each week, and the king set needs 1 more load, so Greg runs "
           "2 + 1 = 3 loads a week. A year has 52 weeks, so he does 52 x 3 = 156 loads of laundry. The answer "
           "is 156."),
    1184: ("Ali ordered 850 kilos of coal to keep his home warm in winter. The coal comes in 50 kg bags, and "
           "each bag costs $18. What is the total cost of Ali's order?",
           "Ali's order fills 850 / 50 = 17 bags. At $18 per bag, the cost is 17 x 18 = $306. The answer is "
           "306."),
}


# Multiple-choice items written for this set (question, choices), each with its rewording as a chat
# model writes one: the question restated, the choices kept in order (re-lettered, sometimes lightly
# reworded) or, for some, dropped.
MC_HELDOUT = [
    ("Which of the following best describes the function of the mitochondria in a eukaryotic cell?",
     ["Synthesis of proteins", "Production of ATP through cellular respiration", "Storage of genetic "
      "information", "Transport of materials out of the cell"],
     "In eukaryotic cells, what is the main role played by the mitochondria?\n"
     "A) Making proteins\nB) Generating ATP by way of cellular respiration\nC) Storing the cell's genetic "
     "information\nD) Moving materials out of the cell"),
    ("A firm in a perfectly competitive market maximizes profit by producing the quantity at which",
     ["marginal revenue equals marginal cost", "average total cost is minimized", "total revenue is "
      "maximized", "price exceeds average variable cost by the largest amount"],
     "Under perfect competition, at what level of output does a firm earn the highest possible profit?\n"
     "(A) Where marginal revenue is equal to marginal cost (B) Where average total cost is at its lowest "
     "(C) Where total revenue is at its highest (D) Where the gap between price and average variable cost is "
     "largest"),
    ("Which philosopher argued that the only thing good without qualification is a good will?",
     ["John Stuart Mill", "Immanuel Kant", "Aristotle", "David Hume"],
     "According to which philosopher is a good will the one thing that is good without any qualification?"),
    ("What is the derivative of f(x) = x^2 sin(x)?",
     ["2x sin(x)", "x^2 cos(x)", "2x sin(x) + x^2 cos(x)", "2x cos(x) - x^2 sin(x)"],
     "Find the derivative of the function f(x) = x^2 sin(x). Choose the correct option:\n"
     "A. 2x sin(x)\nB. x^2 cos(x)\nC. 2x sin(x) + x^2 cos(x)\nD. 2x cos(x) - x^2 sin(x)"),
    ("The Treaty of Tordesillas (1494) divided newly discovered lands outside Europe between which two "
     "countries?", ["England and France", "Spain and Portugal", "Spain and the Netherlands",
                    "Portugal and England"],
     "Signed in 1494, the Treaty of Tordesillas split the newly found lands beyond Europe between which pair "
     "of nations?\nA) England and France\nB) Spain and Portugal\nC) Spain and the Netherlands\nD) Portugal "
     "and England"),
    ("In the context of computer networks, which layer of the OSI model is responsible for routing packets "
     "between different networks?", ["Data link layer", "Transport layer", "Network layer",
                                      "Session layer"],
     "Which OSI model layer takes care of routing packets from one network to another?\nA. The data link "
     "layer\nB. The transport layer\nC. The network layer\nD. The session layer"),
    ("A patient presents with fatigue, pallor, and a low mean corpuscular volume. Which of the following is "
     "the most likely diagnosis?", ["Vitamin B12 deficiency anemia", "Iron deficiency anemia",
                                    "Folate deficiency anemia", "Hemolytic anemia"],
     "A patient comes in complaining of tiredness, looks pale, and lab work shows a low mean corpuscular "
     "volume. What is the most probable diagnosis?"),
    ("Under the U.S. Constitution, which power is reserved exclusively to the House of Representatives?",
     ["Ratifying treaties", "Confirming federal judges", "Initiating revenue bills",
      "Trying cases of impeachment"],
     "Which of these powers does the U.S. Constitution give only to the House of Representatives?\n"
     "A) Ratifying treaties\nB) Confirming federal judges\nC) Originating bills for raising revenue\n"
     "D) Holding impeachment trials"),
    ("Which of the following statements about the Doppler effect is correct?",
     ["The observed frequency increases as a source moves away from the observer",
      "The observed frequency increases as a source moves toward the observer",
      "The speed of sound changes with the motion of the source",
      "The amplitude of a wave determines its observed frequency"],
     "Regarding the Doppler effect, which one of the statements below is true?\n(A) A source moving away "
     "from an observer is heard at a higher frequency\n(B) A source moving toward an observer is heard at "
     "a higher frequency\n(C) The motion of the source changes the speed of sound\n(D) A wave's observed "
     "frequency is set by its amplitude"),
    ("In classical conditioning, what is the term for the gradual weakening of a conditioned response when "
     "the conditioned stimulus is repeatedly presented without the unconditioned stimulus?",
     ["Spontaneous recovery", "Extinction", "Generalization", "Discrimination"],
     "In classical conditioning, when the conditioned stimulus keeps being presented without the "
     "unconditioned stimulus, the conditioned response slowly fades. What is this process called?"),
    ("What is the time complexity of searching for an element in a balanced binary search tree with n "
     "nodes?", ["O(1)", "O(log n)", "O(n)", "O(n log n)"],
     "If a binary search tree with n nodes is balanced, how long does it take, in big-O terms, to search it "
     "for an element?\nA. O(1)\nB. O(log n)\nC. O(n)\nD. O(n log n)"),
    ("Which accounting principle requires that expenses be recorded in the same period as the revenues "
     "they helped to generate?", ["Revenue recognition principle", "Matching principle",
                                  "Historical cost principle", "Going concern principle"],
     "What accounting principle says that expenses should be recognized in the same period as the revenue "
     "they helped produce?\nA) The revenue recognition principle\nB) The matching principle\nC) The "
     "historical cost principle\nD) The going concern principle"),
    ("Which gas makes up the largest percentage of Earth's atmosphere by volume?",
     ["Oxygen", "Carbon dioxide", "Nitrogen", "Argon"],
     "By volume, which gas accounts for the biggest share of the Earth's atmosphere?"),
    ("If the probability of event A is 0.3 and the probability of event B is 0.5, and A and B are "
     "independent, what is the probability that both A and B occur?", ["0.8", "0.15", "0.2", "0.65"],
     "Events A and B are independent, with P(A) = 0.3 and P(B) = 0.5. What is the probability that A and B "
     "both happen?\nA) 0.8\nB) 0.15\nC) 0.2\nD) 0.65"),
    ("Which novel by George Orwell depicts a society under constant surveillance by a regime led by Big "
     "Brother?", ["Animal Farm", "Brave New World", "Nineteen Eighty-Four", "Fahrenheit 451"],
     "Which George Orwell novel portrays a society kept under constant watch by a regime headed by Big "
     "Brother?"),
]


# HumanEval items (every 8th) translated to JavaScript as a chat model writes a port: the name in
# camelCase, the docstring a comment in other words or dropped, sometimes another algorithm, sometimes
# a usage example.
JS_PORTS = {
    0: '''/**
 * Checks whether any two numbers in the array are closer to each other than the given threshold.
 * @param {number[]} numbers
 * @param {number} threshold
 * @returns {boolean}
 */
function hasCloseElements(numbers, threshold) {
  const sorted = [...numbers].sort((a, b) => a - b);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i] - sorted[i - 1] < threshold) {
      return true;
    }
  }
  return false;
}

console.log(hasCloseElements([1.0, 2.0, 3.0], 0.5)); // false
console.log(hasCloseElements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)); // true
''',
    8: '''// Returns [sum, product] of all integers in the array.
// An empty array gives a sum of 0 and a product of 1.
function sumProduct(numbers) {
  let sum = 0;
  let product = 1;
  for (const n of numbers) {
    sum += n;
    product *= n;
  }
  return [sum, product];
}
''',
    16: '''/**
 * Counts how many distinct characters a string contains, ignoring case.
 * Example: countDistinctCharacters('xyzXYZ') -> 3
 */
function countDistinctCharacters(string) {
  return new Set(string.toLowerCase()).size;
}
''',
    24: '''function largestDivisor(n) {
  // Find the largest number smaller than n that divides n evenly
  for (let i = n - 1; i > 0; i--) {
    if (n % i === 0) {
      return i;
    }
  }
  return 1;
}

console.log(largestDivisor(15)); // 5
''',
    32: '''/**
 * Evaluates a polynomial with coefficients xs at point x:
 * xs[0] + xs[1] * x + xs[2] * x^2 + ... + xs[n] * x^n
 */
function poly(xs, x) {
  return xs.reduce((acc, coeff, i) => acc + coeff * Math.pow(x, i), 0);
}

/**
 * Finds a zero of the polynomial with coefficients xs using bisection.
 * Assumes xs has an even number of coefficients, which guarantees a real root.
 */
function findZero(xs) {
  let begin = -1.0;
  let end = 1.0;
  while (poly(xs, begin) * poly(xs, end) > 0) {
    begin *= 2.0;
    end *= 2.0;
  }
  while (end - begin > 1e-10) {
    const center = (begin + end) / 2.0;
    if (poly(xs, center) * poly(xs, begin) > 0) {
      begin = center;
    } else {
      end = center;
    }
  }
  return begin;
}
''',
    40: '''/**
 * Returns true if there are three distinct elements in the array that sum to zero.
 */
function triplesSumToZero(l) {
  const arr = [...l].sort((a, b) => a - b);
  for (let i = 0; i < arr.length - 2; i++) {
    let lo = i + 1;
    let hi = arr.length - 1;
    while (lo < hi) {
      const s = arr[i] + arr[lo] + arr[hi];
      if (s === 0) return true;
      if (s < 0) lo++;
      else hi--;
    }
  }
  return false;
}

// Examples
console.log(triplesSumToZero([1, 3, 5, 0])); // false
console.log(triplesSumToZero([1, 3, -2, 1])); // true
console.log(triplesSumToZero([2, 4, -5, 3, 9, 7])); // true
''',
    48: '''// Checks if the given string is a palindrome.
function isPalindrome(text) {
  return text === text.split('').reverse().join('');
}
''',
    56: '''/**
 * brackets is a string made of "<" and ">".
 * Returns true if every opening bracket has a matching closing bracket.
 */
function correctBracketing(brackets) {
  let depth = 0;
  for (const ch of brackets) {
    depth += ch === '<' ? 1 : -1;
    if (depth < 0) return false;
  }
  return depth === 0;
}

console.log(correctBracketing("<<><>>")); // true
console.log(correctBracketing("><<>")); // false
''',
    64: '''/**
 * Counts the vowels in a word. 'a', 'e', 'i', 'o', 'u' are vowels,
 * and 'y' also counts, but only when it is the last letter.
 */
function vowelsCount(s) {
  const vowels = 'aeiouAEIOU';
  let count = 0;
  for (const c of s) {
    if (vowels.includes(c)) count++;
  }
  if (s.length > 0 && (s[s.length - 1] === 'y' || s[s.length - 1] === 'Y')) {
    count++;
  }
  return count;
}
''',
    72: '''/**
 * An object q will fly if it is balanced (a palindromic array) and the sum of
 * its elements is less than or equal to the maximum weight w.
 */
function willItFly(q, w) {
  const total = q.reduce((a, b) => a + b, 0);
  if (total > w) return false;
  for (let i = 0, j = q.length - 1; i < j; i++, j--) {
    if (q[i] !== q[j]) return false;
  }
  return true;
}

console.log(willItFly([3, 2, 3], 9)); // true
''',
    80: '''// A string is happy if it has at least 3 characters and every 3 consecutive letters are distinct.
function isHappy(s) {
  if (s.length < 3) {
    return false;
  }
  for (let i = 0; i < s.length - 2; i++) {
    const a = s[i], b = s[i + 1], c = s[i + 2];
    if (a === b || b === c || a === c) {
      return false;
    }
  }
  return true;
}
''',
    88: '''/**
 * Returns a sorted copy of the array: ascending if the sum of the first and last
 * values is odd, descending if it is even. The original array is not modified.
 */
function sortArray(array) {
  if (array.length === 0) return [];
  const copy = array.slice();
  const descending = (array[0] + array[array.length - 1]) % 2 === 0;
  return copy.sort((a, b) => (descending ? b - a : a - b));
}

console.log(sortArray([2, 4, 3, 0, 1, 5])); // [0, 1, 2, 3, 4, 5]
console.log(sortArray([2, 4, 3, 0, 1, 5, 6])); // [6, 5, 4, 3, 2, 1, 0]
''',
    96: '''/**
 * Returns an array of all prime numbers less than n.
 */
function countUpTo(n) {
  const primes = [];
  for (let i = 2; i < n; i++) {
    let isPrime = true;
    for (let j = 2; j * j <= i; j++) {
      if (i % j === 0) {
        isPrime = false;
        break;
      }
    }
    if (isPrime) primes.push(i);
  }
  return primes;
}
''',
    104: '''// Given an array of positive integers, return a sorted array of the elements
// that contain no even digit.
function uniqueDigits(x) {
  return x
    .filter((num) => String(num).split('').every((d) => Number(d) % 2 === 1))
    .sort((a, b) => a - b);
}

console.log(uniqueDigits([15, 33, 1422, 1])); // [1, 15, 33]
''',
    112: '''/**
 * Deletes every character of s that appears in c, then checks whether the
 * result is a palindrome. Returns [result, isPalindrome].
 */
function reverseDelete(s, c) {
  const result = s.split('').filter((ch) => !c.includes(ch)).join('');
  const reversed = result.split('').reverse().join('');
  return [result, result === reversed];
}
''',
    120: '''/**
 * Given an array arr of integers and a positive integer k, return a sorted array
 * of length k containing the k largest numbers in arr.
 */
function maximum(arr, k) {
  if (k === 0) return [];
  const sorted = [...arr].sort((a, b) => a - b);
  return sorted.slice(sorted.length - k);
}

console.log(maximum([-3, -4, 5], 3)); // [-4, -3, 5]
console.log(maximum([4, -4, 4], 2)); // [4, 4]
''',
    128: '''// Returns the sum of the magnitudes of the integers multiplied by the product of
// their signs (1, -1 or 0). Returns null for an empty array.
function prodSigns(arr) {
  if (arr.length === 0) return null;
  let sign = 1;
  let total = 0;
  for (const x of arr) {
    if (x === 0) sign = 0;
    else if (x < 0) sign = -sign;
    total += Math.abs(x);
  }
  return sign * total;
}
''',
    136: '''/**
 * Returns [a, b] where a is the largest negative integer and b is the smallest
 * positive integer in the array; either is null if no such number exists.
 */
function largestSmallestIntegers(lst) {
  const negatives = lst.filter((x) => x < 0);
  const positives = lst.filter((x) => x > 0);
  return [
    negatives.length ? Math.max(...negatives) : null,
    positives.length ? Math.min(...positives) : null,
  ];
}
''',
    144: '''/**
 * x and n are fractions written as "<numerator>/<denominator>".
 * Returns true if x * n is a whole number.
 */
function simplify(x, n) {
  const [a, b] = x.split('/').map(Number);
  const [c, d] = n.split('/').map(Number);
  return (a * c) % (b * d) === 0;
}

console.log(simplify("1/5", "5/1")); // true
console.log(simplify("1/6", "2/1")); // false
''',
    152: '''// Compares the actual scores with the guesses and returns how far off each guess was.
function compare(game, guess) {
  return game.map((score, i) => Math.abs(score - guess[i]));
}

console.log(compare([1, 2, 3, 4, 5, 1], [1, 2, 3, 4, 2, -2])); // [0, 0, 0, 0, 3, 3]
''',
}


# The same HumanEval items translated to C as a chat model writes a port: snake_case names, arrays
# with their length, the docstring a comment in other words or dropped, sometimes a main() with a test.
C_PORTS = {
    0: '''#include <stdbool.h>
#include <math.h>

/* Returns true if any two numbers in the array are closer to each other than threshold. */
bool has_close_elements(const double *numbers, int size, double threshold) {
    for (int i = 0; i < size; i++) {
        for (int j = i + 1; j < size; j++) {
            if (fabs(numbers[i] - numbers[j]) < threshold) {
                return true;
            }
        }
    }
    return false;
}
''',
    8: '''#include <stdio.h>

/* Computes the sum and the product of an array of integers.
 * For an empty array the sum is 0 and the product is 1. */
void sum_product(const int *numbers, int n, int *sum, int *product) {
    *sum = 0;
    *product = 1;
    for (int i = 0; i < n; i++) {
        *sum += numbers[i];
        *product *= numbers[i];
    }
}

int main(void) {
    int nums[] = {1, 2, 3, 4};
    int s, p;
    sum_product(nums, 4, &s, &p);
    printf("(%d, %d)\\n", s, p); /* (10, 24) */
    return 0;
}
''',
    16: '''#include <ctype.h>
#include <stdbool.h>

// Counts the distinct characters in a string, ignoring case.
int count_distinct_characters(const char *str) {
    bool seen[256] = {false};
    int count = 0;
    for (const char *p = str; *p; p++) {
        unsigned char c = (unsigned char)tolower((unsigned char)*p);
        if (!seen[c]) {
            seen[c] = true;
            count++;
        }
    }
    return count;
}
''',
    24: '''#include <stdio.h>

/* Returns the largest number smaller than n that divides n evenly. */
int largest_divisor(int n) {
    for (int i = n / 2; i >= 1; i--) {
        if (n % i == 0) {
            return i;
        }
    }
    return 1;
}

int main(void) {
    printf("%d\\n", largest_divisor(15)); // 5
    return 0;
}
''',
    32: '''#include <math.h>

/* Evaluates the polynomial with coefficients xs (n of them) at x. */
double poly(const double *xs, int n, double x) {
    double result = 0.0;
    for (int i = 0; i < n; i++) {
        result += xs[i] * pow(x, i);
    }
    return result;
}

/* Finds a root of the polynomial by bisection. xs must have an even number of
 * coefficients so that a real root is guaranteed to exist. */
double find_zero(const double *xs, int n) {
    double begin = -1.0, end = 1.0;
    while (poly(xs, n, begin) * poly(xs, n, end) > 0) {
        begin *= 2.0;
        end *= 2.0;
    }
    while (end - begin > 1e-10) {
        double center = (begin + end) / 2.0;
        if (poly(xs, n, center) * poly(xs, n, begin) > 0) {
            begin = center;
        } else {
            end = center;
        }
    }
    return begin;
}
''',
    40: '''#include <stdbool.h>

// Returns true if three distinct elements of the array sum to zero.
bool triples_sum_to_zero(const int *l, int n) {
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            for (int k = j + 1; k < n; k++)
                if (l[i] + l[j] + l[k] == 0)
                    return true;
    return false;
}
''',
    48: '''#include <stdbool.h>
#include <string.h>

/* Checks whether the given string reads the same forwards and backwards. */
bool is_palindrome(const char *text) {
    int i = 0, j = (int)strlen(text) - 1;
    while (i < j) {
        if (text[i] != text[j]) {
            return false;
        }
        i++;
        j--;
    }
    return true;
}
''',
    56: '''#include <stdbool.h>
#include <stdio.h>

/* brackets contains only '<' and '>'. Returns true if every opening bracket
 * has a corresponding closing bracket. */
bool correct_bracketing(const char *brackets) {
    int depth = 0;
    for (int i = 0; brackets[i] != '\\0'; i++) {
        if (brackets[i] == '<') {
            depth++;
        } else {
            depth--;
        }
        if (depth < 0) {
            return false;
        }
    }
    return depth == 0;
}

int main(void) {
    printf("%d\\n", correct_bracketing("<>"));     /* 1 */
    printf("%d\\n", correct_bracketing("><<>"));   /* 0 */
    return 0;
}
''',
    64: '''#include <string.h>
#include <ctype.h>

/* Counts the vowels a, e, i, o, u in a word; 'y' is counted only when it is
 * the last character. */
int vowels_count(const char *s) {
    int count = 0;
    size_t len = strlen(s);
    for (size_t i = 0; i < len; i++) {
        char c = (char)tolower((unsigned char)s[i]);
        if (c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u') {
            count++;
        }
    }
    if (len > 0 && tolower((unsigned char)s[len - 1]) == 'y') {
        count++;
    }
    return count;
}
''',
    72: '''#include <stdbool.h>

/* q will fly if it is a palindrome and the sum of its elements is at most w. */
bool will_it_fly(const int *q, int n, int w) {
    int sum = 0;
    for (int i = 0; i < n; i++) {
        sum += q[i];
    }
    if (sum > w) {
        return false;
    }
    for (int i = 0, j = n - 1; i < j; i++, j--) {
        if (q[i] != q[j]) {
            return false;
        }
    }
    return true;
}
''',
    80: '''#include <stdbool.h>
#include <string.h>

// A string is "happy" if its length is at least 3 and every 3 consecutive
// characters are all different.
bool is_happy(const char *s) {
    size_t len = strlen(s);
    if (len < 3) {
        return false;
    }
    for (size_t i = 0; i + 2 < len; i++) {
        if (s[i] == s[i + 1] || s[i + 1] == s[i + 2] || s[i] == s[i + 2]) {
            return false;
        }
    }
    return true;
}
''',
    88: '''#include <stdlib.h>
#include <string.h>

static int cmp_asc(const void *a, const void *b) { return (*(const int *)a - *(const int *)b); }
static int cmp_desc(const void *a, const void *b) { return (*(const int *)b - *(const int *)a); }

/* Returns a newly allocated sorted copy of array: ascending when
 * array[0] + array[n-1] is odd, descending when it is even. */
int *sort_array(const int *array, int n) {
    int *copy = malloc(sizeof(int) * (n > 0 ? n : 1));
    if (n == 0) {
        return copy;
    }
    memcpy(copy, array, sizeof(int) * n);
    if ((array[0] + array[n - 1]) % 2 == 0) {
        qsort(copy, n, sizeof(int), cmp_desc);
    } else {
        qsort(copy, n, sizeof(int), cmp_asc);
    }
    return copy;
}
''',
    96: '''#include <stdlib.h>
#include <stdbool.h>

/* Fills primes with all prime numbers less than n and returns how many there are.
 * The caller must provide an array with room for at least n elements. */
int count_up_to(int n, int *primes) {
    int count = 0;
    for (int i = 2; i < n; i++) {
        bool prime = true;
        for (int j = 2; j * j <= i; j++) {
            if (i % j == 0) {
                prime = false;
                break;
            }
        }
        if (prime) {
            primes[count++] = i;
        }
    }
    return count;
}
''',
    104: '''#include <stdbool.h>
#include <stdlib.h>

static int compare_ints(const void *a, const void *b) {
    return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

static bool all_digits_odd(int num) {
    do {
        if ((num % 10) % 2 == 0) return false;
        num /= 10;
    } while (num > 0);
    return true;
}

/* Writes the elements of x that have no even digit into out, sorted ascending;
 * returns how many were written. */
int unique_digits(const int *x, int n, int *out) {
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (all_digits_odd(x[i])) out[m++] = x[i];
    }
    qsort(out, m, sizeof(int), compare_ints);
    return m;
}
''',
    112: '''#include <stdbool.h>
#include <string.h>

/* Removes from s every character that occurs in c, storing the result in out,
 * and returns whether the result is a palindrome. */
bool reverse_delete(const char *s, const char *c, char *out) {
    int k = 0;
    for (int i = 0; s[i]; i++) {
        if (strchr(c, s[i]) == NULL) {
            out[k++] = s[i];
        }
    }
    out[k] = '\\0';
    for (int i = 0, j = k - 1; i < j; i++, j--) {
        if (out[i] != out[j]) return false;
    }
    return true;
}
''',
    120: '''#include <stdlib.h>

static int ascending(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Sorts arr and copies its k largest numbers, in ascending order, into out. */
void maximum(int *arr, int n, int k, int *out) {
    qsort(arr, n, sizeof(int), ascending);
    for (int i = 0; i < k; i++) {
        out[i] = arr[n - k + i];
    }
}
''',
    128: '''#include <stdlib.h>

/* Sum of the absolute values times the product of the signs of all numbers.
 * Sets *ok to 0 and returns 0 for an empty array. */
int prod_signs(const int *arr, int n, int *ok) {
    if (n == 0) {
        *ok = 0;
        return 0;
    }
    *ok = 1;
    int sign = 1, sum = 0;
    for (int i = 0; i < n; i++) {
        if (arr[i] == 0) sign = 0;
        else if (arr[i] < 0) sign = -sign;
        sum += abs(arr[i]);
    }
    return sign * sum;
}
''',
    136: '''#include <stdbool.h>

/* Finds the largest negative integer and the smallest positive integer in lst.
 * has_neg / has_pos are set to false when there is no such number. */
void largest_smallest_integers(const int *lst, int n, int *largest_neg, bool *has_neg,
                               int *smallest_pos, bool *has_pos) {
    *has_neg = false;
    *has_pos = false;
    for (int i = 0; i < n; i++) {
        if (lst[i] < 0 && (!*has_neg || lst[i] > *largest_neg)) {
            *largest_neg = lst[i];
            *has_neg = true;
        }
        if (lst[i] > 0 && (!*has_pos || lst[i] < *smallest_pos)) {
            *smallest_pos = lst[i];
            *has_pos = true;
        }
    }
}
''',
    144: '''#include <stdbool.h>
#include <stdio.h>

/* x and n are fractions of the form "a/b". Returns true if x * n is a whole number. */
bool simplify(const char *x, const char *n) {
    int a, b, c, d;
    sscanf(x, "%d/%d", &a, &b);
    sscanf(n, "%d/%d", &c, &d);
    return (a * c) % (b * d) == 0;
}

int main(void) {
    printf("%d\\n", simplify("1/5", "5/1"));   /* 1 */
    printf("%d\\n", simplify("7/10", "10/2")); /* 0 */
    return 0;
}
''',
    152: '''#include <stdlib.h>

/* For each match, stores how far the guess was from the actual score in result. */
void compare(const int *game, const int *guess, int n, int *result) {
    for (int i = 0; i < n; i++) {
        result[i] = abs(game[i] - guess[i]);
    }
}
''',
}


# HumanEval items (every 8th from 4) rewritten in Python as a chat model rewrites one: the same name
# and signature, other local names and structure, the docstring reworded (its examples kept in some).
PY_REWRITES = {
    4: '''from typing import List


def mean_absolute_deviation(numbers: List[float]) -> float:
    """Compute the mean absolute deviation of a list of numbers, i.e. the average
    distance of each value from the arithmetic mean of the list.

    Example: mean_absolute_deviation([1.0, 2.0, 3.0, 4.0]) returns 1.0
    """
    count = len(numbers)
    center = sum(numbers) / count
    total_distance = 0.0
    for value in numbers:
        total_distance += abs(value - center)
    return total_distance / count
''',
    12: '''from typing import List, Optional


def longest(strings: List[str]) -> Optional[str]:
    """Return the longest string from the given list. If several strings share the
    maximum length, the earliest one wins; an empty list yields None."""
    best = None
    for candidate in strings:
        if best is None or len(candidate) > len(best):
            best = candidate
    return best
''',
    20: '''from typing import List, Tuple


def find_closest_elements(numbers: List[float]) -> Tuple[float, float]:
    """Given a list with at least two numbers, find the pair of values whose
    difference is the smallest and return them as (smaller, larger).

    >>> find_closest_elements([1.0, 2.0, 3.0, 4.0, 5.0, 2.2])
    (2.0, 2.2)
    """
    ordered = sorted(numbers)
    best_pair = (ordered[0], ordered[1])
    best_gap = ordered[1] - ordered[0]
    for left, right in zip(ordered, ordered[1:]):
        if right - left < best_gap:
            best_gap = right - left
            best_pair = (left, right)
    return best_pair
''',
    28: '''from typing import List


def concatenate(strings: List[str]) -> str:
    """Join all the strings in the list together into one string, in order."""
    result = ""
    for piece in strings:
        result += piece
    return result
''',
    36: '''def fizz_buzz(n: int):
    """Count how many times the digit 7 occurs among all integers below n that are
    multiples of 11 or of 13.

    >>> fizz_buzz(78)
    2
    >>> fizz_buzz(79)
    3
    """
    sevens = 0
    for number in range(n):
        if number % 11 == 0 or number % 13 == 0:
            sevens += str(number).count('7')
    return sevens
''',
    44: '''def change_base(x: int, base: int):
    """Convert the integer x into its representation in the given base (which is
    below 10) and return the digits as a string.

    >>> change_base(8, 3)
    '22'
    >>> change_base(7, 2)
    '111'
    """
    digits = []
    value = x
    while value > 0:
        value, remainder = divmod(value, base)
        digits.append(str(remainder))
    return ''.join(reversed(digits))
''',
    52: '''def below_threshold(l: list, t: int):
    """Check that every number in the list l is strictly smaller than the threshold t."""
    return all(item < t for item in l)
''',
    60: '''def sum_to_n(n: int):
    """Add up all the integers from 1 through n and return the total.

    >>> sum_to_n(30)
    465
    >>> sum_to_n(100)
    5050
    """
    return n * (n + 1) // 2
''',
    68: '''def pluck(arr):
    """Given a list of non-negative integers representing the nodes of a tree branch,
    pick the node with the smallest even value and return it as [value, index].
    When several nodes share that value, use the one with the lowest index.
    Return an empty list if there is no even value or the input is empty.

    Example: pluck([5, 0, 3, 0, 4, 2]) gives [0, 1]
    """
    chosen_value, chosen_index = None, None
    for position, node in enumerate(arr):
        if node % 2 == 0 and (chosen_value is None or node < chosen_value):
            chosen_value, chosen_index = node, position
    if chosen_value is None:
        return []
    return [chosen_value, chosen_index]
''',
    76: '''def is_simple_power(x, n):
    """Return True when x can be written as n raised to some integer power, and
    False otherwise.

    For example, is_simple_power(8, 2) is True, while is_simple_power(3, 2) is False.
    """
    if n == 1:
        return x == 1
    current = 1
    while current < x:
        current *= n
    return current == x
''',
    84: '''def solve(N):
    """For a positive integer N, add up its decimal digits and return that sum
    written in binary, as a string.

    For instance, N = 150 has digit sum 6, so the result is "110".
    """
    digit_total = 0
    while N > 0:
        digit_total += N % 10
        N //= 10
    return format(digit_total, 'b')
''',
    92: '''def any_int(x, y, z):
    """Take three numbers and return True only if all of them are integers and one
    of them equals the sum of the other two; return False in every other case.

    any_int(5, 2, 7) -> True
    any_int(3.6, -2.2, 2) -> False
    """
    values = (x, y, z)
    if not all(isinstance(v, int) for v in values):
        return False
    return x + y == z or x + z == y or y + z == x
''',
    100: '''def make_a_pile(n):
    """Build a pile of stones with n levels, where the first level holds n stones and
    each following level holds the next number with the same parity as n (the next
    odd number if n is odd, the next even number if n is even). Return the list of
    stone counts per level.

    >>> make_a_pile(3)
    [3, 5, 7]
    """
    levels = []
    stones = n
    for _ in range(n):
        levels.append(stones)
        stones += 2
    return levels
''',
    108: '''def count_nums(arr):
    """Return how many integers in arr have a digit sum greater than zero, where the
    first digit of a negative number is taken as negative (so -123 has digits
    -1, 2 and 3).

    >>> count_nums([-1, 11, -11]) == 1
    """
    def signed_digit_sum(value):
        digits = [int(d) for d in str(abs(value))]
        if value < 0:
            digits[0] = -digits[0]
        return sum(digits)

    return sum(1 for value in arr if signed_digit_sum(value) > 0)
''',
    116: '''def sort_array(arr):
    """Sort a list of integers by how many 1 bits their binary form has, in ascending
    order; numbers with the same count of ones are ordered by their decimal value.

    >>> sort_array([1, 5, 2, 3, 4]) == [1, 2, 3, 4, 5]
    """
    def ones(value):
        return bin(value).count('1')

    return sorted(arr, key=lambda value: (ones(value), value))
''',
    124: '''def valid_date(date):
    """Check whether a date string in the format mm-dd-yyyy is valid. The string must
    not be empty, the month must be between 1 and 12, and the day must fit the month:
    up to 31 for months 1, 3, 5, 7, 8, 10 and 12, up to 30 for months 4, 6, 9 and 11,
    and up to 29 for month 2.

    valid_date('03-11-2000') => True
    valid_date('06/04/2020') => False
    """
    parts = date.strip().split('-')
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return False
    month, day, _year = (int(p) for p in parts)
    if not 1 <= month <= 12:
        return False
    if month in (1, 3, 5, 7, 8, 10, 12):
        limit = 31
    elif month in (4, 6, 9, 11):
        limit = 30
    else:
        limit = 29
    return 1 <= day <= limit
''',
    132: '''def is_nested(string):
    """The input contains only square brackets. Return True if there is a valid
    subsequence of brackets in which at least one bracket is nested inside another.

    is_nested('[[]]') -> True
    is_nested('[][]') -> False
    """
    opens = [i for i, ch in enumerate(string) if ch == '[']
    closes = [i for i, ch in enumerate(string) if ch == ']'][::-1]
    matched = 0
    pointer = 0
    for position in opens:
        if pointer < len(closes) and position < closes[pointer]:
            matched += 1
            pointer += 1
    return matched >= 2
''',
    140: '''import re


def fix_spaces(text):
    """Replace every space in text with an underscore, except that any run of more
    than two consecutive spaces is replaced by a single dash.

    fix_spaces(" Example   3") == "_Example-3"
    """
    collapsed = re.sub(r' {3,}', '-', text)
    return collapsed.replace(' ', '_')
''',
    148: '''def bf(planet1, planet2):
    """Given the names of two planets, return a tuple of all the planets whose orbits
    lie between theirs, ordered by distance from the Sun. Return an empty tuple when
    either name is not one of the eight planets.

    bf("Jupiter", "Neptune") ==> ("Saturn", "Uranus")
    """
    order = ["Mercury", "Venus", "Earth", "Mars", "Jupiter", "Saturn", "Uranus", "Neptune"]
    if planet1 not in order or planet2 not in order or planet1 == planet2:
        return ()
    first, second = sorted((order.index(planet1), order.index(planet2)))
    return tuple(order[first + 1:second])
''',
    156: '''def int_to_mini_roman(number):
    """Convert a positive integer between 1 and 1000 to its Roman numeral form,
    written in lowercase letters.

    >>> int_to_mini_roman(19) == 'xix'
    >>> int_to_mini_roman(426) == 'cdxxvi'
    """
    table = [(1000, 'm'), (900, 'cm'), (500, 'd'), (400, 'cd'), (100, 'c'), (90, 'xc'),
             (50, 'l'), (40, 'xl'), (10, 'x'), (9, 'ix'), (5, 'v'), (4, 'iv'), (1, 'i')]
    pieces = []
    for value, letters in table:
        count, number = divmod(number, value)
        pieces.append(letters * count)
    return ''.join(pieces)
''',
}


# A second held-out set (written after the first was tuned on; never tuned on): GSM8K test items
# 96, 224, ..., 1248 with the question and the worked answer rephrased as a chat model does it (other
# sentence order, the steps explained in other words, the numbers kept, the calculator marks dropped,
# the final answer stated in a sentence).
GSM8K_REWORDED_QA2 = {
    96: ("Last night Harry got 9 hours of sleep, while his friend James managed only two thirds as much. By "
         "how many hours did Harry out-sleep James?",
         "To find how long James slept, take 2/3 of Harry's 9 hours: 9 x 2/3 = 6 hours. The difference "
         "between them is then 9 - 6 = 3. So Harry slept three hours more than James did."),
    224: ("Two friends, Carlos and Benji, spend a day at the beach. Benji rents a banana boat raft that costs "
          "$18 per hour and keeps it for 5 hours, while Carlos pays $30 per hour for a canoe and uses it for 3 "
          "hours. What is the combined cost of their rentals?",
          "Carlos's canoe costs 30 x 3 = 90 dollars. Benji's raft comes to 18 x 5 = 90 dollars as well. "
          "Adding the two amounts, 90 + 90 = 180, so together they pay 180 dollars for the rentals."),
    352: ("Andrea started with $36. She put some of it aside as savings, and with what was left she bought a "
          "sweater for $11 and handed her brother $4. How much money did Andrea put into savings?",
          "First add up what she spent and gave away: 11 + 4 = 15 dollars. Subtracting that from the 36 "
          "dollars she began with leaves 36 - 15 = 21. Andrea therefore saved 21 dollars."),
    480: ("Ben owns 4 tubes of blue paint and 3 tubes of yellow paint. Jasper has half as many blue tubes as "
          "Ben does, but three times as many yellow tubes. What is the total number of paint tubes Jasper "
          "has?",
          "Half of Ben's 4 blue tubes is 4 / 2 = 2, so Jasper has 2 blue tubes. Three times Ben's 3 yellow "
          "tubes is 3 x 3 = 9 yellow tubes. In all, Jasper has 2 + 9 = 11 tubes of paint."),
    608: ("For his upcoming field trip, Joe wants a new outfit and has $50 to spend. He chooses a shirt priced "
          "at $25 and a pair of shorts priced at $35, and the clothing store is running a 30% off sale. If "
          "sales tax is already included, how much money does Joe have left after paying?",
          "Before the discount the shirt and shorts cost 25 + 35 = 60 dollars. The 30% discount takes off "
          "60 x 0.3 = 18 dollars, so Joe pays 60 - 18 = 42 dollars. Out of his 50 dollars, 50 - 42 = 8 "
          "remain, so Joe is left with eight dollars."),
    736: ("Boris owns 100 apples, and Beck has 23 apples fewer than he does. Suppose Boris hands 10 of his "
          "apples to Beck. After that, how many fewer apples does Beck have compared with Boris?",
          "At the start Beck has 100 - 23 = 77 apples. Once Boris gives away 10, Boris is down to 100 - 10 = "
          "90 apples, and Beck is up to 77 + 10 = 87. The gap is now 90 - 87 = 3, so Beck has three apples "
          "fewer than Boris."),
    864: ("Mr. George teaches sixth grade and ordered 600 burritos for the class picnic. There were 50 "
          "students at the picnic and every student received ten burritos; George himself ate 20. How many "
          "burritos were left over after the picnic?",
          "The students ate 50 x 10 = 500 burritos between them. Counting the 20 that Mr. George ate, "
          "500 + 20 = 520 burritos were eaten in total. Taking that from the 600 ordered gives 600 - 520 = "
          "80, so eighty burritos were left over."),
    992: ("Buford writes a lot of checks over the course of a year. Each month he writes one check for the "
          "electric bill and one for the gas bill. He writes two checks a month to his church, and once "
          "every quarter he writes a check to his pest and lawn service. How many checks does he write in a "
          "year?",
          "The electric bill takes 1 x 12 = 12 checks a year, and the gas bill another 12. The church gets "
          "2 x 12 = 24 checks a year, and the pest and lawn service 1 x 4 = 4, one per quarter. Adding "
          "these, 12 + 12 + 24 + 4 = 52, so Buford writes fifty-two checks per year."),
    1120: ("Twice every month, John drives to visit his parents. The drive there takes him 2 hours at 70 mph. "
           "Counting the trip there and back, how many miles does John drive each month on these visits?",
           "Driving 2 hours at 70 mph means his parents live 70 x 2 = 140 miles away. A round trip is "
           "therefore 140 x 2 = 280 miles. Since he makes two visits a month, he drives 280 x 2 = 560 miles "
           "a month."),
    1248: ("Jason sells cars at a dealership, and to earn a big bonus he has to sell 15 cars this month. From "
           "past averages he knows that one in every two customers who come into the dealership buys a car, "
           "and that he gets one person to come in for every 25 telephone calls he makes to potential "
           "customers. Going by these averages, how many calls does Jason need to make to sell 15 cars?",
           "Since half of the visitors buy, selling 15 cars takes 2 x 15 = 30 customers coming into the "
           "dealership. Each of those customers costs 25 phone calls, so Jason has to make 25 x 30 = 750 "
           "calls. He needs seven hundred fifty telephone calls to earn his bonus."),
}


# A second set of multiple-choice items written for this bench (never tuned on), MMLU-style
# (question, four choices), each with a rewording of the question AND its choices as a chat model
# writes one: the sentence restructured, terms replaced by synonyms, the choices paraphrased and
# sometimes reordered.
MC_HELDOUT2 = [
    ("Which of the following best describes the doctrine of stare decisis?",
     ["Courts should follow precedent set by earlier decisions", "A contract is void if it is against public "
      "policy", "A defendant cannot be tried twice for the same offense", "Laws cannot be applied "
      "retroactively"],
     "What is the best description of the stare decisis doctrine?\nA) Judges ought to abide by the precedents "
     "established in prior rulings\nB) An agreement contrary to public policy has no legal effect\nC) No one "
     "may be prosecuted a second time for the same crime\nD) Statutes may not be given retroactive effect"),
    ("In tort law, which element must a plaintiff prove to establish negligence in addition to duty, "
     "breach, and damages?", ["Intent", "Causation", "Consideration", "Strict liability"],
     "To make out a negligence claim in tort, a plaintiff has to show a duty, its breach and harm. What "
     "other element is required?\n(A) Causation (B) Intent (C) Strict liability (D) Consideration"),
    ("A 65-year-old man presents with crushing chest pain radiating to the left arm and ST-segment "
     "elevation on ECG. Which of the following is the most likely diagnosis?",
     ["Pulmonary embolism", "Acute myocardial infarction", "Aortic dissection", "Pericarditis"],
     "A man aged 65 comes in with severe, pressing pain in the chest that spreads to his left arm, and his "
     "electrocardiogram shows ST elevation. What diagnosis is most probable?\nA. A heart attack (acute "
     "myocardial infarction)\nB. Pericarditis\nC. Pulmonary embolism\nD. Dissection of the aorta"),
    ("Which vitamin deficiency causes scurvy?", ["Vitamin A", "Vitamin B1", "Vitamin C", "Vitamin D"],
     "Scurvy results from a lack of which vitamin?\nA) Vitamin D\nB) Vitamin C\nC) Vitamin B1 (thiamine)\n"
     "D) Vitamin A"),
    ("Which of the following drugs is a beta-blocker commonly used to treat hypertension?",
     ["Lisinopril", "Metoprolol", "Amlodipine", "Hydrochlorothiazide"],
     "Among these medications, which one is a beta blocker that doctors often prescribe for high blood "
     "pressure?\nA. Amlodipine\nB. Lisinopril\nC. Hydrochlorothiazide\nD. Metoprolol"),
    ("If the price elasticity of demand for a good is greater than 1 in absolute value, demand is said to "
     "be", ["inelastic", "unit elastic", "elastic", "perfectly inelastic"],
     "When the absolute value of a good's price elasticity of demand exceeds 1, how is its demand "
     "described?\n(A) Elastic\n(B) Inelastic\n(C) Perfectly inelastic\n(D) Unit elastic"),
    ("Which of the following is most likely to cause a rightward shift of the aggregate demand curve?",
     ["An increase in income taxes", "A decrease in government spending", "An increase in the money "
      "supply", "A rise in interest rates"],
     "Which of these would most probably move the aggregate demand curve to the right?\nA) The central bank "
     "expanding the money supply\nB) Higher interest rates\nC) Raising income taxes\nD) Cutting government "
     "expenditure"),
    ("What does a country's gross domestic product measure?",
     ["The total market value of all final goods and services produced within the country in a year",
      "The total income earned by the country's citizens abroad", "The difference between exports and "
      "imports", "The total amount of money in circulation"],
     "What is measured by the gross domestic product (GDP) of a nation?\nA. The market value of every final "
     "good and service produced inside its borders over a year\nB. The net of its exports minus its "
     "imports\nC. How much money is circulating in its economy\nD. What its citizens earn in other "
     "countries"),
    ("An object is dropped from rest near the surface of the Earth. Ignoring air resistance, what is its "
     "speed after 3 seconds?", ["9.8 m/s", "19.6 m/s", "29.4 m/s", "44.1 m/s"],
     "Neglecting air resistance, how fast is an object moving 3 seconds after it is released from rest "
     "close to the Earth's surface?\nA) 29.4 m/s\nB) 9.8 m/s\nC) 44.1 m/s\nD) 19.6 m/s"),
    ("Which law states that the current through a conductor is directly proportional to the voltage "
     "across it?", ["Faraday's law", "Ohm's law", "Coulomb's law", "Lenz's law"],
     "The law saying that the current flowing through a conductor is proportional to the voltage applied "
     "across it is known as what?\n(A) Coulomb's law (B) Lenz's law (C) Ohm's law (D) Faraday's law"),
    ("What happens to the wavelength of light when it passes from air into glass?",
     ["It increases", "It decreases", "It stays the same", "It becomes zero"],
     "When light travels out of air and enters glass, how does its wavelength change?\nA. It gets shorter\n"
     "B. It gets longer\nC. It does not change\nD. It drops to zero"),
    ("Which event is generally considered the immediate trigger of World War I?",
     ["The sinking of the Lusitania", "The assassination of Archduke Franz Ferdinand", "The invasion of "
      "Poland", "The Treaty of Versailles"],
     "What event is usually regarded as having directly set off the First World War?\nA) Germany invading "
     "Poland\nB) The Lusitania being sunk\nC) The murder of Archduke Franz Ferdinand\nD) The signing of "
     "the Treaty of Versailles"),
    ("The Magna Carta, signed in 1215, primarily limited the power of which figure?",
     ["The Pope", "The English king", "The French monarchy", "The Parliament"],
     "Whose power was chiefly restricted by the Magna Carta of 1215?\nA. Parliament's\nB. The Pope's\nC. "
     "The King of England's\nD. The French crown's"),
    ("Which ancient civilization built the city of Machu Picchu?",
     ["The Aztecs", "The Maya", "The Inca", "The Olmecs"],
     "Machu Picchu was constructed by which civilization of the ancient world?\n(A) The Inca (B) The "
     "Olmecs (C) The Aztecs (D) The Maya"),
    ("According to utilitarianism, the morally right action is the one that",
     ["follows universal moral rules", "produces the greatest good for the greatest number", "expresses "
      "virtuous character", "respects the social contract"],
     "Under utilitarian ethics, what makes an action the morally correct one?\nA) It yields the most "
     "happiness for the largest number of people\nB) It conforms to moral rules that hold universally\n"
     "C) It honors the social contract\nD) It reflects a virtuous character"),
    ("Descartes' statement 'I think, therefore I am' was intended to establish",
     ["the existence of God", "a foundation of certain knowledge", "the reality of the external world",
      "the primacy of sense experience"],
     "What did Descartes aim to secure with his claim \"I think, therefore I am\"?\nA. That sense "
     "experience comes first\nB. That God exists\nC. A basis for knowledge that cannot be doubted\nD. That "
     "the outside world is real"),
    ("Which data structure uses a first-in, first-out (FIFO) ordering?",
     ["Stack", "Queue", "Binary tree", "Hash table"],
     "Which of these data structures removes elements in the same order they were added (first in, first "
     "out)?\nA) A hash table\nB) A stack\nC) A queue\nD) A binary tree"),
    ("In relational databases, what is the purpose of a foreign key?",
     ["To uniquely identify each row in its own table", "To link a row to a row in another table",
      "To speed up queries by sorting data", "To encrypt sensitive columns"],
     "What role does a foreign key play in a relational database?\n(A) It connects a record to a record in "
     "a different table (B) It encrypts columns holding sensitive data (C) It gives every row of its own "
     "table a unique identity (D) It makes queries faster by keeping data sorted"),
    ("Which sorting algorithm has a worst-case time complexity of O(n log n)?",
     ["Quicksort", "Bubble sort", "Merge sort", "Insertion sort"],
     "Of the following sorting algorithms, which one runs in O(n log n) time even in the worst case?\nA. "
     "Insertion sort\nB. Merge sort\nC. Bubble sort\nD. Quicksort"),
    ("Which psychologist proposed a hierarchy of needs with self-actualization at the top?",
     ["Sigmund Freud", "B. F. Skinner", "Abraham Maslow", "Jean Piaget"],
     "Who was the psychologist that put forward a pyramid of human needs topped by self-actualization?\n"
     "A) Jean Piaget\nB) Abraham Maslow\nC) Sigmund Freud\nD) B. F. Skinner"),
]


# A third held-out set (written before any change for compounds and choices; never tuned on):
# MMLU-style items of science, medicine, law and technology (question, choices), 17 with four
# choices and 7 short-answer ones (their one answer as the only choice), each with a rewording as a
# person or a chat model writes one: the question restated (other order, synonyms), and the choices
# kept as they are, reworded, re-lettered or dropped, or the short answer restated in a sentence.
# Some rewordings join or split a hyphenated or compound word as writers do (beta-blockers / beta
# blockers, e-mail / email, pre-existing / preexisting, peer-to-peer / peer to peer, Type I / Type 1).
MC_HELDOUT3 = [
    ("Which class of drugs, such as propranolol, blocks beta-adrenergic receptors and is used to slow the "
     "heart rate?", ["ACE inhibitors", "Beta-blockers", "Calcium channel blockers", "Diuretics"],
     "Propranolol belongs to which drug class that works on beta adrenergic receptors to bring down a "
     "patient's heart rate?\nA) ACE inhibitors\nB) Beta blockers\nC) Calcium channel blockers\nD) Diuretics"),
    ("Under the Fifth Amendment, which protection prevents a person from being tried twice for the same "
     "offense?", ["Due process", "Double jeopardy", "Self-incrimination", "Eminent domain"],
     "Which Fifth Amendment safeguard means that nobody can be put on trial a second time for the same "
     "crime?"),
    ("In public-key cryptography, which key is used to verify a digital signature created by the sender?",
     ["The sender's private key", "The sender's public key", "The receiver's private key",
      "A shared session key"],
     "With public key cryptography, when a sender digitally signs a message, which key does the recipient "
     "use to check that signature?\nA. The private key of the sender\nB. The public key of the sender\n"
     "C. The private key of the recipient\nD. A shared session key"),
    ("What term describes the time required for the plasma concentration of a drug to fall to half of its "
     "initial value?", ["The elimination half-life"],
     "How do pharmacologists refer to the length of time it takes for a medication's concentration in the "
     "blood plasma to drop by fifty percent? This is known as its elimination half life."),
    ("Which protocol is used to send e-mail messages from a client to a mail server?",
     ["SMTP", "IMAP", "POP3", "HTTP"],
     "When an email client hands an outgoing message over to a mail server, which protocol is it using?\n"
     "A) IMAP\nB) SMTP\nC) HTTP\nD) POP3"),
    ("Under the Affordable Care Act, insurers may no longer deny coverage to applicants because of which "
     "factor?", ["Pre-existing conditions", "Age", "Smoking status", "Place of residence"],
     "Since the Affordable Care Act took effect, on what basis are health insurers no longer allowed to "
     "refuse someone coverage: preexisting conditions, age, whether they smoke, or where they live?"),
    ("Which psychologist is well-known for experiments on obedience in which participants believed they "
     "were giving electric shocks?", ["Philip Zimbardo", "Stanley Milgram", "Albert Bandura", "Solomon Asch"],
     "Who is the psychologist well known for his obedience studies, where the subjects thought they were "
     "delivering electric shocks to another person?"),
    ("In a double-blind clinical trial, which parties do not know which participants receive the "
     "treatment?", ["Only the participants", "Only the researchers", "Both the participants and the "
                    "researchers", "Neither the participants nor the researchers"],
     "In a clinical trial that is double blind, who is kept unaware of which subjects are getting the "
     "treatment?\nA) The subjects only\nB) The researchers only\nC) Both the subjects and the researchers\n"
     "D) Neither of them"),
    ("Which imaging technique uses strong magnetic fields and radio waves rather than ionizing radiation to "
     "produce images of soft tissue?", ["Magnetic resonance imaging (MRI)"],
     "Unlike X-rays or CT scans, one imaging method relies on powerful magnets and radio waves instead of "
     "ionising radiation to picture the body's soft tissues: magnetic resonance imaging, or MRI."),
    ("Which type of chemical bond involves the sharing of electron pairs between two atoms?",
     ["Ionic bond", "Covalent bond", "Hydrogen bond", "Metallic bond"],
     "What do we call a chemical bond in which two atoms share pairs of electrons?\nA. Ionic bond\n"
     "B. Covalent bond\nC. Hydrogen bond\nD. Metallic bond"),
    ("During which phase of mitosis do sister chromatids separate and move toward opposite poles of the "
     "cell?", ["Prophase", "Metaphase", "Anaphase", "Telophase"],
     "At what stage of mitosis are the sister chromatids pulled apart to opposite ends of the cell?"),
    ("Which network architecture lets every node act as both client and server without a central server, "
     "as in BitTorrent?", ["Client-server", "Peer-to-peer", "Star topology", "Mainframe"],
     "BitTorrent is an example of what kind of network design, in which each node is at once a client and a "
     "server and there is no central server?\nA) Client server\nB) Peer to peer\nC) Star topology\n"
     "D) Mainframe"),
    ("What legal doctrine allows a court to hold an employer liable for the wrongful acts an employee "
     "commits within the scope of employment?", ["Respondeat superior (vicarious liability)"],
     "Which doctrine lets courts make an employer answer for an employee's wrongdoing done on the job, "
     "within the scope of the employment? It is respondeat superior, a form of vicarious liability."),
    ("In the long run, a monopolistically competitive firm earns zero economic profit because of which "
     "factor?", ["Government price controls", "Free entry and exit of firms", "Perfectly inelastic demand",
                 "Economies of scale"],
     "Why does a firm in monopolistic competition end up with zero economic profit over the long term?\n"
     "A) Price controls set by the government\nB) Firms being able to enter and leave the market freely\n"
     "C) Demand that is perfectly inelastic\nD) Economies of scale"),
    ("Which license requires that modified versions of open-source software be distributed under the same "
     "license terms?", ["MIT License", "GNU General Public License", "Apache License 2.0", "BSD License"],
     "Which of these licences forces anyone who distributes a modified version of open source code to "
     "release it under the same terms?\nA. MIT License\nB. GNU General Public License\nC. Apache License "
     "2.0\nD. BSD License"),
    ("What is the name of the force that keeps an object moving in a circular path, directed toward the "
     "center of the circle?", ["Centripetal force"],
     "An object travelling around a circle needs a force pointed at the circle's centre to stay on that "
     "path; physicists call it the centripetal force."),
    ("Which non-steroidal anti-inflammatory drug irreversibly inhibits cyclooxygenase and is used at low "
     "doses to prevent heart attacks?", ["Ibuprofen", "Aspirin", "Naproxen", "Acetaminophen"],
     "Taken in low doses to head off heart attacks, which nonsteroidal anti-inflammatory medicine blocks "
     "cyclo-oxygenase irreversibly?"),
    ("What network security device monitors and filters incoming and outgoing traffic based on predefined "
     "security rules?", ["A firewall"],
     "A firewall is the piece of network security equipment that watches inbound and outbound traffic and "
     "filters it according to pre-defined security rules."),
    ("Which greenhouse gas has the greatest global warming potential per molecule among the following?",
     ["Carbon dioxide", "Methane", "Nitrous oxide", "Sulfur hexafluoride"],
     "Molecule for molecule, which of these greenhouse gases does the most to warm the planet?\n(A) CO2 "
     "(B) Methane (CH4) (C) Nitrous oxide (N2O) (D) Sulphur hexafluoride (SF6)"),
    ("During a trial, what is the questioning of a witness by the opposing party's attorney called?",
     ["Direct examination", "Cross-examination", "Redirect examination", "Voir dire"],
     "What is the term for when the lawyer for the other side questions a witness at trial?\nA) Direct "
     "examination\nB) Cross examination\nC) Redirect examination\nD) Voir dire"),
    ("Which organ produces insulin and releases it into the bloodstream to regulate blood glucose levels?",
     ["The pancreas"],
     "Insulin, the hormone that keeps glucose levels in the blood stream under control, is made and "
     "secreted by which organ? The pancreas."),
    ("A Type I error in hypothesis testing occurs when a researcher does which of the following?",
     ["Rejects a true null hypothesis", "Fails to reject a false null hypothesis", "Accepts the alternative "
      "hypothesis when it is true", "Uses too small a sample size"],
     "In a hypothesis test, what does a researcher do when making a Type 1 error?\nA) Rejects the null "
     "hypothesis even though it is true\nB) Fails to reject a null hypothesis that is false\nC) Accepts a "
     "true alternative hypothesis\nD) Works with a sample that is too small"),
    ("Which security measure requires users to provide two different kinds of evidence, such as a password "
     "and a one-time code, before logging in?", ["Single sign-on", "Two-factor authentication",
                                                 "Role-based access control", "Encryption at rest"],
     "What do you call the security method where a user must give two separate kinds of proof, for example "
     "a password plus a one time code, to log in?\nA. Single sign on\nB. Two factor authentication\n"
     "C. Role based access control\nD. Encryption at rest"),
    ("Which bacterium is the most common cause of peptic ulcers and can be treated with a combination of "
     "antibiotics and acid-reducing drugs?", ["Helicobacter pylori"],
     "The bacterium behind most peptic ulcers, which doctors treat by combining antibiotics with medication "
     "that reduces stomach acid, is Helicobacter pylori (H. pylori)."),
]

# A fourth held-out set: MMLU-style items whose question does not ask (a statement to complete, an
# instruction), as a good part of MMLU's are, each with a rewording as a chat model asked to rephrase
# it writes one: the stem turned into a question or kept a statement in other words, and the choices
# kept, reworded, reordered or dropped. Even positions were looked at while building the tier that
# reads them; odd ones were not.
MC_HELDOUT4 = [
    ("The longest bone in the human body is the", ["humerus", "femur", "tibia", "fibula"],
     "Which bone is the longest one in the human body?\nA) Tibia\nB) Humerus\nC) Femur\nD) Fibula"),
    ("The process by which plants lose water vapour through the stomata of their leaves is called",
     ["transpiration", "respiration", "guttation", "osmosis"],
     "What do we call the loss of water vapour from a plant through the small pores (stomata) on its "
     "leaves? Options: osmosis, guttation, transpiration, respiration."),
    ("In Keynesian economics, the multiplier effect refers to",
     ["the increase in final income arising from any new injection of spending",
      "the rise in prices caused by an increase in the money supply",
      "the tendency of savings to exceed investment",
      "the effect of taxes on labour supply"],
     "Within Keynesian theory, what does the term multiplier effect describe?\n(A) A rise in the price level "
     "brought about by a larger money supply\n(B) The growth in final income that results from a fresh "
     "injection of spending\n(C) Savings tending to outstrip investment\n(D) How taxation affects the "
     "supply of labour"),
    ("The part of the brain chiefly responsible for coordinating balance and fine motor movements is the",
     ["cerebellum", "medulla oblongata", "hypothalamus", "frontal lobe"],
     "Balance and the fine coordination of movement are mainly controlled by which part of the brain: "
     "the frontal lobe, the hypothalamus, the cerebellum, or the medulla oblongata?"),
    ("Find the number of edges in a complete graph with 10 vertices.", ["45", "90", "100", "55"],
     "How many edges does a complete graph on 10 vertices have?\nA. 90\nB. 45\nC. 55\nD. 100"),
    ("The treaty that formally ended the First World War between Germany and the Allied Powers was signed "
     "at", ["Versailles", "Utrecht", "Westphalia", "Brest-Litovsk"],
     "At which place was the peace treaty signed that officially brought the First World War to a close "
     "between Germany and the Allies?"),
    ("A contract entered into by a minor is generally considered",
     ["voidable at the option of the minor", "void from the outset", "fully enforceable against the minor",
      "illegal"],
     "Under general contract law, an agreement made by a minor is usually treated as:\nA) void from the "
     "start\nB) illegal\nC) voidable at the minor's option\nD) fully binding on the minor"),
    ("The main function of the mitochondria in a eukaryotic cell is to",
     ["produce ATP through cellular respiration", "synthesize proteins", "store genetic information",
      "package proteins for secretion"],
     "In eukaryotic cells, mitochondria mainly serve to produce ATP by way of cellular respiration, rather "
     "than to make proteins, hold the genetic information or package proteins for export."),
    ("In computer science, the time complexity of binary search on a sorted array of n elements is",
     ["O(log n)", "O(n)", "O(n log n)", "O(1)"],
     "What is the time complexity of running a binary search over a sorted array holding n elements?\n"
     "A) O(n)\nB) O(1)\nC) O(log n)\nD) O(n log n)"),
    ("The philosopher who argued that the unexamined life is not worth living was",
     ["Socrates", "Aristotle", "Epicurus", "Descartes"],
     "Which philosopher held that a life without examination is not worth living? (a) Aristotle (b) "
     "Descartes (c) Socrates (d) Epicurus"),
    ("Select the gas that makes up the largest share of the Earth's atmosphere by volume.",
     ["Nitrogen", "Oxygen", "Argon", "Carbon dioxide"],
     "By volume, which gas accounts for the biggest portion of Earth's atmosphere? Nitrogen, oxygen, argon "
     "or carbon dioxide?"),
    ("The hormone produced by the pancreas that raises blood glucose levels when they fall too low is",
     ["glucagon", "insulin", "cortisol", "adrenaline"],
     "When blood sugar drops too far, the pancreas releases a hormone that brings glucose levels back up. "
     "Which hormone is it?\n1. insulin\n2. cortisol\n3. glucagon\n4. adrenaline"),
    ("In accounting, the principle that expenses should be recorded in the same period as the revenues "
     "they help generate is known as the",
     ["matching principle", "going concern principle", "historical cost principle", "materiality principle"],
     "Which accounting principle says that expenses must be recognised in the same period as the revenue "
     "they helped to earn?"),
    ("The speed of sound in dry air at 20 degrees Celsius is approximately",
     ["343 m/s", "300 m/s", "1,500 m/s", "3,000 m/s"],
     "Roughly how fast does sound travel through dry air at a temperature of 20 degrees Celsius?\nA) "
     "1,500 m/s\nB) 343 m/s\nC) 3,000 m/s\nD) 300 m/s"),
    ("The economic system in which the means of production are privately owned and operated for profit "
     "is called", ["capitalism", "socialism", "feudalism", "mercantilism"],
     "What name is given to an economic system where the means of production are owned privately and run "
     "to make a profit?"),
    ("Identify the organelle in plant cells where photosynthesis takes place.",
     ["Chloroplast", "Mitochondrion", "Nucleus", "Vacuole"],
     "Photosynthesis in a plant cell happens inside which organelle?\nA. Nucleus\nB. Vacuole\nC. "
     "Chloroplast\nD. Mitochondrion"),
    ("The legal doctrine under which an employer is held liable for the wrongful acts of an employee "
     "committed within the scope of employment is",
     ["respondeat superior", "res ipsa loquitur", "caveat emptor", "habeas corpus"],
     "Which legal doctrine makes an employer answerable for wrongs an employee commits while acting within "
     "the scope of the job?\n(A) res ipsa loquitur (B) respondeat superior (C) habeas corpus (D) caveat "
     "emptor"),
    ("The first person to walk on the surface of the Moon was", ["Neil Armstrong", "Buzz Aldrin",
                                                                 "Yuri Gagarin", "John Glenn"],
     "Who became the first human to set foot on the Moon's surface?"),
    ("A sample of a radioactive isotope has a half-life of 8 days. The fraction of the sample remaining "
     "after 24 days is", ["1/8", "1/4", "1/3", "1/16"],
     "If a radioactive isotope's half-life is 8 days, what fraction of a sample of it will still be left "
     "after 24 days have passed?\nA) 1/4\nB) 1/16\nC) 1/8\nD) 1/3"),
    ("The novel One Hundred Years of Solitude was written by",
     ["Gabriel Garcia Marquez", "Jorge Luis Borges", "Mario Vargas Llosa", "Isabel Allende"],
     "Which author wrote the novel One Hundred Years of Solitude: Jorge Luis Borges, Isabel Allende, "
     "Gabriel Garcia Marquez or Mario Vargas Llosa?"),
]

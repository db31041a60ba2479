"""A word-problem eval item, a host paragraph and a rewrite of the item, shared by the contamination tests."""
# A word problem of several sentences, long enough that a fifth of it edited breaks every 13-gram.
STORY = ("Maria runs a small bakery on the corner of the old market square. Every morning she bakes "
         "forty loaves of rye bread and sixty sweet rolls before the doors open. On Saturdays her "
         "brother helps her carry the trays and she bakes twice as many rolls. The rye bread sells "
         "for a good price while the rolls go quickly to children walking to school. How many rolls "
         "does Maria bake over a week that has one Saturday in it?")
HOST = ("The council met on Tuesday to discuss the new bus timetable. Several residents asked for "
        "later evening services. The mayor promised a review before the summer holidays begin.")
_SWAPS = ["tiny", "at", "ancient", "plaza", "each", "day", "makes", "twoscore", "of", "wheat", "loaf", "sixty",
          "candy", "buns", "prior", "the", "door", "opens", "Saturday", "sibling", "assists", "in", "hauling",
          "platters", "he", "cooks", "double", "so", "many"]
# Every third word replaced: no 3-gram of the item survives, so neither n-grams nor the fuzzy tier's
# candidates see it; two words in three still align in place.
EVERY_THIRD = " ".join(_SWAPS[k // 3 % len(_SWAPS)] if k % 3 == 2 else w for k, w in enumerate(STORY.split(" ")))

# A word problem as an eval item of two fields: its question and its worked answer (about as long).
QUESTION = ("A lighthouse keeper on Gannet Island trims 14 wicks every evening and replaces 3 cracked "
            "lantern panes each month. The supply boat brings kerosene for 9 lamps on Tuesdays. How many "
            "wicks does the keeper trim during the 31 evenings of August?")
ANSWER = ("The keeper trims 14 wicks each evening, and August has 31 evenings, so he trims 14 * 31 = 434 "
          "wicks in August. The panes and the kerosene do not change the number of wicks trimmed that "
          "month, so they are left out of the sum.\n#### 434")
# The question restated by hand: other words and another order, the names and numbers kept.
QUESTION_RESTATED = ("Every evening at the Gannet Island lighthouse, 14 wicks get trimmed by the keeper. Monthly "
                     "he also swaps out 3 lantern panes that have cracked, and on Tuesdays a boat delivers "
                     "kerosene for 9 lamps. Over August's 31 evenings, what is the total count of wicks trimmed?")

# A Python function (an eval item) and its ports by hand: names in the target's convention, the
# docstring and its examples dropped, the loop rewritten.
PY_FUNC = '''def count_vowel_runs(sentence: str, min_length: int) -> int:
    """Count the runs of consecutive vowels in sentence at least min_length long.
    >>> count_vowel_runs("queueing aardvarks", 2)
    2
    """
    runs = 0
    current = 0
    for letter in sentence.lower() + "#":
        if letter in "aeiou":
            current += 1
        else:
            if current >= min_length:
                runs += 1
            current = 0
    return runs
'''
JS_PORT = '''I needed this in the browser, so here it is in JavaScript:

function countVowelRuns(sentence, minLength) {
  let runs = 0, current = 0;
  const text = sentence.toLowerCase() + "#";
  for (const letter of text) {
    if ("aeiou".includes(letter)) { current++; continue; }
    if (current >= minLength) runs++;
    current = 0;
  }
  return runs;
}

Works on node 18 as well.'''
# A clean JavaScript program: another function, with the same small literals and common words.
JS_CLEAN = '''function countWords(sentence, minLength) {
  let total = 0;
  for (const word of sentence.toLowerCase().split(" ")) {
    if (word.length >= minLength) { total++; }
  }
  return total;
}'''

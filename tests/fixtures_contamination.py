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

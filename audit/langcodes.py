"""One mapping of language names: model labels, recipe entries and ISO 639-3 + script tags.

A document's `language` is a short code: the ISO 639-1 code where the language has one ("zu"),
else its ISO 639-3 code ("war", "nso"), or the lid.176 label where lid.176 uses its own ("als",
Alemannic). `language_tag` is ISO 639-3 plus ISO 15924 script ("zul_Latn", "cmn_Hans"): the
language's usual script, because no identifier here reads the script separately. A recipe
(`languages.expected`, `languages.allowed`) may name a language by any of the three forms;
`normalize` turns each into the short code the columns, drift and the judge use.

The table below was generated once from `langcodes` (ISO 639 codes, likely scripts) over the
labels of lid.176, heliport and lingua, then corrected by hand where the likely script or the
code was wrong for what the models mean (zh is Mandarin, als is Alemannic as in Wikipedia).
"""
from __future__ import annotations

UNDETERMINED = "und"
# What `language_model` says when lid.176 decided (anything else: the second identifier did).
LID176_NAME = "lid.176"

# short code -> (ISO 639-3, ISO 15924 script)
LANGUAGES = {
    "ab": ("abk", "Cyrl"), "ace": ("ace", "Latn"), "adz": ("adz", "Latn"), "af": ("afr", "Latn"),
    "aii": ("aii", "Latn"), "als": ("gsw", "Latn"), "am": ("amh", "Ethi"), "ame": ("ame", "Latn"),
    "amr": ("amr", "Latn"), "an": ("arg", "Latn"), "ar": ("ara", "Arab"), "arl": ("arl", "Latn"),
    "arn": ("arn", "Latn"), "arz": ("arz", "Arab"), "as": ("asm", "Beng"), "ast": ("ast", "Latn"),
    "av": ("ava", "Cyrl"), "ayr": ("ayr", "Latn"), "az": ("aze", "Latn"), "azb": ("azb", "Arab"),
    "ba": ("bak", "Cyrl"), "bar": ("bar", "Latn"), "bcl": ("bcl", "Latn"), "be": ("bel", "Cyrl"),
    "bg": ("bul", "Cyrl"), "bh": ("bih", "Deva"), "bn": ("ben", "Beng"), "bo": ("bod", "Tibt"),
    "boa": ("boa", "Latn"), "bpy": ("bpy", "Beng"), "br": ("bre", "Latn"), "bs": ("bos", "Latn"),
    "bxr": ("bxr", "Cyrl"), "ca": ("cat", "Latn"), "cbk": ("cbk", "Latn"), "cbu": ("cbu", "Latn"),
    "cdo": ("cdo", "Hans"), "ce": ("che", "Cyrl"), "ceb": ("ceb", "Latn"), "chk": ("chk", "Latn"),
    "cho": ("cho", "Latn"), "chr": ("chr", "Cher"), "chy": ("chy", "Latn"), "ckb": ("ckb", "Arab"),
    "cnh": ("cnh", "Latn"), "co": ("cos", "Latn"), "cs": ("ces", "Latn"),
    "cv": ("chv", "Cyrl"), "cy": ("cym", "Latn"), "da": ("dan", "Latn"), "de": ("deu", "Latn"),
    "dik": ("dik", "Latn"), "diq": ("diq", "Latn"), "dsb": ("dsb", "Latn"), "dty": ("dty", "Deva"),
    "dv": ("div", "Thaa"), "ee": ("ewe", "Latn"), "el": ("ell", "Grek"), "eml": ("eml", "Latn"),
    "en": ("eng", "Latn"), "eo": ("epo", "Latn"), "es": ("spa", "Latn"), "et": ("est", "Latn"),
    "eu": ("eus", "Latn"), "ext": ("ext", "Latn"), "fa": ("fas", "Arab"), "fi": ("fin", "Latn"),
    "fj": ("fij", "Latn"), "fo": ("fao", "Latn"), "fon": ("fon", "Latn"), "fr": ("fra", "Latn"),
    "frr": ("frr", "Latn"), "fy": ("fry", "Latn"), "ga": ("gle", "Latn"), "gaz": ("gaz", "Latn"),
    "gd": ("gla", "Latn"), "gl": ("glg", "Latn"), "gn": ("grn", "Latn"), "gom": ("gom", "Deva"),
    "gu": ("guj", "Gujr"), "gv": ("glv", "Latn"), "he": ("heb", "Hebr"),
    "hi": ("hin", "Deva"), "hif": ("hif", "Latn"), "ho": ("hmo", "Latn"), "hr": ("hrv", "Latn"),
    "hsb": ("hsb", "Latn"), "ht": ("hat", "Latn"), "hu": ("hun", "Latn"), "hus": ("hus", "Latn"),
    "huu": ("huu", "Latn"), "hy": ("hye", "Armn"), "ia": ("ina", "Latn"), "id": ("ind", "Latn"),
    "ie": ("ile", "Latn"), "ig": ("ibo", "Latn"), "ilo": ("ilo", "Latn"), "io": ("ido", "Latn"),
    "is": ("isl", "Latn"), "it": ("ita", "Latn"), "iu": ("iku", "Cans"), "izh": ("izh", "Latn"),
    "ja": ("jpn", "Jpan"), "jbo": ("jbo", "Latn"), "jv": ("jav", "Latn"), "ka": ("kat", "Geor"),
    "kac": ("kac", "Latn"), "kbd": ("kbd", "Cyrl"), "kbp": ("kbp", "Latn"), "kca": ("kca", "Latn"),
    "kk": ("kaz", "Cyrl"), "kl": ("kal", "Latn"), "km": ("khm", "Khmr"), "kmr": ("kmr", "Latn"),
    "kn": ("kan", "Knda"), "knc": ("knc", "Latn"), "ko": ("kor", "Kore"), "koi": ("koi", "Cyrl"),
    "kpv": ("kpv", "Cyrl"), "krc": ("krc", "Cyrl"), "ksh": ("ksh", "Latn"), "ku": ("kmr", "Latn"),
    "kv": ("kom", "Cyrl"), "kw": ("cor", "Latn"), "ky": ("kir", "Cyrl"), "la": ("lat", "Latn"),
    "lb": ("ltz", "Latn"), "lez": ("lez", "Cyrl"), "lg": ("lug", "Latn"), "li": ("lim", "Latn"),
    "liv": ("liv", "Latn"), "lmo": ("lmo", "Latn"), "ln": ("lin", "Latn"), "lo": ("lao", "Laoo"),
    "lrc": ("lrc", "Arab"), "lt": ("lit", "Latn"), "lud": ("lud", "Latn"), "luo": ("luo", "Latn"),
    "lus": ("lus", "Latn"), "lv": ("lav", "Latn"), "mai": ("mai", "Deva"), "mcd": ("mcd", "Latn"),
    "mcf": ("mcf", "Latn"), "mdf": ("mdf", "Cyrl"), "mg": ("mlg", "Latn"), "mhr": ("mhr", "Cyrl"),
    "mi": ("mri", "Latn"), "min": ("min", "Latn"), "mk": ("mkd", "Cyrl"), "ml": ("mal", "Mlym"),
    "mn": ("mon", "Cyrl"), "mns": ("mns", "Latn"), "mr": ("mar", "Deva"), "mrj": ("mrj", "Cyrl"),
    "ms": ("msa", "Latn"), "mt": ("mlt", "Latn"), "mwl": ("mwl", "Latn"), "my": ("mya", "Mymr"),
    "myv": ("myv", "Cyrl"), "mzn": ("mzn", "Arab"), "nah": ("nah", "Latn"), "nap": ("nap", "Latn"),
    "nb": ("nob", "Latn"), "nds": ("nds", "Latn"), "ne": ("nep", "Deva"), "new": ("new", "Deva"),
    "nhn": ("nhn", "Latn"), "nio": ("nio", "Latn"), "nl": ("nld", "Latn"), "nn": ("nno", "Latn"),
    "no": ("nor", "Latn"), "nso": ("nso", "Latn"), "nus": ("nus", "Latn"), "nv": ("nav", "Latn"),
    "oc": ("oci", "Latn"), "olo": ("olo", "Latn"), "or": ("ori", "Orya"), "os": ("oss", "Cyrl"),
    "pa": ("pan", "Guru"), "pag": ("pag", "Latn"), "pam": ("pam", "Latn"), "pbt": ("pbt", "Arab"),
    "pfl": ("pfl", "Latn"), "pi": ("pli", "Latn"), "pl": ("pol", "Latn"),
    "pms": ("pms", "Latn"), "pnb": ("pnb", "Arab"), "pon": ("pon", "Latn"), "ps": ("pus", "Arab"),
    "pt": ("por", "Latn"), "qu": ("que", "Latn"), "rm": ("roh", "Latn"), "ro": ("ron", "Latn"),
    "ru": ("rus", "Cyrl"), "rue": ("rue", "Cyrl"), "sa": ("san", "Deva"), "sah": ("sah", "Cyrl"),
    "sat": ("sat", "Olck"), "sc": ("srd", "Latn"), "scn": ("scn", "Latn"), "sco": ("sco", "Latn"),
    "sd": ("snd", "Arab"), "se": ("sme", "Latn"), "sg": ("sag", "Latn"), "sgs": ("sgs", "Latn"),
    "sh": ("hbs", "Latn"), "shk": ("shk", "Latn"), "shn": ("shn", "Mymr"), "si": ("sin", "Sinh"),
    "sjd": ("sjd", "Latn"), "sjk": ("sjk", "Latn"), "sju": ("sju", "Latn"), "sk": ("slk", "Latn"),
    "sl": ("slv", "Latn"), "sma": ("sma", "Latn"), "smj": ("smj", "Latn"), "smn": ("smn", "Latn"),
    "sms": ("sms", "Latn"), "sn": ("sna", "Latn"), "so": ("som", "Latn"), "sq": ("sqi", "Latn"),
    "sr": ("srp", "Cyrl"), "st": ("sot", "Latn"), "su": ("sun", "Latn"), "sv": ("swe", "Latn"),
    "sw": ("swa", "Latn"), "ta": ("tam", "Taml"), "tca": ("tca", "Latn"), "te": ("tel", "Telu"),
    "tet": ("tet", "Latn"), "tg": ("tgk", "Cyrl"), "th": ("tha", "Thai"),
    "ti": ("tir", "Ethi"), "tk": ("tuk", "Latn"), "tl": ("tgl", "Latn"), "tn": ("tsn", "Latn"),
    "tr": ("tur", "Latn"), "ts": ("tso", "Latn"), "tt": ("tat", "Cyrl"), "tw": ("twi", "Latn"),
    "tyv": ("tyv", "Cyrl"), "tzh": ("tzh", "Latn"), "udm": ("udm", "Cyrl"), "ug": ("uig", "Arab"),
    "uk": ("ukr", "Cyrl"), "ur": ("urd", "Arab"), "ura": ("ura", "Latn"), "uz": ("uzb", "Latn"),
    "vec": ("vec", "Latn"), "vep": ("vep", "Latn"), "vi": ("vie", "Latn"),
    "vls": ("vls", "Latn"), "vo": ("vol", "Latn"), "vot": ("vot", "Latn"), "wa": ("wln", "Latn"),
    "war": ("war", "Latn"), "wuu": ("wuu", "Hans"), "xal": ("xal", "Cyrl"), "xh": ("xho", "Latn"),
    "xmf": ("xmf", "Geor"), "yi": ("yid", "Hebr"), "yo": ("yor", "Latn"), "yrk": ("yrk", "Latn"),
    "yue": ("yue", "Hant"), "zh": ("cmn", "Hans"), "zu": ("zul", "Latn"),
}

# The 176 labels of fastText lid.176 (all of them are short codes of LANGUAGES).
LID176 = frozenset("""
    af als am an ar arz as ast av az azb ba bar bcl be bg bh bn bo bpy br bs bxr ca cbk ce ceb ckb co cs
    cv cy da de diq dsb dty dv el eml en eo es et eu fa fi fr frr fy ga gd gl gn gom gu gv he hi hif hr
    hsb ht hu hy ia id ie ilo io is it ja jbo jv ka kk km kn ko krc ku kv kw ky la lb lez li lmo lo lrc
    lt lv mai mg mhr min mk ml mn mr mrj ms mt mwl my myv mzn nah nap nds ne new nl nn no oc or os pa
    pam pfl pl pms pnb ps pt qu rm ro ru rue sa sah sc scn sco sd sh si sk sl so sq sr su sv sw ta te tg
    th tk tl tr tt tyv ug uk ur uz vec vep vi vls vo wa war wuu xal xmf yi yo yue zh
""".split())

# Other three-letter codes that name a language of the table: individual languages of a macro
# language, and the labels heliport uses for them.
_ALIASES = {
    "cmn": "zh", "zho": "zh", "chi": "zh", "arb": "ar", "pes": "fa", "prs": "fa", "zsm": "ms", "swh": "sw",
    "ekk": "et", "lvs": "lv", "khk": "mn", "azj": "az", "uzn": "uz", "gsw": "als", "fil": "tl", "tgl": "tl",
    "hbs": "sh", "kur": "ku", "ckb": "ckb", "als": "als", "sqi": "sq", "alb": "sq", "plt": "mg", "npi": "ne",
    "ory": "or", "ydd": "yi", "gaz": "gaz", "pbt": "pbt", "quz": "qu", "nor": "no",
}

_BY_ISO3 = {iso3: code for code, (iso3, _) in sorted(LANGUAGES.items(), key=lambda kv: -len(kv[0]))}
_BY_ISO3.update(_ALIASES)


def language_code(label: str) -> str:
    """The short code of a model label (lid.176 label, ISO 639-1, or a heliport ISO 639-3 label).

    An unknown label is kept as it is (it is still a name, and nothing is lost).
    """
    if label in LANGUAGES or label == UNDETERMINED:
        return label
    # heliport writes varieties as a code plus a suffix ("msaind", "estvro"): the code decides.
    return _BY_ISO3.get(label, _BY_ISO3.get(label[:3], label)) if len(label) >= 3 else label


def language_tag(code: str | None) -> str | None:
    """ISO 639-3 + script of a short code ("zu" -> "zul_Latn"); "und" stays "und", None stays None."""
    if code is None or code == UNDETERMINED:
        return code
    entry = LANGUAGES.get(code)
    return f"{entry[0]}_{entry[1]}" if entry else f"{code}_Zyyy"


def normalize(name: str) -> str:
    """The short code a recipe entry names: "zu", "zul" or "zul_Latn" all give "zu".

    Raises ValueError for a name no table here knows.
    """
    raw = name.strip()
    lang, _, script = raw.replace("-", "_").partition("_")
    lang = lang.lower()
    if script and not (len(script) == 4 and script.isalpha()):
        raise ValueError(f"{name!r}: a tag is ISO 639-3 + '_' + a four-letter script, e.g. zul_Latn")
    if lang in LANGUAGES or lang == UNDETERMINED:
        return lang
    if lang in _BY_ISO3:
        return _BY_ISO3[lang]
    raise ValueError(f"{name!r} is not a language code known here (ISO 639-1, ISO 639-3 or a tag like zul_Latn)")

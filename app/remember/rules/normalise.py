"""Chat text made readable for the parser: emoji, shouting, elongations and chat spelling.

People write "heyy im tom, i live in cork", "WE ADOPTED A KITTEN 😻" or "gonna be there tmrw". The
tagger and parser are trained on edited text, so a user turn is rewritten before it is parsed:
emoji and other pictographs become sentence breaks where they end a thought, shouted runs go to
lower case, letters repeated three times or more are cut, and common chat spellings are expanded
("im" → "I'm", "gonna" → "going to", "fav" → "favourite"). A turn written all in lower case
keeps its words; `looks_lower_case` tells the builders to capitalise the names they find in it.

Sarcasm is not readable from the words alone; `is_sarcastic` recognises its common written
markers ("/s", "yeah right", "love that for me", a single shouted verb of liking), and a sentence
carrying one states nothing.
"""

import re

# Pictographs, dingbats, flags and their modifiers (emoji are never part of a fact).
EMOJI = re.compile(
    "[\U0001f000-\U0001faff\U00002600-\U000027bf\U0001f1e6-\U0001f1ff\u200d\ufe0f\u2b50\u2764]+"
)
EMOTICON = re.compile(r"(?:^|(?<=\s))(?:[:;=8][-']?[)(DPpOo/\\|]+|<3|xD|XD)(?=\s|$)")
ELONGATION = re.compile(r"([a-zA-Z])\1{2,}")
REPEATED_PUNCTUATION = re.compile(r"([!?.])\1+")
SHOUTED_WORD = re.compile(r"\b[A-Z][A-Z'’]*\b")
SHOUTED_RUN = re.compile(r"\b[A-Z][A-Z'’]*(?:\s+[A-Z][A-Z'’]*)+\b")
# Chat spellings → edited spelling (whole words, any case; "i" alone is handled apart).
CHAT_SPELLINGS = {
    "im": "I'm",
    "ive": "I've",
    "ill": None,
    "id": None,
    "dont": "don't",
    "doesnt": "doesn't",
    "didnt": "didn't",
    "cant": "can't",
    "wont": "won't",
    "isnt": "isn't",
    "wasnt": "wasn't",
    "havent": "haven't",
    "hasnt": "hasn't",
    "arent": "aren't",
    "thats": "that's",
    "theyre": "they're",
    "youre": "you're",
    "shes": "she's",
    "hes": "he's",
    "gonna": "going to",
    "wanna": "want to",
    "gotta": "have to",
    "kinda": "kind of",
    "u": "you",
    "ur": "your",
    "pls": "please",
    "plz": "please",
    "bc": "because",
    "cuz": "because",
    "coz": "because",
    "fav": "favourite",
    "fave": "favourite",
    "rn": "right now",
    "yrs": "years",
    "yr": "year",
    "bf": "boyfriend",
    "gf": "girlfriend",
    "hubby": "husband",
    "tmrw": "tomorrow",
    "tmr": "tomorrow",
    "2moro": "tomorrow",
    "w/": "with",
    "nothin": "nothing",
    "heyy": "hey",
    "hiya": "hi",
    "thx": "thanks",
    "ty": "thanks",
    "abt": "about",
    "bday": "birthday",
    "b-day": "birthday",
    "uni": "university",
    "mins": "minutes",
    "hrs": "hours",
}
CHAT_WORD = re.compile(
    r"(?<![\w'’/-])("
    + "|".join(re.escape(w) for w in CHAT_SPELLINGS if CHAT_SPELLINGS[w])
    + r")(?![\w'’-])",
    re.I,
)
LONE_I = re.compile(r"(?<![\w'’])i(?=(?:'|’|\s|$|[,.!?;:]))")
# The first letter of a sentence (chat often leaves it in lower case; the parser minds).
SENTENCE_START = re.compile(r"(?:^|(?<=[.!?]\s))[a-z]")
# "atm" is chat for "currently", which every stated fact already is.
NOW_WORDS = re.compile(r"\s+\b(?:atm|at the moment)\b", re.I)
# "fav band is Wet Leg": the "my" chat drops before a favourite.
DROPPED_MY = re.compile(r"(^|[.!?]\s+)(?:fav|fave|favou?rite)\s+", re.I)
# "I'm 41 — no wait, 42": the corrected number replaces the first.
CORRECTION = re.compile(
    r"\b\d{1,3}\s*(?:[-–—,.]\s*)*(?:no,?\s+wait|wait,?\s+no|sorry|I\s+mean|oops|no)[\s,.]+"
    r"(?:I'm\s+|it's\s+)?(?P<number>\d{1,3})\b",
    re.I,
)
# A short label before a colon opens many chat messages ("update: migrated off Heroku…", "Quick
# context: my wife…", "ok so about me: I'm Marek"); the label states nothing and hides the
# sentence's subject from the parser.
# A goal's label ("goal for next year: …") is kept: it says what follows is a goal.
LEAD_LABEL = re.compile(
    r"(^|[.!?]\s+)(?!(?:my\s+|our\s+)?(?:\w+\s+)?goals?\b)(?:(?:[A-Za-z]+\s+){0,2}[A-Za-z]+|"
    r"[A-Za-z][\w' ]{0,60}?(?=:\s+(?:I\b|I'|my\b|we\b|our\b)))[:]\s+",
    re.I,
)
# Interjections before a comma at the start of a sentence ("wait sorry, I'm 30 now"; "haha ok,
# …"): the parser takes "wait" for the main verb and loses the statement after it.
LEAD_INTERJECTION = re.compile(
    r"(^|[.!?]\s+)(?:(?:wait|sorry|oh|oops|ok|okay|well|anyway|yeah|yep|yes|haha|lol|right|"
    r"btw|actually|ah|um|hmm|so|sure|no)\b[\s,]*){1,3}?,\s+",
    re.I,
)
# "Flying to Tokyo on the 12th", "starting at the BBC in March": a plan told as a fragment, its
# "I'm" dropped. Only a gerund leading its sentence into a preposition, in a sentence with no
# "is"/"was" of its own ("Swimming in the sea is the best" is about swimming, not a plan).
GERUND_PLAN = re.compile(
    r"(^|[.!?]\s+)((?:just\s+|finally\s+|also\s+|now\s+)?"
    r"(?!(?:no|some|any|every)thing\b|(?:morning|evening|thing|spring|king|ring|wedding|meeting|"
    r"building|ceiling|sibling|string|pudding|darling|ping|wing|sing|bring|cling|sting|going)\b)"
    r"[A-Za-z]+ing\s+"
    r"(?:to|at|for|on|into|back|off|out|home|with)\b(?![^.!?]*\b(?:is|was|are|were)\b))",
    re.I,
)
# After an emoji, a gerund into a preposition starts a new thought: "GOT THE JOB 🎉 starting at …".
GERUND_AFTER_BREAK = re.compile(r"[a-z]+ing\s+(?:to|at|for|on|into|back|off|out|home|with)\b")
# "Name's Grace" (chat drops the "my").
NAME_FRAGMENT = re.compile(r"(^|[.!?,]\s+)name'?s\s+(?=[A-Za-z])", re.I)
# "me and Priya got engaged" → "Priya and I got engaged" (the parser finds the subject then).
ME_AND = re.compile(r"(^|[.!?]\s+)me\s+and\s+((?:my\s+)?[\w'-]+)\s+", re.I)
SARCASM = re.compile(
    r"(?:^|\s)/s\b|\byeah,?\s+(?:right|sure)\b|\blove\s+that\s+for\s+me\b|\bas\s+if\b"
    r"|\b(?:jk|just\s+kidding|not!)\b",
    re.I,
)
# A verb of liking shouted alone in a sentence that is otherwise in lower case: "I just LOVE …".
SHOUTED_LIKING = re.compile(r"\b(?:LOVE|LOVED|ADORE|ENJOY|LIKE)\b")


def looks_lower_case(text: str) -> bool:
    """True when the text has letters and not one capital (not even "I" or the first letter)."""
    return any(ch.isalpha() for ch in text) and not any(ch.isupper() for ch in text)


def is_sarcastic(sentence: str) -> bool:
    if SARCASM.search(sentence):
        return True
    shouted = SHOUTED_LIKING.search(sentence)
    return bool(shouted) and not _is_shouting(sentence)


def _is_shouting(text: str) -> bool:
    words = re.findall(r"[A-Za-z]{2,}", text)
    upper = [w for w in words if w.isupper()]
    return len(words) >= 2 and len(upper) >= 0.6 * len(words)


def _unshout(sentence: str) -> str:
    """Shouted text in lower case, its first letter and "I" capitalised again: a sentence in
    capitals, or a run of three shouted words or two with a long one ("WE ADOPTED A KITTEN";
    "AWS ECS" stays)."""
    if _is_shouting(sentence):
        lowered = SHOUTED_WORD.sub(lambda m: m[0].lower(), sentence)
    else:
        lowered = SHOUTED_RUN.sub(_lower_run, sentence)
    if lowered == sentence:
        return sentence
    start = len(lowered) - len(lowered.lstrip())
    return lowered[:start] + lowered[start : start + 1].upper() + lowered[start + 1 :]


def _lower_run(match: re.Match[str]) -> str:
    words = [w for w in match[0].split() if w != "I"]
    long_word = any(len(w) >= 4 for w in words)
    return match[0].lower() if len(words) >= 3 or (len(words) == 2 and long_word) else match[0]


def _chat_word(match: re.Match[str]) -> str:
    word = match[1]
    expanded = CHAT_SPELLINGS[word.lower()] or word
    return expanded[:1].upper() + expanded[1:] if word[:1].isupper() else expanded


def normalise(text: str) -> str:
    """The turn rewritten in edited spelling (see the module docstring); meaning unchanged."""
    text = EMOJI.sub(lambda m: _emoji_break(text, m), text)
    text = EMOTICON.sub(" ", text)
    text = REPEATED_PUNCTUATION.sub(r"\1", text)
    text = ELONGATION.sub(lambda m: m[1] * (2 if m[1].lower() in "eo" else 1), text)
    text = "".join(_unshout(part) for part in re.split(r"(?<=[.!?\n])", text))
    text = CHAT_WORD.sub(_chat_word, text)
    text = LONE_I.sub("I", text)
    text = CORRECTION.sub(lambda m: m["number"], text)
    text = NOW_WORDS.sub("", text)
    text = DROPPED_MY.sub(lambda m: f"{m[1]}my favourite ", text)
    text = LEAD_INTERJECTION.sub(lambda m: m[1], text)
    text = LEAD_LABEL.sub(lambda m: m[1], text)
    text = GERUND_PLAN.sub(lambda m: f"{m[1]}I'm {m[2][:1].lower()}{m[2][1:]}", text)
    text = NAME_FRAGMENT.sub(lambda m: f"{m[1]}My name is ", text)
    text = ME_AND.sub(lambda m: f"{m[1]}{m[2][:1].upper()}{m[2][1:]} and I ", text)
    text = SENTENCE_START.sub(lambda m: m[0].upper(), text)
    text = re.sub(r"\s+([.!?,])", r"\1", text)
    text = re.sub(r"([.!?])(?:\s*[.!?])+", r"\1", text)
    return re.sub(r"[ \t]+", " ", text).strip()


def _emoji_break(text: str, match: re.Match[str]) -> str:
    """An emoji between two stretches of words breaks them: a sentence ends before a capital
    ("GOT THE JOB 🎉 Starting …"), a phrase before lower case ("A KITTEN 😻 a tabby …")."""
    before, after = text[: match.start()].rstrip(), text[match.end() :].lstrip()
    if not (before and after and before[-1].isalnum() and after[:1].isalpha()):
        return " "
    return ". " if after[:1].isupper() or GERUND_AFTER_BREAK.match(after) else ", "

"""The first-person patterns the rules match a clause against, and the word lists that refine
them. Each pattern is `fullmatch`ed against a prepared clause; its named groups hold the value.
"""

import re
from collections.abc import Iterable

from app import lexicon as lex
from app.lexicon import word_set
from app.remember.rules.dates import WEEKDAYS

AM = r"(?:'m|\s+am)"
NOW = r"(?:(?:currently|still|now|also)\s+)?"
INTENSIFIERS = (
    r"(?:(?:really|truly|absolutely|totally|just|also|still|do|definitely|genuinely|actually|"
    r"especially|so|particularly|simply|seriously)\s+)*"
)


def alternation(*groups: Iterable[str]) -> str:
    """A regex alternation of the words and phrases, longest first (so "guinea pig" is tried
    before "pig"), each escaped; whitespace inside a phrase matches any run of spaces."""
    words = sorted({w for group in groups for w in group}, key=lambda w: (-len(w), w))
    return "|".join(r"\s+".join(re.escape(part) for part in w.split()) for w in words)


RELATIONS = alternation(lex.RELATIONS, lex.RELATION_PHRASES)
PETS = alternation(lex.PETS, lex.PET_PHRASES)
OCCUPATIONS = alternation(lex.OCCUPATIONS, lex.OCCUPATION_PHRASES)
WEEKDAY_NAMES = "|".join(WEEKDAYS)
FREQUENCY = (
    rf"(?:every|each)\s+(?:single\s+)?(?:day|morning|afternoon|evening|night|week|weekend|month|"
    rf"year|summer|winter|spring|fall|autumn|{WEEKDAY_NAMES})|on\s+(?:weekends|weekdays|"
    rf"(?:{WEEKDAY_NAMES})s)|daily|weekly|(?:once|twice|three times)\s+a\s+(?:day|week|month|year)"
)
EVENT_NOUNS = (
    r"appointment|meeting|interview|exam|test|flight|trip|surgery|operation|presentation|"
    r"deadline|date|party|concert|game|match|race|recital|wedding|conference|class|lesson|"
    r"check-?up|show|performance|tournament|competition|marathon|audition"
)

NAME_IS = re.compile(r"my\s+name(?:\s+is|'s)\s+(?P<value>.+)", re.I)
CALL_ME = re.compile(r"(?:you\s+can\s+|please\s+)?call\s+me\s+(?P<value>.+)", re.I)
NAME_INTRO = re.compile(
    r"I(?:'m|\s+am)\s+(?P<value>[A-Za-z][\w'-]*)"
    r"(?P<role>,?\s+(?:your|an?)\s+(?:[\w-]+\s+){0,2}assistant)?",
    re.I,
)
ASSISTANT_NAMED = re.compile(
    r"I(?:'m|\s+am)\s+(?:an?|your)\s+(?:[\w-]+\s+){0,3}?assistant\s+(?:named|called)\s+(?P<value>.+)",
    re.I,
)
AGE = re.compile(rf"I{AM}\s+(?P<value>\d{{1,3}})(?:\s+years?\s+old|\s+y/?o)?", re.I)
TURNED = re.compile(r"I\s+(?:just\s+)?turned\s+(?P<value>\d{1,3})", re.I)
FAVORITE = re.compile(
    r"my\s+(?:all[- ]time\s+|absolute\s+|very\s+)?favou?rite\s+(?P<thing>[a-z]+(?:\s+[a-z]+){0,2}?)"
    r"(?:\s+(?:now|currently|these\s+days|nowadays|of\s+all\s+time|ever))?"
    r"\s+(?:is|are|has\s+to\s+be)\s+(?P<value>.+)",
    re.I,
)
FAVORITE_INVERTED = re.compile(
    r"(?P<value>[\w'&.-]+(?:\s+[\w'&.-]+){0,5}?)\s+(?:is|are)\s+my\s+"
    r"(?:all[- ]time\s+|absolute\s+)?favou?rite\s+(?P<thing>[a-z]+(?:\s+[a-z]+){0,2})",
    re.I,
)
# "my birthday is on …", "it's my 40th on the 2nd of August", "it's my birthday on Friday".
BIRTHDAY = re.compile(
    r"my\s+birthday\s+is|it(?:'s|\s+is)\s+my\s+(?:\d{1,3}(?:st|nd|rd|th)(?:\s+birthday)?|birthday)",
    re.I,
)
BORN = re.compile(r"I\s+was\s+born", re.I)
BORN_IN = re.compile(r"I\s+was\s+born\s+(?:and\s+raised\s+)?in\s+(?P<value>.+)", re.I)
MY_ATTRIBUTE = re.compile(
    r"my\s+(?P<attr>job|occupation|profession|hometown|nationality|major)\s+is\s+(?P<value>.+)",
    re.I,
)
RELATION_NAMED = re.compile(
    rf"my\s+(?P<rel>{RELATIONS}|{PETS})(?:'s\s+name\s+is|\s+is\s+(?:called|named))\s+(?P<value>.+)",
    re.I,
)
SPOUSE_IS = re.compile(
    r"my\s+(?P<rel>wife|husband|partner|girlfriend|boyfriend|fianc[eé]e?)\s+is\s+(?P<value>.+)",
    re.I,
)
STATUS = re.compile(
    rf"I{AM}\s+(?:(?:happily|recently|now|newly)\s+)?"
    r"(?P<value>married|single|engaged|divorced|widowed|separated)(?:\s+to\s+(?P<partner>.+))?",
    re.I,
)
GOT_STATUS = re.compile(
    r"I\s+(?:(?:just|finally|recently)\s+)?got\s+(?P<value>married|engaged|divorced)"
    r"(?:\s+to\s+(?P<partner>.+))?",
    re.I,
)
DIET = re.compile(
    rf"I{AM}\s+(?:an?\s+)?(?:(?:strict|full|lifelong)\s+)?"
    r"(?P<value>vegetarian|vegan|pescatarian|pescetarian)",
    re.I,
)
# What may follow a short statement in chat: fillers, or a clause of its own after a conjunction.
TRAILING = (
    r"(?:\s+(?:too|as\s+well|fwiw|tbh|btw|lol|haha|now))*"
    r"(?:(?:\s+(?:so|and|but|which|because|though|since)|,|\s+-)\b.*)?"
)
CONDITION = re.compile(
    rf"I{AM}\s+(?:(?:also|severely|very)\s+)?(?P<value>lactose[- ]intolerant|gluten[- ]intolerant|"
    r"diabetic|celiac|coeliac|asthmatic|colou?r[- ]blind|epileptic|autistic|dyslexic)"
    rf"{TRAILING}",
    re.I,
)
# "I have coeliac disease", "I've got type 1 diabetes", "I was diagnosed with ADHD".
HAVE_CONDITION = re.compile(
    r"I\s*(?:'ve|\s+have)?\s+(?:(?:also|actually|just|recently)\s+)?"
    r"(?:have|got|been\s+diagnosed\s+with|was\s+diagnosed\s+with|live\s+with)\s+"
    r"(?P<value>(?:type[- ]?[12]\s+)?(?:(?!so\b|and\b|but\b)[\w'-]+\s+){0,2}?"
    r"(?:diabetes|asthma|adhd|autism|arthritis|migraines|epilepsy|eczema|ibs|crohn's|"
    r"psoriasis|endometriosis|anxiety|depression|tinnitus|[\w'-]+\s+(?:disease|syndrome|disorder)))"
    rf"{TRAILING}",
    re.I,
)
ALLERGIC = re.compile(
    rf"I{AM}\s+(?:(?:severely|very|deathly|really|super|highly)\s+)?allergic\s+to\s+(?P<value>.+)",
    re.I,
)
ALLERGY = re.compile(
    r"I\s+have\s+(?:an?\s+)?(?:(?:severe|bad|mild)\s+)?(?P<value>[a-z]+(?:\s+[a-z]+)?)\s+allerg(?:y|ies)",
    re.I,
)
WORK_AT = re.compile(
    rf"I(?:\s+{NOW}work|{AM}\s+{NOW}working)\s+(?P<prep>at|for)\s+(?P<value>.+)", re.I
)
JOB = re.compile(
    rf"I{AM}\s+{NOW}(?P<article>an?)\s+(?P<value>(?:[\w-]+\s+){{0,3}}?(?:{OCCUPATIONS}))"
    r"(?P<rest>\s+(?:at|for|in)\s+.+)?",
    re.I,
)
LIVE_IN = re.compile(rf"I(?:\s+{NOW}(?:live|reside)|{AM}\s+{NOW}living)\s+in\s+(?P<value>.+)", re.I)
MOVED = re.compile(
    r"I\s+(?:(?:just|recently|finally|also|then)\s+)?(?:moved|relocated)\s+(?:back\s+)?to\s+"
    r"(?P<value>.+)",
    re.I,
)
FROM = re.compile(
    rf"I(?:{AM}\s+(?:originally\s+)?from|\s+(?:originally\s+)?come\s+from)\s+(?P<value>.+)", re.I
)
LIKE = re.compile(
    rf"I\s+{INTENSIFIERS}(?P<verb>like|love|enjoy|adore|prefer|hate|dislike|detest|loathe|"
    r"can't\s+stand|cannot\s+stand)\s+(?P<value>.+)",
    re.I,
)
FAN = re.compile(
    rf"I{AM}\s+{INTENSIFIERS}(?P<phrase>(?:an?\s+)?(?:(?:huge|big|massive|great|long-?time)\s+)?"
    r"(?:fan|lover)\s+of|into|passionate\s+about|obsessed\s+with|crazy\s+about)\s+(?P<value>.+)",
    re.I,
)
GOING_TO = re.compile(rf"I{AM}\s+(?:going\s+to|gonna)\s+(?P<rest>.+)", re.I)
PLANNING = re.compile(rf"I(?:{AM}\s+planning|\s+plan|\s+intend)\s+to\s+(?P<rest>.+)", re.I)
WILL = re.compile(r"I(?:'ll|\s+will)\s+(?P<rest>.+)", re.I)
PROGRESSIVE = re.compile(rf"I{AM}\s+(?P<verb>[a-z]+ing)(?P<rest>(?:\s+.+)?)", re.I)
APPOINTMENT = re.compile(
    r"I\s+(?:have|'ve\s+got|have\s+got)\s+(?P<rest>(?:an?|my|another)\s+.+)", re.I
)
HABIT_ADVERB = re.compile(
    r"I\s+(?P<adv>usually|always|often|normally|typically|regularly|generally|frequently)\s+"
    r"(?P<verb>[a-z]+)(?P<rest>(?:\s+.+)?)",
    re.I,
)
HABIT_FREQUENCY = re.compile(
    rf"(?:(?P<lead>{FREQUENCY}),?\s+)?I\s+(?P<verb>[a-z]+)\s+(?P<rest>.+)", re.I
)
EVENT_ADVERBS = r"(?:(?:just|finally|also|actually|recently|first|even|then)\s+)?"
EVENT = re.compile(rf"I\s+{EVENT_ADVERBS}(?P<verb>[a-z]+)(?P<rest>(?:\s+.+)?)", re.I)
# "My mom and I made dinner last night" → "User and User's mom made dinner on …".
COMPOUND_EVENT = re.compile(
    r"(?P<who>(?:my|some|a\s+few|a\s+couple\s+of|two|three)\s+[\w' -]{1,40}?)\s+and\s+I\s+"
    rf"{EVENT_ADVERBS}(?P<verb>[a-z]+)(?P<rest>(?:\s+.+)?)",
    re.I,
)
FREQUENCY_RE = re.compile(rf"\b(?:{FREQUENCY})\b", re.I)
EVENT_NOUN_END = re.compile(rf"\b(?:{EVENT_NOUNS})s?$", re.I)
# Past-tense verbs that report thoughts or speech rather than something that happened.
NON_EVENT_VERBS = word_set(
    "said told asked thought felt wondered guessed meant forgot heard knew wanted wished hoped "
    "realized realised noticed figured mentioned decided used supposed"
)
# Progressive forms that describe a state, not an arrangement ("I'm feeling better tomorrow").
STATE_VERBS = word_set("feeling doing thinking hoping wondering trying looking getting")
NEGATIVE_LIKES = word_set("hate dislike detest loathe")
# "I love the colors!": a reaction to something shared in the conversation, not a preference.
REACTION = re.compile(
    r"^the\b.*\b(?:idea|thought|way|looks?|colou?rs?|vibes?|design|pic|photo|picture|one|part|"
    r"sound|name|message|energy|feeling|details?|theme|concept|story|style|atmosphere|view|shot|"
    r"pattern|work|result|progress|tech|effort|song|video|movie|book|outfit|painting|pics|photos)\b",
    re.I,
)
COGNITIVE_INFINITIVES = re.compile(r"^to\s+(?:think|believe|imagine|say|know|hear|see)\b", re.I)
SPOUSES = frozenset({"wife", "husband"})
PARTNERS = re.compile(r"partner|girlfriend|boyfriend|fianc[eé]e?", re.I)
ATTRIBUTE_SLOTS = {"job": "job_title", "occupation": "job_title", "profession": "job_title"}

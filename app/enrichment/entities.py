"""Named entities and a one-line summary for a memory, without an LLM.

Entities come from four kinds of evidence about a name, strongest first:
1. CUE: context in the text ("met with Sarah", "using Docker", "Redis vs Memcached",
   "job at Farfetch", "project called X", "the `billing-sync` service");
2. SHAPE: the name itself (a "Foundation" or "Inc" suffix, a "Con" or "Marathon" event, a
   well-known tool from KNOWN_TOOLS, a camel-cased or dotted name such as FastAPI or Fly.io);
3. NER: spaCy's label, which the small model often gets wrong in kind (Docker as a person,
   Shopify as a place), so any cue or shape outranks it;
4. WEAK: hints used only when nothing else speaks ("via X", "Pedro and Ana" next to a PERSON).
Each name keeps the category of its strongest evidence, once per text, and evidence about part
of a name ("Sarah" in "Sarah Chen") counts for the whole. Every candidate must pass
`is_valid_entity`: AutoMem's regexes produced mostly word-pair noise (its issue #181), so here a
cue only proposes a name and the filter decides.

The labelled set and the scores are in tests/enrichment/entity_cases.py and
bench/entity_extraction.py.
"""

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from spacy.tokens import Doc, Span

from app.nlp import load_nlp

ENTITY_CATEGORIES = ("people", "organizations", "places", "tools", "projects", "concepts")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


PRONOUNS = _words(
    "i i'm i've i'll i'd me my mine we us our ours you your yours he him his she her hers "
    "they them their theirs "
    "it its this that these those who whom whose what which someone somebody everyone everybody "
    "anyone anybody nobody none nothing something everything anything"
)
STOPWORDS = _words(
    "a an the and or but if so as at by for from in into of on onto to with without about "
    "after before over under via per is are was were be been am do does did have has had will "
    "would can could should may might must not no yes ok okay also just only very too then there "
    "here now when where why how all any some each every both other another such same"
)
# Chat openers and sign-offs that sentence-initial capitals make look like names.
CHAT_WORDS = _words(
    "hey hi hiya hello bye thanks thank thx ty yeah yea yep yes yup nope nah no ok okay wow whoa "
    "oh ah aw aww oof woah yo dang bummer uh um hmm ugh lol haha hehe omg yay woohoo phew sure "
    "cool great awesome "
    "amazing wonderful lovely sweet nice glad perfect sounds congrats congratulations cheers "
    "please sorry oops honestly basically anyway btw fyi also plus besides maybe well right "
    "alright gotcha "
    "totally absolutely definitely exactly agreed indeed wanna gonna gotta lemme kinda sorta ya "
    "note notes todo reminder decision update incident fix meeting summary agenda action"
)
GENERIC_NOUNS = _words(
    "user users customer customers client clients team teams company project projects app apps "
    "service server database code repo bug issue task ticket meeting call plan idea thing stuff "
    "new old first last next man dude bro people person guy guys folks everyone mom dad mother "
    "father grandma grandpa sister brother wife husband partner boss manager doctor dentist "
    "intern friend family kids baby "
    "today tomorrow yesterday tonight morning afternoon evening week weekend month year"
)
# Tech words that NER tags as organisations but that name no particular thing.
GENERIC_ACRONYMS = _words(
    "api apis sdk cli ui ux qa ci cd pr prs mr url uri http https rest json csv xml yaml html css "
    "sql db os cpu gpu ram ssd vpn dns ssh ssl tls pdf okr okrs kpi kpis eta asap eod fyi todo "
    "id ids ai ml llm faq tbd wip am pm usd eur gb mb"
)
CALENDAR_WORDS = _words(
    "monday tuesday wednesday thursday friday saturday sunday january february march april may "
    "june july august september october november december spring summer autumn fall winter "
    "mon tue tues wed thu thur thurs fri sat sun jan feb mar apr jun jul aug sep sept oct nov dec"
)
HONORIFICS = ("Dr", "Mr", "Mrs", "Ms", "Mx", "Prof", "Aunt", "Auntie", "Uncle", "Sir", "Coach")
ORG_SUFFIXES = _words(
    "inc corp corporation ltd llc plc gmbh co company foundation university college institute "
    "labs bank group partners ventures capital holdings"
)
PLACE_SUFFIXES = _words(
    "hotel park museum airport station bridge square street avenue road beach lake river "
    "mountains gardens zoo stadium arena mall market cafe café"
)
EVENT_SUFFIXES = (
    "Con", "Conf", "Conference", "Summit", "Festival", "Fest", "Expo", "Cup", "Olympics",
    "Marathon", "Championship", "Championships", "Hackathon", "Awards", "Tour",
)  # fmt: skip
DETERMINERS = "the a an my our your his her their this that these those"

# Well-known software, services and devices. spaCy's small model rarely knows them (Docker is a
# PERSON to it), and a memory service for agents hears about tools constantly. Matched in any case.
KNOWN_TOOLS = _words(
    """
    python javascript typescript kotlin scala haskell erlang clojure golang php perl lua c++ c#
    zsh powershell matlab fortran cobol
    django fastapi laravel node.js nodejs next.js nextjs vue.js nuxt sveltekit jquery numpy scipy
    pytorch tensorflow keras scikit-learn sklearn langchain llamaindex spacy pydantic sqlalchemy
    pytest webpack vite eslint ruff mypy pip npm pnpm gradle
    postgres postgresql mysql mariadb sqlite mongodb redis memcached dynamodb elasticsearch
    opensearch clickhouse bigquery neo4j falkordb qdrant weaviate milvus pgvector supabase
    firebase rabbitmq
    docker kubernetes k8s kubectl ansible circleci argocd grafana datadog splunk nginx traefik
    git github gitlab bitbucket heroku vercel netlify cloudflare aws gcp ubuntu debian centos
    linux macos ios ipados android
    vim neovim nvim emacs vscode intellij pycharm webstorm xcode jupyter
    jira trello figma whatsapp gmail dropbox airtable zapier chatgpt midjourney ollama tailscale
    wireguard metabase dbt hadoop 1password bitwarden evernote todoist photoshop lightroom
    powerpoint iphone ipad macbook imac airpods playstation ps5 xbox arduino
    """
) | frozenset(
    (
        "github actions", "gitlab ci", "travis ci", "vs code", "visual studio", "sublime text",
        "google docs", "google sheets", "google drive", "google calendar", "apple notes",
        "raspberry pi", "nintendo switch", "macbook pro", "macbook air", "apple watch",
        "stable diffusion", "power bi", "spring boot", "ruby on rails", "arch linux",
    )
)  # fmt: skip
# Tool names that are also words or names ("in jest", "Franz Kafka", "a home assistant"): only
# capitalised and not at the start of a sentence, and only as strong as an NER label.
AMBIGUOUS_TOOLS = _words(
    """
    Go Rust Swift Java Ruby Elixir Bash React Angular Svelte Tailwind Rails Express Spark Flask
    Celery Pandas Jest Prettier Cypress Playwright Selenium Maven Homebrew Kafka Cassandra Helm
    Terraform Prometheus Sentry Vagrant Azure Fedora Jenkins Render Linear Notion Confluence
    Asana Miro Discord Postman Tableau Looker Airflow Copilot Slack Cursor Zoom Excel Chrome
    Firefox Safari Obsidian Kindle Pinecone Snowflake Lambda Windows Outlook Signal Telegram
    Teams Alexa
    """
) | {"Home Assistant", "New Relic"}

NER_CATEGORIES = {
    "PERSON": "people",
    "ORG": "organizations",
    "GPE": "places",
    "LOC": "places",
    "FAC": "places",
    "PRODUCT": "tools",
    "EVENT": "concepts",
    "WORK_OF_ART": "concepts",
    "LAW": "concepts",
    "LANGUAGE": "concepts",
    "NORP": "concepts",
}

MAX_WORDS = 6
MAX_CHARS = 60


@dataclass(frozen=True)
class Entity:
    name: str
    category: str
    slug: str


def slugify(name: str) -> str:
    """Lowercase ASCII words joined by hyphens: "São Paulo" → "sao-paulo", "C++" → "c-plus-plus"."""
    spelled = name.replace("+", " plus ").replace("#", " sharp ")
    ascii_name = unicodedata.normalize("NFKD", spelled).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")


# --- cleaning and the quality filter -------------------------------------------------------

_EDGE_JUNK = re.compile(r"^[\s\"'“”‘’`(\[{<.,;:!?*_-]+|[\s\"'“”‘’`)\]}>.,;:!?*_-]+$")
_POSSESSIVE = re.compile(r"['’]s?$")
_LEADING_DETERMINER = re.compile(rf"^(?:{DETERMINERS.replace(' ', '|')})\s+", re.IGNORECASE)
_LEADING_CHAT = re.compile(rf"^(?:{'|'.join(CHAT_WORDS)})\b[,.!]*\s+(?=\S)", re.IGNORECASE)
_LEADING_HONORIFIC = re.compile(rf"^(?:{'|'.join(HONORIFICS)})\.?\s+")
_LEADING_PROJECT = re.compile(r"^project\s+", re.IGNORECASE)
_TRAILING_VERSION = re.compile(r"\s+v?\d+(?:\.\d+)+$|\s+v\d+$")
_NUMBER_OR_DATE = re.compile(r"^[\d\s.,:/%$€£+-]+(?:st|nd|rd|th|am|pm|s|k|m)?$", re.IGNORECASE)
_SHORT_CODE = re.compile(r"^[A-Z]{1,2}\d{1,2}$")  # Q3, H1, P0, V2
_CODE_CHARS = re.compile(r"[()\[\]{}<>=|\\;]")
_NOT_A_PERSON = re.compile(r"\d|[a-z]\.\w")  # R2D2, x.Bar (but J.K. Rowling)


def clean_name(name: str) -> str:
    """Drops what is not part of a name: quotes, "the", titles, "Project", "'s", a version."""
    previous = None
    while name != previous:
        previous = name
        name = _EDGE_JUNK.sub("", name)
        name = _POSSESSIVE.sub("", name)
        name = _LEADING_DETERMINER.sub("", name)
        name = _LEADING_CHAT.sub("", name)
        name = _LEADING_HONORIFIC.sub("", name)
        name = _LEADING_PROJECT.sub("", name)
        name = _TRAILING_VERSION.sub("", name)
    return " ".join(name.split())


# Quoted titles keep their article ("The Hobbit"); "the" is stripped from every other name.
_BAD_FIRST_WORDS = CHAT_WORDS | PRONOUNS | (STOPWORDS - {"the", "a", "an"})
_BAD_LAST_WORDS = PRONOUNS | STOPWORDS  # "JOHN AT" from "MEETING WITH JOHN AT 3PM"


def is_valid_entity(name: str, category: str) -> bool:
    """Whether a cleaned name is worth remembering as an entity of `category`."""
    if category not in ENTITY_CATEGORIES or not _plausible_shape(name):
        return False
    words = [_plain_word(word) for word in name.split()]
    if words[0] in _BAD_FIRST_WORDS or words[-1] in _BAD_LAST_WORDS:
        return False
    if words[-1].removesuffix("s") in CALENDAR_WORDS:  # "Tues", "Last Fri", "Wednesdays"
        return False
    if len(words) == 1 and _is_common_word(words[0]):
        return False
    return category != "people" or not _NOT_A_PERSON.search(name)


def _plain_word(word: str) -> str:
    """Lowercase, straight apostrophes, and no stretched letters ("Awww" → "aww")."""
    return re.sub(r"(\w)\1{2,}", r"\1\1", word.lower().replace("’", "'"))


def _plausible_shape(name: str) -> bool:
    if len(name) < 2 or len(name) > MAX_CHARS or len(name.split()) > MAX_WORDS:
        return False
    alnum = sum(ch.isalnum() for ch in name)
    if alnum < 2 or alnum < len(name.replace(" ", "")) / 2 or _CODE_CHARS.search(name):
        return False
    return not (_NUMBER_OR_DATE.match(name) or _SHORT_CODE.match(name))


def _is_common_word(word: str) -> bool:
    common = (PRONOUNS, STOPWORDS, CHAT_WORDS, GENERIC_NOUNS, GENERIC_ACRONYMS)
    return any(word in words for words in common)


def _shape_category(name: str) -> str | None:
    """A category the name itself implies, if any."""
    words = name.split()
    last = words[-1].lower().rstrip(".")
    if last in ORG_SUFFIXES or words[0] in ("University", "Bank"):
        return "organizations"
    if last in PLACE_SUFFIXES and len(words) > 1:
        return "places"
    if words[-1].endswith(EVENT_SUFFIXES) and len(words[-1]) > 3:
        return "concepts"
    if {name.lower(), *name.lower().split()} & KNOWN_TOOLS or any(map(_looks_technical, words)):
        return "tools"
    return None


_CAMEL_CASE = re.compile(r"^[A-Za-z]+[a-z][A-Z]\w*$|^[A-Z]{2,}[a-z]{2,}\w*$")
_TECH_DOMAIN = re.compile(r"^[A-Z][\w-]*\.(?:js|io|ai|dev|sh|app|so)$")  # not "main.js"
_NAME_PREFIX = re.compile(r"^(?:Mc|Mac|De|Di|Da|La|Le|Van|Von|O')[A-Z]")  # McKenzie, DeShawn


def _looks_technical(word: str) -> bool:
    """PostgreSQL, GitHub, iPhone, FastAPI, Node.js: shapes that are products, not people."""
    if _NAME_PREFIX.match(word):
        return False
    return bool(_CAMEL_CASE.match(word) or _TECH_DOMAIN.match(word))


# --- evidence --------------------------------------------------------------------------------

CUE, SHAPE, NER, WEAK = 3, 2, 1, 0  # evidence strength: the strongest decides a name's category


@dataclass(frozen=True)
class Candidate:
    name: str
    category: str
    strength: int
    start: int  # where the raw name sits in the text
    end: int


_WORD = r"[A-Z](?:[\w+#&-]|['’.](?=\w))*"
_TITLE = rf"(?:(?:{'|'.join(HONORIFICS)})\.?\s+)?"
_PARTICLE = r"(?:(?:of|de|da|del|di|du|van|von|der|la|le)\s+|d['’])"  # University of X, d'Orsay
_NAME = rf"(?<![\w'’.@/-]){_TITLE}{_WORD}(?:\s+{_PARTICLE}?{_WORD}){{0,4}}"
_NAMES = rf"{_NAME}(?:\s*,\s*{_NAME})*(?:,?\s+(?:and|&)\s+{_NAME})?"
_NAMES_GROUP = rf"(?P<names>{_NAMES})"
_QUOTED = r"[\"“](?P<quoted>[^\"”\n]{2,60})[\"”]"  # double quotes: "Charlotte's Web"
_ROLES = (
    "sister|brother|wife|husband|partner|girlfriend|boyfriend|son|daughter|mom|mum|mother|dad|"
    "father|cousin|aunt|uncle|niece|nephew|friend|buddy|boss|manager|colleague|coworker|"
    "co-worker|teammate|intern|mentor|neighbou?r|landlord|landlady|roommate|flatmate|host|"
    "dentist|doctor|therapist|teacher|tutor|coach|lawyer|accountant|recruiter|cofounder|assistant"
)


_ROLE = rf"(?i:\b(?:my|our|the|his|her|their)\s+(?:\w+\s+)?(?:{_ROLES}))"
# A name right after a preposition or article is not the subject of the verb that follows it.
_NOT_AN_OBJECT = "".join(
    rf"(?<!\b{word} )" for word in ("in", "at", "to", "of", "from", "for", "on", "with", "the")
)


@dataclass(frozen=True)
class Cue:
    """A pattern whose named groups (`name`, `names` or `quoted`) hold entity names."""

    pattern: re.Pattern[str]
    category: str
    strength: int = CUE
    propn_only: bool = False  # only names the tagger calls proper nouns ("Lately," is not)


def _cue(pattern: str, category: str, strength: int = CUE, propn_only: bool = False) -> Cue:
    return Cue(re.compile(pattern), category, strength, propn_only)


CUES = (
    # people
    _cue(
        r"(?i:\b(?:met|meeting|talked|talking|spoke|speaking|chatted|chatting|caught up|"
        r"catching up|lunch|dinner|coffee|drinks|call|sync|1:1)\s+(?:with|to))\s+" + _NAMES_GROUP,
        "people",
    ),
    _cue(
        r"(?i:\b(?:thanks|thank you|thx|hey|hi|hello|bye|dear|congrats|congratulations|ask|asked|"
        r"pinged?)),?\s+" + _NAMES_GROUP,
        "people",
    ),
    # Vocatives: "Wow Caroline, ...", "That's awesome, Gina!"
    _cue(
        rf"(?i:\b(?:wow|aww+|yay|oh|morning|night|welcome))\s+(?P<name>{_NAME})\b(?!['’])", "people"
    ),
    # After a lowercase word only: "Lisbon, Portugal!" is not a vocative.
    _cue(rf"(?<![\w'’])[a-z'’]+,\s+(?P<name>{_WORD})\s*[!?]", "people"),
    _cue(
        rf"(?:^|(?<=[.!?]\s))(?P<name>{_WORD}),\s+(?i:thanks?|thank you|you|your|did|do|are|"
        r"can|could|would|let's|since|glad|sorry|congrats)\b",
        "people",
        propn_only=True,
    ),
    _cue(rf"\b(?:{'|'.join(HONORIFICS)})\.?\s+(?P<name>{_NAME})", "people"),
    _cue(_ROLE + r"\s*,?\s+" + _NAMES_GROUP, "people"),
    _cue(_ROLE + r",\s+(?P<name>[a-z]{2,}),", "people"),  # "the new intern, tom, starts"
    _cue(
        _NOT_AN_OBJECT
        + _NAMES_GROUP
        + rf"(?:\s+(?:at|from|of)\s+{_NAME})?\s+(?:(?:already|just|also|still|then|"
        r"finally)\s+)?(?:said|says|told|tells|"
        r"asked|asks|thinks|thought|wants|wanted|suggested|recommended|mentioned|agreed|promised|"
        r"reviewed|approved|prefers|preferred|owns|loves|hates)\b",
        "people",
    ),
    _cue(
        rf"(?P<name>{_NAME})['’]s\s+(?:birthday|wedding|house|place|apartment|party|mom|dad|wife|"
        r"husband|partner|kids|son|daughter|sister|brother|family|boss|team)\b",
        "people",
    ),
    _cue(
        r"(?i:\b(?:fixed|reviewed|written|approved|reported|suggested|recommended|organi[sz]ed|"
        r"hosted|signed)\s+by)\s+" + _NAMES_GROUP,
        "people",
    ),
    _cue(
        r"(?i:\b(?:assigned|assign|handed|hand|delegated|delegate|forwarded|forward)\s+"
        r"(?:it\s+|this\s+|that\s+)?(?:off\s+|over\s+)?to|cc|cc'd)\s+" + _NAMES_GROUP,
        "people",
    ),
    _cue(rf"(?P<name>{_NAME})\s+and I\b(?!['’])", "people"),
    _cue(rf"(?P<name>{_NAME})\s+and\s+(?:his|her|their)\s+(?:\w+\s+)?(?:{_ROLES})\b", "people"),
    _cue(
        r"(?i:\b(?:met|meeting|talked|talking|spoke|speaking|chatted|chatting)\s+(?:with|to))\s+"
        r"(?P<name>[a-z]{2,})\b",
        "people",
        propn_only=True,
    ),
    # tools
    _cue(
        r"(?i:\b(?:use|uses|used|using|install|installs|installed|installing|"
        r"(?:tried|trying|try|tested|testing)(?:\s+out)?|switched to|switching to|switch to|"
        r"migrated to|migrating to|sticking with|"
        r"stick with|upgraded|upgrading|downgraded|set up|setting up|configured|built with|"
        r"powered by|runs on|running on)(?:\s+(?:from|to))?)\s+" + _NAMES_GROUP,
        "tools",
    ),
    _cue(r"(?i:\bvia)\s+" + _NAMES_GROUP, "tools", WEAK),
    _cue(
        r"(?i:\b(?:ditched|ditching|dropped|dropping|replaced|replacing|swapped|swapping))\s+"
        rf"(?P<name>{_NAME})\s+(?i:for|with)\s+(?P<other>{_NAME})",
        "tools",
    ),
    _cue(
        r"(?i:\b(?:switched|switching|migrated|migrating|upgraded|upgrading|ported)\b"
        r"[^.;!?\n]{0,40}?\bfrom)\s+"
        rf"(?P<name>{_NAME})\s+(?i:to)\s+(?P<other>{_NAME})",
        "tools",
    ),
    _cue(rf"(?P<name>{_NAME})\s+(?i:vs\.?|versus|instead of)\s+(?P<other>{_NAME})", "tools"),
    _cue(
        r"(?i:\b(?:prefer|prefers|preferred|chose|choose|chosen|picked|pick|went with|go with))\s+"
        rf"(?P<name>{_NAME})\s+(?i:over|instead of)\s+(?P<other>{_NAME})",
        "tools",
    ),
    _cue(
        rf"(?P<name>{_NAME})\s+(?i:cluster|clusters|dashboards?|integration|upgrade|outage|"
        r"plugins?|extensions?|instances?|containers?|pipelines?|workflows?|config|deployment|"
        r"sdk|cli|library|package|docs|workspace|channel|repo|server|servers|database|bot|"
        r"notebook|scripts?|recording|link|template)\b",
        "tools",
    ),
    _cue(
        _NAMES_GROUP + r"\s+(?i:is|was|went|keeps|kept)\s+(?:still\s+|totally\s+|completely\s+)?"
        r"(?i:down|broken|crashing|crashed|failing|flaky|timing out|acting up|lagging)\b",
        "tools",
    ),
    _cue(
        r"(?i:\b(?:written|wrote|write|writing|coded|coding|rewrote|rewriting|rewritten|"
        rf"implemented)\b[^.;!?\n]{{0,40}}?\bin)\s+(?P<name>{_NAME})",
        "tools",
    ),
    # organizations
    _cue(
        r"(?i:\b(?:work|works|worked|working|job|jobs|interview|interviews|interviewed|"
        r"interviewing|hired|employed|intern|internship|offer|engineer|developer|designer|"
        r"manager|founder|cofounder|ceo|cto|vp|team|everyone|folks|people|friends?)\s+at)\s+"
        + _NAMES_GROUP,
        "organizations",
    ),
    _cue(
        r"(?i:\b(?:work|works|worked|working|contracting|consulting)\s+for)\s+" + _NAMES_GROUP,
        "organizations",
    ),
    _cue(
        _NAMES_GROUP + r"\s+(?:(?:both|just|finally|also)\s+)?(?i:acquired|acquires|raised|raises|"
        r"laid off|lays off|went public|shut down|launched|launches)\b",
        "organizations",
    ),
    _cue(
        r"(?i:\b(?:acquired|acquire|acquiring|acquisition of))\s+" + _NAMES_GROUP, "organizations"
    ),
    _cue(
        r"(?i:\b(?:invoice|bill|receipt|refund|charge|offer|package|delivery|order|statement|"
        r"newsletter|recruiter)\s+from)\s+" + _NAMES_GROUP,
        "organizations",
    ),
    _cue(
        r"(?i:\b(?:contract|deal|partnership|agreement)\s+with)\s+" + _NAMES_GROUP, "organizations"
    ),
    # places
    _cue(
        r"(?i:\b(?:moved|moving|relocated|relocating|lives?|lived|living|based|born|grew up|"
        r"flew|flying|flight|flights|trip|travel(?:l?ed|l?ing)?|visit(?:ed|ing)?|vacation|"
        r"holiday|honeymoon|landed|arrived|arriving|hiking|camping|skiing|staying|stayed)(?:\s+(?:to|in|from|into|through|around))?)"
        r"\s+(?:the\s+)?" + _NAMES_GROUP,
        "places",
    ),
    # projects
    _cue(
        r"`(?P<name>[A-Za-z0-9][\w.-]*)`\s+(?i:repo|repository|project|service|package|library|"
        r"app|job|module|crate|gem|plugin|codebase|monorepo|microservice|worker|tool)\b",
        "projects",
    ),
    _cue(
        r"(?i:\b(?:repo|repository|project|service|package|library|codebase))\s+"
        r"`(?P<name>[A-Za-z0-9][\w.-]*)`",
        "projects",
    ),
    _cue(
        r"(?i:\b(?:project|repo|repository|codebase|app|service|library|package|product|startup)"
        rf"\s+(?:called|named|titled|codenamed))\s+(?:{_QUOTED}|(?P<name>{_NAME}))",
        "projects",
    ),
    _cue(rf"\bProject\s+(?:{_QUOTED}|(?P<name>{_NAME}))", "projects"),
    _cue(rf"(?i:\bproject)\s*(?::\s*(?P<name>[\w-]+)|\s+{_QUOTED})", "projects"),
    # concepts: quoted titles of things read, watched or heard
    _cue(
        r"(?i:\b(?:read|reading|reread|finished|loved|love|enjoyed|watched|watching|watch|saw|seen|"
        r"see|listened to|"
        r"listening to|book|film|movie|show|series|podcast|album|song|novel|paper|article))\s+"
        + _QUOTED,
        "concepts",
    ),
)


def _cue_candidates(doc: Doc) -> Iterator[Candidate]:
    text = doc.text  # rebuilt from the tokens on every access
    for cue in CUES:
        for match in cue.pattern.finditer(text):
            for group, value in match.groupdict().items():
                if value is None:
                    continue
                names = _split_names(value) if group == "names" else [value]
                for name in names:
                    start = match.start(group) + value.find(name)
                    if _cue_applies(cue, doc, name, start):
                        # A quoted title keeps its article: "The Pragmatic Programmer".
                        cleaned = name.strip() if group == "quoted" else clean_name(name)
                        end = start + len(name)
                        yield Candidate(cleaned, cue.category, cue.strength, start, end)


def _split_names(names: str) -> list[str]:
    return re.split(r"\s*,\s*|,?\s+(?:and|&)\s+", names)


def _cue_applies(cue: Cue, doc: Doc, name: str, start: int) -> bool:
    # "tried Sarah's lasagna" is about Sarah, not a tool called Sarah.
    if cue.category != "people" and re.search(r"['’]s$", name):
        return False
    if cue.propn_only:
        span = doc.char_span(start, start + len(name))
        return span is not None and span[0].pos_ == "PROPN"
    return True


def _ner_candidates(doc: Doc) -> Iterator[Candidate]:
    for ent in doc.ents:
        span = _trimmed(ent)
        category = _ner_category(span, ent.label_)
        if category is None or not _looks_like_a_name(span, ent.label_):
            continue
        name, start, end = clean_name(span.text), span.start_char, span.end_char
        yield Candidate(name, category, NER, start, end)
        if name and (implied := _shape_category(name)):
            yield Candidate(name, implied, SHAPE, start, end)


_KNOWN_TOOL = re.compile(
    rf"(?<![\w.@/-])(?i:{'|'.join(map(re.escape, sorted(KNOWN_TOOLS, key=len, reverse=True)))})"
    rf"(?![\w+#-]|\.\w)(?:\s+{_WORD})?"
)
_AMBIGUOUS_TOOL = re.compile(
    rf"(?<![\w.@/-])(?:{'|'.join(AMBIGUOUS_TOOLS)})(?![\w+#-]|\.\w)(?:\s+{_WORD})?"
)
_TECHNICAL_WORD = re.compile(r"(?<![\w.@/-])[A-Za-z][\w.-]*[\w]")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n\s*|[\"“(]\s*)$")


def _tool_candidates(doc: Doc) -> Iterator[Candidate]:
    """Known tool names and tech-shaped words, wherever they occur."""
    text = doc.text
    for match in _KNOWN_TOOL.finditer(text):
        name = _without_common_tail(match.group())
        yield Candidate(name, "tools", SHAPE, match.start(), match.start() + len(name))
    for match in _AMBIGUOUS_TOOL.finditer(text):
        if not _SENTENCE_START.search(text[: match.start()]):
            # Only as strong as NER: "Ruby" tagged PERSON stays a person (a tie goes to people).
            name = _without_common_tail(match.group())
            yield Candidate(name, "tools", NER, match.start(), match.start() + len(name))
    for match in _TECHNICAL_WORD.finditer(text):
        if _looks_technical(word := match.group()):
            category = _shape_category(word) or "tools"  # PyCon is an event
            yield Candidate(word, category, SHAPE, match.start(), match.end())


def _without_common_tail(name: str) -> str:
    """ "Notion AI" stays whole, "Python I" (as in "in Python I wrote") loses the "I"."""
    head, _, tail = name.rpartition(" ")
    filler = (PRONOUNS, STOPWORDS, CHAT_WORDS, CALENDAR_WORDS)
    return head if head and any(tail.lower() in words for words in filler) else name


_JOINERS = frozenset(("to", "from", "and", "or", "vs", "versus"))


def _looks_like_a_name(span: Span, label: str) -> bool:
    """Names are capitalised proper nouns; NER also tags "Glad", "kinda" and "Pottery"."""
    if not any(ch.isupper() for ch in span.text):
        return False
    if any(token.lower_ in _JOINERS for token in span[1:-1]):
        return False  # two names run together: "MySQL to PostgreSQL", "Solr to Typesense"
    return label in ("NORP", "LANGUAGE") or any(token.pos_ == "PROPN" for token in span)


def _conjunct_candidates(doc: Doc) -> Iterator[Candidate]:
    """An untagged name joined by "and" to a tagged one is likely the same kind: "Pedro and Ana"."""
    for ent in doc.ents:
        category = _ner_category(ent, ent.label_)
        if category is None or not _looks_like_a_name(ent, ent.label_):
            continue
        for joiner, step in ((ent.end, 1), (ent.start - 1, -1)):
            if not (0 <= joiner < len(doc) and doc[joiner].lower_ in ("and", "&")):
                continue
            if span := _untagged_name(doc, joiner + step, step):
                name = clean_name(span.text)
                yield Candidate(name, category, WEAK, span.start_char, span.end_char)


def _untagged_name(doc: Doc, i: int, step: int) -> Span | None:
    """The run of capitalised, untagged proper nouns from token `i` going in direction `step`."""
    j = i
    while 0 <= j < len(doc) and doc[j].pos_ == "PROPN" and doc[j].is_title and not doc[j].ent_type:
        j += step
    if j == i:
        return None
    return doc[i:j] if step > 0 else doc[j + 1 : i + 1]


def _ner_category(span: Span, label: str) -> str | None:
    """The label's category, corrected where the words around the span contradict it."""
    doc = span.doc
    before = doc[span.start - 1] if span.start > 0 else None
    if label == "PERSON" and before is not None and before.lower_ == "the" and _is_head(span):
        return "places"  # "the Louvre was packed": people don't take an article
    if label in ("GPE", "LOC") and _indefinite_before(span):
        return "tools"  # "a new Kindle": places don't take "a"
    if label == "NORP":
        return _norp_category(span, before.lower_ if before is not None else "")
    return NER_CATEGORIES.get(label)


def _is_head(span: Span) -> bool:
    """Not a modifier of a following noun ("the Lex Fridman podcast")."""
    return span.end == len(span.doc) or span.doc[span.end].pos_ not in ("NOUN", "PROPN")


def _indefinite_before(span: Span) -> bool:
    i = span.start - 1
    while i >= 0 and span.doc[i].pos_ == "ADJ":
        i -= 1
    return i >= 0 and span.doc[i].lower_ in ("a", "an")


def _norp_category(span: Span, before: str) -> str | None:
    if not span.text[:1].isupper():
        return None  # nationalities are capitalised; "ryokan" is not one
    if before in ("at", "for", "from", "with"):
        return "organizations"  # "everyone at Atlassian"
    after = span.doc[span.end] if span.end < len(span.doc) else None
    if after is not None and after.pos_ in ("NOUN", "PROPN"):
        return "concepts"  # adjectival use: "a Thai place"
    return "concepts" if span.text.endswith("s") else None


_EDGE_POS = _words("VERB AUX ADP DET PRON INTJ CCONJ SCONJ PART PUNCT ADV SPACE")


def _trimmed(ent: Span) -> Span:
    """The span without edge words NER sometimes swallows: "Going to PyCon" → "PyCon"."""
    start, end = ent.start, ent.end
    while end - start > 1 and ent.doc[start].pos_ in _EDGE_POS:
        start += 1
    while end - start > 1 and ent.doc[end - 1].pos_ in _EDGE_POS:
        end -= 1
    return ent.doc[start:end]


def _resolve(candidates: list[Candidate]) -> list[Entity]:
    """One entity per name, in order of first mention, with its strongest evidence's category."""
    valid = [c for c in candidates if is_valid_entity(c.name, c.category) and slugify(c.name)]
    best: dict[str, Candidate] = {}
    for candidate in sorted(_widened(valid), key=lambda c: c.start):
        slug = slugify(candidate.name)
        current = best.get(slug)
        if current is None:
            best[slug] = candidate
        elif _outranks(candidate, current):
            best[slug] = replace(candidate, start=current.start)
    ordered = sorted(best.items(), key=lambda item: item[1].start)
    return [Entity(c.name, c.category, slug) for slug, c in ordered]


def _widened(candidates: list[Candidate]) -> list[Candidate]:
    """Context about part of a longer name counts for the longer name ("Sarah" in "Sarah Chen"),
    but a word's shape does not: "Swift" is a tool, "Taylor Swift" is not."""
    widened = []
    for candidate in candidates:
        container = _container(candidate, candidates)
        if container is candidate or candidate.strength != SHAPE:
            widened.append(replace(candidate, name=container.name))
    return widened


def _container(candidate: Candidate, candidates: list[Candidate]) -> Candidate:
    containers = [
        other
        for other in candidates
        if other.start <= candidate.start
        and candidate.end <= other.end
        and other.end - other.start > candidate.end - candidate.start
    ]
    return max(containers, key=lambda c: c.end - c.start, default=candidate)


_TIE_ORDER = {"people": 0, "tools": 1}  # then every other category, first mention first


def _outranks(new: Candidate, old: Candidate) -> bool:
    if new.strength != old.strength:
        return new.strength > old.strength
    # A name that is both a person and a tool is a person (AutoMem's rule, as "with X" is
    # ambiguous); a known tool name beats NER's usual guesses of place or organisation.
    return _TIE_ORDER.get(new.category, 2) < _TIE_ORDER.get(old.category, 2)


def extract_entities(doc_or_text: Doc | str) -> list[Entity]:
    """The entities a text mentions, once each, in order of first mention."""
    doc = doc_or_text if isinstance(doc_or_text, Doc) else load_nlp()(doc_or_text)
    candidates = [
        *_cue_candidates(doc),
        *_ner_candidates(doc),
        *_tool_candidates(doc),
        *_conjunct_candidates(doc),
    ]
    return _resolve(candidates)


def extract_many(texts: Sequence[str], batch_size: int = 64) -> list[list[Entity]]:
    """`extract_entities` for many texts, batched through spaCy (CPU-bound: call in a thread)."""
    nlp = load_nlp()
    return [extract_entities(doc) for doc in nlp.pipe(texts, batch_size=batch_size)]


# --- summary ---------------------------------------------------------------------------------

_BLOCK_BREAK = re.compile(r"\n\s*\n|\n(?=\s*(?:[-*•#>]|\d+[.)])\s)")
_MARKUP_PREFIX = re.compile(r"^(?:[-*•#>]+|\d+[.)])\s+")
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s|$)")
_ABBREVIATIONS = _words("dr mr mrs ms mx st prof jr sr vs etc e.g i.e approx no fig")


def summarize(content: str, max_chars: int = 240) -> str:
    """The first sentence, cut on a word boundary with "…" if longer than `max_chars`."""
    sentence = _first_sentence(content)
    if len(sentence) <= max_chars:
        return sentence
    cut = sentence[: max_chars - 1]
    if not sentence[max_chars - 1].isspace() and " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:-–—") + "…"


def _first_sentence(content: str) -> str:
    block = _BLOCK_BREAK.split(content.strip(), maxsplit=1)[0]
    text = _MARKUP_PREFIX.sub("", " ".join(block.split()))
    for end in _SENTENCE_END.finditer(text):
        if not _ends_abbreviation(text, end):
            return text[: end.end()]
    return text


def _ends_abbreviation(text: str, end: re.Match[str]) -> bool:
    if end.group() != ".":
        return False
    before = text[: end.start()].rsplit(maxsplit=1)
    word = before[-1] if before else ""
    return word.lower() in _ABBREVIATIONS or (len(word) == 1 and word.isupper())

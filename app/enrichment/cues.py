"""Evidence for entities, and the context cues that supply the strongest kind of it.

A `Candidate` is a name found in a text with a category and the strength of its evidence (`CUE`,
`SHAPE`, `NER`, `WEAK`). `CUES` are the context patterns ("met with Sarah", "using Docker",
"job at Farfetch", "project called X") whose named groups hold the names they propose.
"""

import re
from dataclasses import dataclass

from app.enrichment.wordlists import HONORIFICS

CUE, SHAPE, NER, WEAK = 3, 2, 1, 0  # evidence strength: the strongest decides a name's category


@dataclass(frozen=True)
class Candidate:
    name: str
    category: str
    strength: int
    start: int  # where the raw name sits in the text
    end: int


WORD = r"[A-Z](?:[\w+#&-]|['’.](?=\w))*"
_TITLE = rf"(?:(?:{'|'.join(HONORIFICS)})\.?\s+)?"
_PARTICLE = r"(?:(?:of|de|da|del|di|du|van|von|der|la|le)\s+|d['’])"  # University of X, d'Orsay
_NAME = rf"(?<![\w'’.@/-]){_TITLE}{WORD}(?:\s+{_PARTICLE}?{WORD}){{0,4}}"
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
    _cue(rf"(?<![\w'’])[a-z'’]+,\s+(?P<name>{WORD})\s*[!?]", "people"),
    _cue(
        rf"(?:^|(?<=[.!?]\s))(?P<name>{WORD}),\s+(?i:thanks?|thank you|you|your|did|do|are|"
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

import pytest

from app.classify import Classification, ClassificationStats, classify_by_patterns
from app.classify.patterns import pattern_confidence
from app.models import MemoryType as T

# The example of each type in seed 001's type table.
SEED_TYPE_EXAMPLES = [
    ("Chose PostgreSQL over MongoDB for ACID compliance", T.DECISION),
    ("Usually write integration tests before deploying", T.PATTERN),
    ("Prefer async/await over callbacks for clarity", T.PREFERENCE),
    ("Write commit messages in imperative mood", T.STYLE),
    ("Run pytest every morning before starting work", T.HABIT),
    ("Realized embedding batching reduces costs by 40%", T.INSIGHT),
    ("During database migration sprint in Q3 2024", T.CONTEXT),
]

# One sentence per pattern in seed 001's pattern table, each matching that pattern only.
SEED_PATTERN_EXAMPLES = [
    ("We decided to drop the cache", T.DECISION),
    ("Chose Redis over Memcached", T.DECISION),
    ("Going with the smaller instance", T.DECISION),
    ("Opted for a monorepo", T.DECISION),
    ("She usually reviews pull requests first", T.PATTERN),
    ("Builds typically take ten minutes", T.PATTERN),
    ("I tend to over-engineer things", T.PATTERN),
    ("Deploys often break the staging site", T.PATTERN),
    ("He consistently ships on time", T.PATTERN),
    ("I prefer dark mode", T.PREFERENCE),
    ("I like vim better than emacs", T.PREFERENCE),
    ("Her favorite language is Rust", T.PREFERENCE),
    ("Tabs rather than spaces", T.PREFERENCE),
    ("He wrote the summary in a terse style", T.STYLE),
    ("We communicated through Slack", T.STYLE),
    ("Dates are formatted as ISO 8601", T.STYLE),
    ("I always run the linter", T.HABIT),
    ("Every time I deploy, I tag the release", T.HABIT),
    ("Backups run daily", T.HABIT),
    ("Metrics review is weekly", T.HABIT),
    ("Coffee then email is my morning routine", T.HABIT),
    ("Realized the cache was stale", T.INSIGHT),
    ("Discovered a memory leak in the parser", T.INSIGHT),
    ("Learned that retries need jitter", T.INSIGHT),
    ("Figured out why the build was slow", T.INSIGHT),
    ("During the outage the logs were lost", T.CONTEXT),
    ("While working on the parser refactor", T.CONTEXT),
    ("In the context of the Q3 launch", T.CONTEXT),
    ("When the database was down", T.CONTEXT),
]

FACT_EXAMPLES = [
    ("Alice lives in Berlin", 0.6),
    ("Acme is headquartered in Austin", 0.6),
    ("Bob works at Acme as an engineer", 0.6),
    ("I was born on 3 May 1990", 0.6),  # a Fact, though it has a date
    ("My dog's name is Rex", 0.8),
    ("My name is Priya", 0.8),
]

EVENT_EXAMPLES = [
    ("The outage happened in the night", 0.6),
    ("We visited Lisbon", 0.6),
    ("Went to the dentist yesterday", 0.8),
    ("The release shipped on 2024-05-03, the demo is next week", 0.8),
    ("Team meeting on Tuesday at 10am", 0.9),
    ("Flight tomorrow at 9:30", 0.9),
    ("When we went to Paris", 0.6),  # an Event: it comes before Context's "when"
]


@pytest.mark.parametrize(("content", "memory_type"), SEED_TYPE_EXAMPLES + SEED_PATTERN_EXAMPLES)
def test_seed_examples(content, memory_type):
    assert classify_by_patterns(content) == Classification(memory_type, 0.6, "pattern")


@pytest.mark.parametrize(("content", "confidence"), FACT_EXAMPLES)
def test_facts(content, confidence):
    assert classify_by_patterns(content) == Classification(T.FACT, confidence, "pattern")


@pytest.mark.parametrize(("content", "confidence"), EVENT_EXAMPLES)
def test_events(content, confidence):
    assert classify_by_patterns(content) == Classification(T.EVENT, confidence, "pattern")


@pytest.mark.parametrize(
    ("content", "confidence"),
    [
        ("We decided to rewrite it", 0.6),
        ("We decided to rewrite it and chose Rust over Go", 0.8),
        ("We decided to rewrite it, chose Rust over Go, opted for tokio", 0.9),
        ("We decided to rewrite it, chose Rust over Go, opted for tokio, going with axum", 0.95),
        ("Decided to, chose Rust over Go, opted for, going with, will use, settled on", 0.95),
    ],
)
def test_confidence_grows_with_matching_patterns(content, confidence):
    assert classify_by_patterns(content) == Classification(T.DECISION, confidence, "pattern")


def test_confidence_rule():
    assert [pattern_confidence(n) for n in range(1, 7)] == [0.6, 0.8, 0.9, 0.95, 0.95, 0.95]


def test_always_use_is_a_preference_not_a_habit():
    assert classify_by_patterns("I always use black") == Classification(
        T.PREFERENCE, 0.6, "pattern"
    )
    assert classify_by_patterns("I always run black") == Classification(T.HABIT, 0.6, "pattern")
    assert classify_by_patterns("I always used black") == Classification(T.HABIT, 0.6, "pattern")


def test_the_first_type_in_order_wins():
    # Pattern ("usually") comes before Habit ("daily") and Context ("when").
    result = classify_by_patterns("When on call I usually check the dashboards daily")
    assert result == Classification(T.PATTERN, 0.6, "pattern")
    # Preference comes before Fact: "my favorite ... is" is a Preference.
    assert classify_by_patterns("My favorite editor is Vim").type == T.PREFERENCE


def test_ignores_case():
    assert classify_by_patterns("WE DECIDED TO SHIP") == Classification(T.DECISION, 0.6, "pattern")


@pytest.mark.parametrize(
    "content", ["", "Rust has a borrow checker", "The sky is blue", "enduring calm"]
)
def test_no_match(content):
    assert classify_by_patterns(content) is None


def test_counts_pattern_classifications():
    stats = ClassificationStats()

    classify_by_patterns("I prefer tea", stats=stats)
    classify_by_patterns("Rust has a borrow checker", stats=stats)

    assert stats.pattern_classifications == 1
    assert stats.llm_attempts == stats.fallbacks == 0

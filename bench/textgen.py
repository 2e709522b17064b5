"""Deterministic generator of realistic, varied memories and recall queries for benchmarks.

Each user gets a persona (name, circle of contacts with fixed relations, projects); memories
come from ~40 templates × vocabularies (preferences, people, places, projects, events with
dates, decisions, habits, technical notes, health, money, work), each with tags, importance
and a timestamp spread over ~3 years. Every memory also carries one paraphrase-style question
that targets it, so a benchmark can report a hit rate as a sanity check (not a quality score).

Same seed, same output: `memories(personas(10, seed=7), 100_000, seed=7)` is reproducible.

Usage: .venv/bin/python bench/textgen.py [--memories N] [--users N] [--seed N] [--show N]
"""

import argparse
import random
import string
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

END = datetime(2025, 9, 30, 18, 0, tzinfo=UTC)  # fixed, so that texts do not depend on today
SPAN_DAYS = 3 * 365


def words(text: str) -> tuple[str, ...]:
    """A vocabulary written as `a|b|c`."""
    return tuple(part.strip() for part in text.split("|") if part.strip())


FIRST = words(
    "Maya|Liam|Sofia|Noah|Amara|Mateo|Hana|Lucas|Zara|Ethan|Ines|Kai|Leila|Omar|Priya|Jonas|"
    "Chloe|Ravi|Elena|Tomas|Aisha|Felix|Mei|Diego|Nora|Arjun|Freya|Hugo|Yuki|Samir|Clara|Mark|"
    "Ava|Kofi|Lena|Rafael|Ingrid|Tariq|Julia|Sven|Nadia|Marco|Keiko|Dmitri|Lucia|Emeka|Greta|"
    "Pablo|Anika|Bruno|Carmen|Daniel|Esther|Farid|Gemma|Henrik|Isla|Jamal|Katya|Leon|Mila|Nikos|"
    "Olga|Pedro|Quinn|Rosa|Stefan|Tara|Umar|Vera|Wei|Ximena|Yara|Zoltan|Alma|Bilal|Cora|Dario|"
    "Elif|Finn|Gloria|Hassan|Ida|Joel|Kira|Luca|Mira|Nils|Oscar|Paula|Rhea|Sami|Teo|Una|Viktor|"
    "Willa|Yusuf|Zoe|Anton|Beatriz|Cyrus|Dalia|Emil|Fatima|Gil|Helga|Ivo|Jana|Kenji|Lotte|Malik|"
    "Nina|Otto|Pia|Reza|Selma|Theo|Ulla|Vince|Wanda|Yann|Zainab|Agnes|Boris|Celine|Dev|Edith"
)
LAST = words(
    "Costa|Novak|Okafor|Lindqvist|Tanaka|Moreau|Schmidt|Rossi|Haddad|Kowalski|Nguyen|Garcia|"
    "Fischer|Silva|Ivanova|Mensah|Jensen|Khan|Dubois|Petrov|Almeida|Sato|Berg|Romano|Patel|"
    "Meyer|Vargas|Kim|Larsen|Horvat|Osei|Bauer|Ferreira|Yamamoto|Nowak|Lopez|Andersen|Chen|"
    "Weber|Santos|Popescu|Adeyemi|Keller|Martin|Rahman|Svensson|Ortiz|Hoffmann|Ali|Kaur|Brennan|"
    "Doyle|Esposito|Falk|Gallo|Hayes|Ibarra|Jovanovic|Kaya|Lund|Marsh|Nakamura|Olsen|Park"
)
CITIES = words(
    "Lisbon|Porto|Berlin|Munich|Hamburg|Vienna|Prague|Warsaw|Krakow|Budapest|Copenhagen|"
    "Stockholm|Oslo|Helsinki|Amsterdam|Rotterdam|Brussels|Antwerp|Paris|Lyon|Marseille|Madrid|"
    "Barcelona|Valencia|Seville|Rome|Milan|Naples|Turin|Florence|Athens|Istanbul|Zurich|Geneva|"
    "Dublin|Edinburgh|Manchester|London|Bristol|Reykjavik|Tallinn|Riga|Vilnius|Ljubljana|Zagreb|"
    "Split|Sofia|Bucharest|Tokyo|Osaka|Kyoto|Seoul|Taipei|Singapore|Bangkok|Hanoi|Bali|Sydney|"
    "Melbourne|Auckland|Toronto|Montreal|Vancouver|Boston|Chicago|Austin|Seattle|Denver|"
    "San Francisco|New York|Mexico City|Buenos Aires|Santiago|Lima|Bogota|Cape Town|Nairobi|"
    "Lagos|Accra|Marrakesh|Cairo|Tel Aviv|Dubai|Mumbai|Bangalore"
)
DRINKS = words(
    "green tea|sencha|oolong tea|cold brew|a double espresso|a chai latte|matcha|rooibos|"
    "hot chocolate|sparkling water with lemon|black coffee|a cortado|earl grey|fresh ginger tea|"
    "kombucha|fresh orange juice|mint tea|a decaf americano|yerba mate|an oat flat white|"
    "a turmeric latte|jasmine tea|a cappuccino|hibiscus tea|filter coffee|a mocha|barley tea|"
    "lemon water|a green smoothie|genmaicha|a flat white|chamomile tea|an iced latte|kefir"
)
DRINK_DETAILS = words(
    "no sugar|with a splash of oat milk|extra hot|in a large mug|never after 3 pm|"
    "with honey|with a slice of lemon|lukewarm, not hot|always decaf after lunch|"
    "from the small roaster near the office|made in the French press|with almond milk|"
    "in the blue thermos|brewed a bit weaker than usual|with cinnamon on top|"
    "usually two cups|only on workdays|with a biscuit on the side|iced in summer"
)
DAYPARTS = words(
    "morning|early morning|afternoon|evening|late evening|lunch break|"
    "weekend mornings|hours before a workout|hour after dinner"
)
DAYS = words("Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday")
DAY_TIMES = words("morning|afternoon|evening|night|lunchtime")
MONTHS = words(
    "January|February|March|April|May|June|July|August|September|October|November|December"
)
CUISINE_DISHES = (
    ("Thai", "pad thai"),
    ("Thai", "green curry"),
    ("Japanese", "ramen"),
    ("Japanese", "gyoza"),
    ("Japanese", "okonomiyaki"),
    ("Japanese", "sushi"),
    ("Korean", "bibimbap"),
    ("Korean", "tteokbokki"),
    ("Vietnamese", "pho"),
    ("Vietnamese", "banh mi"),
    ("Indian", "dal makhani"),
    ("Indian", "butter chicken"),
    ("Ethiopian", "injera with lentils"),
    ("Lebanese", "falafel wraps"),
    ("Mexican", "tacos al pastor"),
    ("Peruvian", "ceviche"),
    ("Georgian", "khachapuri"),
    ("Italian", "mushroom risotto"),
    ("Italian", "lasagne"),
    ("Italian", "pasta carbonara"),
    ("Italian", "arancini"),
    ("Greek", "moussaka"),
    ("Greek", "spanakopita"),
    ("Turkish", "menemen"),
    ("Moroccan", "chicken tagine"),
    ("Portuguese", "bacalhau"),
    ("Spanish", "paella"),
    ("French", "ratatouille"),
    ("Sichuan", "mapo tofu"),
    ("Cantonese", "dim sum"),
    ("Persian", "fesenjan"),
    ("Sri Lankan", "hoppers"),
    ("Nepalese", "momos"),
    ("Brazilian", "feijoada"),
    ("Nigerian", "jollof rice"),
    ("Basque", "pintxos"),
    ("Hungarian", "goulash"),
    ("Polish", "pierogi"),
    ("Filipino", "adobo"),
    ("Malaysian", "laksa"),
    ("Hawaiian", "poke bowls"),
    ("Cypriot", "halloumi salad"),
    ("Tunisian", "shakshuka"),
)
INGREDIENTS = words(
    "cilantro|olives|blue cheese|anchovies|raw onion|mayonnaise|mushrooms|eggplant|coconut|"
    "capers|beetroot|liquorice|very spicy chili|dill|celery|truffle oil|raisins|pickles|okra|"
    "fennel|goat cheese|sardines|tofu skin|bell peppers|lamb"
)
ALLERGENS = words(
    "peanuts|tree nuts|shellfish|gluten|lactose|eggs|sesame|soy|kiwi|penicillin|bee stings|"
    "cats|pollen|dust mites|latex"
)
ADJ = words(
    "Copper|Blue|Golden|Quiet|Little|Green|Old|Red|Silver|Hidden|Wild|Salt|Paper|Iron|Lucky|"
    "Velvet|Crooked|Sunny|Northern|Smoky|Amber|Crimson|Humble|Rusty|Brave"
)
NOUNS = words(
    "Pot|Fig|Lantern|Anchor|Spoon|Olive|Harbour|Owl|Garden|Kettle|Fox|Pantry|Bicycle|Table|"
    "Orchard|Compass|Lemon|Heron|Barrel|Window|Bridge|Pepper|Tiger|Lighthouse|Meadow"
)
STREETS = words(
    "Rua Augusta|Oak Street|Canal Road|Mill Lane|Harbour Street|Linden Avenue|Station Road|"
    "Market Square|Church Street|Rose Lane|Castle Hill|Park Avenue|River Walk|King Street|"
    "Elm Road|Victoria Street|Bakers Row|Hill Street|Garden Lane|Water Street"
)
PLACE_TYPES = words(
    "coffee shop|bakery|bookshop|ramen bar|park|climbing gym|wine bar|bistro|museum|"
    "record store|co-working space|swimming pool|food market|cinema|jazz club|tea house"
)
PLACE_NOTES = words(
    "it gets crowded after 11|they close on Mondays|the back room is quiet enough for calls|"
    "ask for the seasonal special|cash only|they have a good gluten-free option|"
    "great for working with a laptop|booking ahead is needed on Fridays|dogs are welcome|"
    "the terrace is nice in spring|parking is difficult nearby|the owner knows them by name"
)
HOBBIES = words(
    "bouldering|sourdough baking|watercolor painting|trail running|chess|pottery|salsa dancing|"
    "birdwatching|woodworking|film photography|open-water swimming|bouldering|knitting|"
    "playing the cello|gardening|Brazilian jiu-jitsu|sailing|calligraphy|board games|"
    "mountain biking|learning Japanese|learning Portuguese|improv theatre|beekeeping|archery|"
    "fermenting vegetables|bird photography|cross-country skiing|padel|rowing|tai chi|"
    "restoring old bikes|crossword puzzles|playing the ukulele|embroidery|kayaking|yoga"
)
VENUES = words(
    "the community centre|the club by the river|a studio downtown|the local library|"
    "the sports hall near work|a friend's garage|the university gym|an outdoor spot in the park|"
    "the centre on {street}|a small school in {city}"
)
GENRES = words(
    "lo-fi beats|jazz|classical piano|ambient|post-rock|80s synth-pop|bossa nova|techno|"
    "indie folk|film scores|afrobeat|metal|city pop|blues|baroque music|drum and bass|"
    "k-pop|flamenco|reggae|hip-hop|Celtic folk|minimal techno"
)
ACTIVITIES = words(
    "coding|running|cooking|cleaning the flat|reading|commuting|working out|writing|"
    "doing the dishes|driving long distances|studying|answering email|painting"
)
MUSIC_APPS = words("Spotify|a vinyl player|Bandcamp|YouTube Music|the radio|Apple Music|Tidal")
RELATIONS = words(
    "cousin|partner|best friend|colleague|manager|neighbour|landlord|former roommate|mentor|"
    "teammate|old school friend|climbing partner|bandmate|accountant|doctor|sibling|flatmate|"
    "client|tutor|godparent|in-law|business partner|running buddy|boss|childhood friend"
)
JOBS = words(
    "nurse|architect|data scientist|teacher|civil engineer|chef|product manager|lawyer|"
    "physiotherapist|graphic designer|pilot|pharmacist|journalist|electrician|translator|"
    "veterinarian|UX researcher|accountant|software engineer|midwife|carpenter|economist|"
    "marine biologist|barista|firefighter|dentist|photographer|social worker|urban planner"
)
COMPANIES = words(
    "Northwind Logistics|Bluepeak Analytics|Harbor Health|Tallow & Finch|Quanta Robotics|"
    "Greenleaf Energy|Orbital Foods|Lumen Bank|Fjord Mobility|Cobalt Studios|Meridian Insurance|"
    "Helix Biotech|Sparrow Travel|Ironclad Security|Pinecone Media|Atlas Freight|Brightwater|"
    "Kestrel Labs|Solstice Retail|Vantage Telecom|Driftwood Games|Aurora Clinics|Nimbus Cloud|"
    "Redwood Publishing|Summit Legal|Oakline Furniture|Tidal Payments|Beacon Schools|"
    "Saffron Hospitality|Granite Construction"
)
PROJECTS = words(
    "atlas|borealis|copperhead|driftwood|ember|falcon|glacier|halcyon|ironbark|juniper|kestrel|"
    "lodestar|mistral|nebula|obsidian|paladin|quasar|redwood|sirocco|tundra|umbra|vesper|"
    "wildfire|xenon|yellowtail|zephyr|aurora|basalt|cinder|dynamo|everest|fathom|granite|"
    "helios|indigo|jetstream|keystone|lumen|monsoon|nimbus|orca|pioneer|quartz|riptide|sequoia"
)
LANGS = words("Python|Go|Rust|TypeScript|Kotlin|Java|Elixir|Swift|C#|Scala|Ruby|Zig")
DATASTORES = words(
    "Postgres|MySQL|Redis|MongoDB|Cassandra|ClickHouse|DuckDB|SQLite|Elasticsearch|DynamoDB|"
    "BigQuery|Snowflake|CockroachDB|Neo4j|FalkorDB|Qdrant|TimescaleDB|ScyllaDB|MinIO|S3"
)
INFRA = words(
    "Kubernetes|Nomad|Terraform|Pulumi|Kafka|RabbitMQ|NATS|Airflow|Dagster|Temporal|Celery|"
    "GitHub Actions|GitLab CI|Jenkins|ArgoCD|Helm|Vault|Consul|Nginx|Envoy|Traefik|Prometheus|"
    "Grafana|Datadog|Sentry|OpenTelemetry|Docker Compose|AWS Lambda|Cloud Run|Fly.io"
)
LIBS = words(
    "FastAPI|Django|Flask|React|Next.js|Vue|Svelte|pandas|Polars|PyTorch|scikit-learn|dbt|"
    "SQLAlchemy|Pydantic|pytest|Playwright|Vite|Tailwind|gRPC|GraphQL|Spring Boot|Phoenix|"
    "Tokio|Axum|htmx|Redux|Prisma|Alembic|Ray|Spark"
)
APPS = words(
    "Notion|Obsidian|Linear|Jira|Trello|Slack|Figma|VS Code|Neovim|JetBrains IDEs|Todoist|"
    "Google Docs|Excalidraw|Miro|1Password|Bitwarden|Zotero|Logseq|Things|Raycast|Warp|tmux"
)
TASKS = words(
    "note-taking|task tracking|diagramming|password management|writing drafts|code review|"
    "terminal work|reading papers|planning sprints|journaling|meeting notes|quick sketches"
)
REASONS = words(
    "it halves the hosting bill|the team already knows it|the latency was too high before|"
    "of licensing costs|it has better observability|the vendor is ending support next year|"
    "it makes local development simpler|the security review flagged the old setup|"
    "it scales down to zero at night|the migration path is documented|"
    "support contracts were too expensive|it removes a whole service to maintain|"
    "on-call pages dropped after the trial|the benchmarks were 3x better|"
    "the previous choice kept losing data under load|customers asked for it|"
    "it runs offline on the laptops|the open-source license is friendlier|"
    "the trial in staging went smoothly|hiring for it is easier|it keeps data in the EU"
)
COMPONENTS = words(
    "the billing service|the auth gateway|the search indexer|the mobile app backend|"
    "the nightly ETL|the admin dashboard|the notification worker|the pricing engine|"
    "the reporting pipeline|the image resizer|the recommendation service|the public API|"
    "the checkout flow|the data warehouse loads|the feature store|the event bus|"
    "the CI pipeline|the onboarding wizard|the audit log|the export job"
)
PURPOSES = words(
    "sessions|the job queue|analytics|full-text search|caching|user profiles|event storage|"
    "metrics|audit trails|rate limiting|feature flags|file uploads|embeddings|time series"
)
MILESTONES = words(
    "beta release|security review|load test|design review|data migration|launch|"
    "code freeze|customer demo|first milestone|go/no-go meeting|penetration test|handover"
)
DELIVERABLES = words(
    "the rollout plan|the runbook|the API docs|the cost estimate|the test report|"
    "the migration script|the dashboards|the release notes|the capacity plan|the demo script"
)
ERRORS = words(
    "connection pool exhausted|OOMKilled|timeout after 30 s|SSL handshake failure|"
    "deadlock detected|429 Too Many Requests|too many open files|disk quota exceeded|"
    "certificate has expired|permission denied on /var/run|segmentation fault on startup|"
    "lock wait timeout exceeded|broken pipe|no space left on device|DNS resolution failed|"
    "schema version mismatch|checksum mismatch|address already in use|stale file handle|"
    "context deadline exceeded|unexpected EOF|module not found"
)
FIXES = words(
    "raising the pool size to {n2}|pinning the client library to {version}|"
    "clearing the build cache first|restarting the sidecar before the main container|"
    "setting the timeout to {n2} seconds|running the migrations again with --fake-initial|"
    "rotating the certificate with the script in ops/|bumping ulimit -n to 65536|"
    "deleting the stale lock file|adding a retry with jitter|moving the job to the big runner|"
    "disabling HTTP/2 on the load balancer|vacuuming the table|freeing up space in /tmp|"
    "switching the resolver to 1.1.1.1|recreating the virtualenv"
)
SETTINGS = words(
    "max_connections|worker_count|batch_size|request_timeout|cache_ttl|replica_count|"
    "log_level|retry_limit|chunk_size|heap_size|prefetch_count|gc_interval|shard_count"
)
SYMPTOMS = words(
    "the nightly job times out|the pods get evicted|latency doubles|the queue backs up|"
    "the tests become flaky|memory keeps growing|the dashboard shows stale data|"
    "reports go out twice|logins fail intermittently|the cache hit rate collapses"
)
CMD_TASKS = words(
    "run the integration tests|rebuild the search index|seed the local database|"
    "regenerate the API client|deploy to staging|refresh the fixtures|profile the importer|"
    "rotate the local keys|tail the worker logs|backfill last week's events"
)
COMMANDS = words(
    "make test-int|./scripts/reindex.sh --all|make seed|npm run gen:client|"
    "just deploy staging|python -m tools.fixtures --refresh|py-spy record -o profile.svg|"
    "./ops/rotate-keys --local|kubectl logs -f deploy/worker|./bin/backfill --days 7"
)
DIRS = words("repo root|backend|infra|services/api|tools|ops|web")
ENVS = words("staging|production|sandbox|QA|demo")
SERVICES = words(
    "the payments provider|the email service|the analytics warehouse|the CI runner|"
    "the object store|the maps API|the SMS gateway|the feature-flag service"
)
VAULT_PATHS = words(
    "the team vault under infra/|1Password, shared folder 'ops'|Vault at secret/apps/|"
    "the sealed-secrets repo|AWS Secrets Manager|the ops wiki page (link only)"
)
FEATURES = words(
    "async generators|unicode filenames|large uploads|IPv6|daylight saving time|"
    "nested transactions|the new config format|ARM builds|retries on timeouts|"
    "streaming responses|connection reuse|timezones before 1970"
)
EVENTS = (
    ("went to", "go to", "a concert"),
    ("went to", "go to", "a jazz night"),
    ("hiked", "hike", "the coastal trail"),
    ("had dinner at", "have dinner at", "a {cuisine} place"),
    ("visited", "visit", "the modern art museum"),
    ("ran", "run", "a 10k race"),
    ("watched", "watch", "a football match"),
    ("cooked", "cook", "{dish} for friends"),
    ("attended", "attend", "a wedding"),
    ("volunteered at", "volunteer at", "the food bank"),
    ("went kayaking on", "go kayaking on", "the lake"),
    ("saw", "see", "a play"),
    ("toured", "tour", "the old town"),
    ("went to", "go to", "a pottery workshop"),
    ("celebrated", "celebrate", "a birthday"),
    ("helped", "help", "with a house move"),
)
EVENT_NOTES = words(
    "it rained the whole time|it was the best evening in months|they want to go again next year|"
    "the tickets were a gift|they got lost on the way back|they met {first} there|"
    "it was more expensive than planned|they took lots of photos|the food was disappointing|"
    "it ran late, home after midnight|it was sold out, they got the last seats"
)
APPOINTMENTS = words(
    "dentist appointment|annual check-up|car service|visa interview|parent-teacher meeting|"
    "haircut|physiotherapy session|tax advisor meeting|eye test|vaccination|bank appointment|"
    "apartment viewing|job interview|therapy session|vet appointment|passport renewal"
)
APPT_NOTES = words(
    "; bring the insurance card|; it takes about an hour|; needs to leave work early|"
    "; reschedule if the flight is delayed|; remember the documents folder|"
    "; parking is behind the building|; fasting from midnight|; confirmation by SMS"
)
TOPICS = words(
    "vector search|on-call culture|data contracts|event sourcing|accessibility testing|"
    "cost-aware architecture|feature flags at scale|privacy engineering|local-first apps|"
    "observability on a budget|LLM evaluation|graph databases|zero-downtime migrations"
)
CONFERENCES = words(
    "PyCon|a local meetup|KubeCon|a university seminar|an internal tech day|FOSDEM|"
    "a product conference|a data engineering summit|a hackathon"
)
TALK_NOTES = words(
    "the slides are in the shared drive|about {n2} people attended|it was recorded|"
    "questions were mostly about costs|they were nervous but it went well|"
    "someone from {company} asked for a follow-up"
)
PRODUCTS = words(
    "standing desk|road bike|espresso machine|mechanical keyboard|laptop|winter coat|"
    "air purifier|e-reader|hiking boots|noise-cancelling headphones|sofa|tent|monitor|"
    "rice cooker|washing machine|camera lens|office chair|electric toothbrush"
)
STORES = words(
    "a shop in {city}|an online store|the second-hand market|the outlet by the airport|"
    "a local craftsman|the department store downtown|a friend of {first}"
)
CURRENCIES = words("EUR|USD|GBP|CHF|SEK|JPY")
LIFE_DECISIONS = words(
    "go vegetarian on weekdays|stop drinking coffee after noon|cycle to work|"
    "take Fridays off for a few months|learn to drive|move to a smaller flat|"
    "save for a sabbatical|quit social media|switch to a four-day week|"
    "take an evening class in design|sell the car|go to bed before 11|start therapy|"
    "volunteer once a month|stop working on weekends"
)
LIFE_REASONS = words(
    "sleep has been bad|money is tight this year|a doctor recommended it|"
    "the commute is exhausting|they want more time with family|it felt like burnout|"
    "a friend did the same and loved it|they want to travel more|it's better for the climate"
)
RULES = (
    ("code review", "every pull request needs {n1} approvals"),
    ("deploys", "no deploys on Fridays after {clock}"),
    ("feature flags", "feature flags are removed within {n1} weeks"),
    ("incidents", "every incident gets a written review within {n1} days"),
    ("dependencies", "new dependencies need a short written justification"),
    ("testing", "coverage must not drop below {pct}%"),
    ("meetings", "no meetings on {day}s"),
    ("on-call", "on-call rotates every {n1} weeks"),
    ("migrations", "schema migrations must be backwards compatible for {n1} releases"),
    ("secrets", "secrets are never committed, even in test fixtures"),
)
HABITS = words(
    "goes running for {n1} km|does a {n2}-minute yoga session|calls {first}|"
    "plans meals for the week|reviews the budget|waters the plants|goes to the farmers market|"
    "cleans out the inbox|practises {hobby}|meets {first} for lunch|does a long swim|"
    "writes in a journal|bakes bread|takes the kids to swimming|visits {first}'s grandmother|"
    "does the grocery run|studies for the language course|goes to the sauna"
)
HABIT_NOTES = ("",) + words(
    ", unless it rains|, rain or shine|, since last {month}|, usually with headphones on|"
    ", and gets annoyed if a meeting is booked then|, it's the best part of the week|"
    ", skipped only when travelling"
)
ROUTINES = words(
    "reads the news on the phone|stretches for ten minutes|checks the calendar|"
    "makes a to-do list on paper|walks the dog|meditates|writes three priorities on a sticky note|"
    "puts the phone in another room|takes vitamin D|packs the gym bag"
)
ANCHORS = words(
    "starting work|going to bed|important meetings|long flights|a deep-work session|"
    "leaving for the office|a presentation|dinner"
)
SUPPLEMENTS = words(
    "vitamin D|magnesium|iron|omega-3|vitamin B12|zinc|probiotics|melatonin|folic acid|"
    "an antihistamine|a low-dose aspirin|creatine"
)
DOSES = words("1000 IU|200 mg|one tablet|two capsules|5 mg|half a tablet|10 ml|a scoop")
BILLS = words(
    "rent|mortgage payment|car insurance|gym membership|phone bill|electricity bill|"
    "internet bill|childcare fee|student loan payment|health insurance|streaming subscriptions"
)
ACCOUNTS = words(
    "the joint account|the savings account|the main credit card|the business account|"
    "the old bank account|a standing order"
)
GOALS = words(
    "run a half marathon|read {n2} books|save {amount} {currency}|learn to swim properly|"
    "finish the online course on statistics|visit {city}|get the AWS certification|"
    "lose the habit of late-night snacking|write a short story every month|"
    "climb a 6b route outdoors|speak basic Japanese|pay off the credit card"
)
PROGRESS = words(
    "about a third of the way|on track|behind schedule|just started|almost done|"
    "paused since the move|ahead of plan"
)
MEETINGS = words(
    "weekly 1:1|architecture sync|sprint planning|standup|quarterly review|hiring debrief|"
    "customer check-in|design critique|budget review|roadmap session"
)
TIMEZONES = words("CET|UTC|EST|PST|JST|GMT")
WORK_ASKS = words(
    "write up the incident review|prepare the budget draft|mentor the new intern|"
    "present the roadmap|clean up the backlog|interview two candidates|"
    "document the deploy process|lead the retro|draft the hiring plan|review the contract"
)
GIFTS = words(
    "a good chef's knife|concert tickets|a pottery class|a rain jacket|a book on {hobby}|"
    "a board game|a plant for the balcony|a cookbook of {cuisine} food|a weekend in {city}|"
    "noise-cancelling headphones|a framed photo|a fountain pen|a climbing chalk bag"
)
AUTHORS = tuple(f"{f} {ln}" for f, ln in zip(FIRST[::3], LAST, strict=False))
REVIEWS = words(
    "too long in the middle|the ending was perfect|would recommend it to {first}|"
    "beautifully written but slow|they could not put it down|the translation felt clumsy|"
    "great ideas, weak characters|a re-read for next summer"
)
SEATS = words("window|aisle|front-row|exit-row|quiet-coach")
TRANSPORTS = words("flight|train journey|bus ride|ferry crossing")
TRIP_KINDS = words("work trip|long weekend|family visit|hiking trip|city break|conference trip")
TRAVEL_NOTES = words(
    "the hotel is already booked|they still need to book the return|the train is cheaper than "
    "flying|they want a recommendation for dinner|a visa is not needed|"
    "the car rental is under {first}'s name|they need to find a pet sitter"
)
STYLES = words(
    "short|detailed|in bullet points|with code first|with sources|in plain language|"
    "without small talk|with a summary at the top|in a friendly tone|with examples"
)
STYLE_CONTEXTS = words(
    "especially for technical questions|when they are on the phone|for work emails|"
    "when planning trips|for anything about money|in the morning|when debugging"
)
PET_SPECIES = words("dog|cat|rabbit|parrot|tortoise|guinea pig|hamster|horse")
PET_NAMES = words(
    "Biscuit|Luna|Pepper|Mochi|Olive|Ziggy|Nacho|Pixel|Juniper|Otis|Waffles|Miso|Clover|Rocky"
)
PET_CARE = words(
    "a pill with breakfast|a walk before 8 am|special kidney food|brushing twice a week|"
    "a check-up every six months|to stay away from chocolate|a new harness|its claws trimmed"
)
LIFE_EVENTS = words(
    "moved to {city}|got a new job at {company}|had a baby girl named {first}|"
    "started a master's degree|adopted a {pet}|ran the {city} marathon|got engaged|"
    "opened a small bakery|broke an ankle skiing|retired|bought a flat in {city}|"
    "started working as a {job}"
)


# --- Slots -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Contact:
    name: str
    relation: str
    pronoun: str


@dataclass(frozen=True, slots=True)
class Persona:
    """One user: their name and the small world their memories talk about."""

    user_id: str
    name: str
    last: str
    contacts: tuple[Contact, ...]
    projects: tuple[str, ...]


@dataclass(slots=True)
class Draw:
    """What one template draw needs: randomness, the persona and the memory's time."""

    rng: random.Random
    persona: Persona
    when: datetime


def _date(moment: datetime) -> str:
    return f"{MONTHS[moment.month - 1]} {moment.day}, {moment.year}"


def _clock(rng: random.Random) -> str:
    return f"{rng.randint(7, 20)}:{rng.choice(('00', '15', '30', '45'))}"


def _voice(d: Draw) -> dict[str, str]:
    """The subject of the memory: the user's name, or "the user" (assistant style)."""
    if d.rng.random() < 0.7:
        name = d.persona.name
        return {"me": name, "me_pos": f"{name}'s", "Me_pos": f"{name}'s", "me_obj": name}
    return {"me": "the user", "me_pos": "the user's", "Me_pos": "The user's", "me_obj": "the user"}


def _person(d: Draw) -> dict[str, str]:
    contact = d.rng.choice(d.persona.contacts)
    return {"person": contact.name, "relation": contact.relation, "pronoun": contact.pronoun}


def _person_full(d: Draw) -> dict[str, str]:
    return {"person_full": f"{d.rng.choice(FIRST)} {d.rng.choice(LAST)}"}


def _tools(d: Draw) -> dict[str, str]:
    pool = d.rng.choice((LANGS, DATASTORES, INFRA, LIBS))
    first, second = d.rng.sample(pool, 2)
    return {"tool_a": first, "tool_b": second}


def _app_pair(d: Draw) -> dict[str, str]:
    first, second = d.rng.sample(APPS, 2)
    return {"app_a": first, "app_b": second}


def _styles(d: Draw) -> dict[str, str]:
    first, second = d.rng.sample(STYLES, 2)
    return {"style": first, "style2": second}


def _cuisine(d: Draw) -> dict[str, str]:
    cuisine, dish = d.rng.choice(CUISINE_DISHES)
    return {"cuisine": cuisine, "dish": dish}


def _purposes(d: Draw) -> dict[str, str]:
    first, second = d.rng.sample(PURPOSES, 2)
    return {"purpose": first, "purpose2": second}


def _cities(d: Draw) -> dict[str, str]:
    first, second = d.rng.sample(CITIES, 2)
    return {"city": first, "city2": second}


def _past(d: Draw) -> dict[str, str]:
    moment = d.when - timedelta(days=d.rng.randint(0, 20))
    return {"past_date": _date(moment)}


def _future(d: Draw) -> dict[str, str]:
    start = d.when + timedelta(days=d.rng.randint(2, 75))
    end = start + timedelta(days=d.rng.randint(2, 12))
    return {"date": _date(start), "date2": _date(end), "due_month": MONTHS[start.month - 1]}


def _event(d: Draw) -> dict[str, str]:
    past, base, obj = d.rng.choice(EVENTS)
    return {"event_past": past, "event_base": base, "event_obj": obj}


def _rule(d: Draw) -> dict[str, str]:
    topic, rule = d.rng.choice(RULES)
    return {"rule_topic": topic, "rule": rule}


def _version(d: Draw) -> dict[str, str]:
    major, minor = d.rng.randint(1, 9), d.rng.randint(1, 30)
    return {
        "version": f"{major}.{minor}.{d.rng.randint(0, 9)}",
        "version_prev": f"{major}.{minor - 1}",
    }


def _year(d: Draw) -> dict[str, str]:
    return {"year": str(d.when.year - d.rng.randint(0, 12))}


def _goal_year(d: Draw) -> dict[str, str]:
    return {"goal_year": str(d.when.year + d.rng.randint(0, 1))}


# slot -> vocabulary (a plain choice) or a function filling a group of slots
VOCAB: dict[str, tuple[str, ...]] = {
    "drink": DRINKS,
    "drink_detail": DRINK_DETAILS,
    "daypart": DAYPARTS,
    "day": DAYS,
    "day_time": DAY_TIMES,
    "month": MONTHS,
    "ingredient": INGREDIENTS,
    "allergen": ALLERGENS,
    "street": STREETS,
    "place_type": PLACE_TYPES,
    "place_note": PLACE_NOTES,
    "hobby": HOBBIES,
    "venue": VENUES,
    "genre": GENRES,
    "activity": ACTIVITIES,
    "music_app": MUSIC_APPS,
    "job": JOBS,
    "company": COMPANIES,
    "task": TASKS,
    "reason": REASONS,
    "component": COMPONENTS,
    "milestone": MILESTONES,
    "deliverable": DELIVERABLES,
    "error": ERRORS,
    "fix": FIXES,
    "setting": SETTINGS,
    "symptom": SYMPTOMS,
    "cmd_task": CMD_TASKS,
    "command": COMMANDS,
    "dir": DIRS,
    "env": ENVS,
    "service": SERVICES,
    "vault": VAULT_PATHS,
    "feature": FEATURES,
    "event_note": EVENT_NOTES,
    "appointment": APPOINTMENTS,
    "appt_note": APPT_NOTES,
    "topic": TOPICS,
    "conference": CONFERENCES,
    "talk_note": TALK_NOTES,
    "product": PRODUCTS,
    "store": STORES,
    "currency": CURRENCIES,
    "decision": LIFE_DECISIONS,
    "life_reason": LIFE_REASONS,
    "habit": HABITS,
    "habit_note": HABIT_NOTES,
    "routine": ROUTINES,
    "anchor": ANCHORS,
    "supplement": SUPPLEMENTS,
    "dose": DOSES,
    "bill": BILLS,
    "account": ACCOUNTS,
    "goal": GOALS,
    "progress": PROGRESS,
    "meeting": MEETINGS,
    "tz": TIMEZONES,
    "work_ask": WORK_ASKS,
    "gift": GIFTS,
    "author": AUTHORS,
    "review": REVIEWS,
    "seat": SEATS,
    "transport": TRANSPORTS,
    "trip_kind": TRIP_KINDS,
    "travel_note": TRAVEL_NOTES,
    "style_context": STYLE_CONTEXTS,
    "pet": PET_SPECIES,
    "pet_name": PET_NAMES,
    "pet_care": PET_CARE,
    "life_event": LIFE_EVENTS,
    "first": FIRST,
    "datastore": DATASTORES,
    "infra": INFRA,
    "lang": LANGS,
    "app": APPS,
}
GROUPS: dict[str, Callable[[Draw], dict[str, str]]] = {}
for _fill, _names in (
    (_voice, ("me", "me_pos", "Me_pos", "me_obj")),
    (_person, ("person", "relation", "pronoun")),
    (_person_full, ("person_full",)),
    (_tools, ("tool_a", "tool_b")),
    (_app_pair, ("app_a", "app_b")),
    (_cities, ("city", "city2")),
    (_styles, ("style", "style2")),
    (_cuisine, ("cuisine", "dish")),
    (_purposes, ("purpose", "purpose2")),
    (_past, ("past_date",)),
    (_future, ("date", "date2", "due_month")),
    (_event, ("event_past", "event_base", "event_obj")),
    (_rule, ("rule_topic", "rule")),
    (_version, ("version", "version_prev")),
    (_year, ("year",)),
    (_goal_year, ("goal_year",)),
):
    GROUPS.update(dict.fromkeys(_names, _fill))
NUMBERS: dict[str, Callable[[random.Random], str]] = {
    "n1": lambda r: str(r.randint(2, 12)),
    "n2": lambda r: str(r.choice((5, 10, 15, 20, 25, 30, 40, 45, 50, 60, 90, 120))),
    "n_years": lambda r: str(r.randint(2, 14)),
    "pct": lambda r: str(r.choice((60, 70, 75, 80, 85, 90))),
    "ms": lambda r: str(r.randint(8, 900)),
    "rps": lambda r: f"{r.randint(1, 95) * 100:,}",
    "price": lambda r: f"{r.randint(3, 250) * 10}",
    "amount": lambda r: f"{r.randint(1, 30) * 500:,}",
    "nth": lambda r: r.choice(("1st", "5th", "10th", "15th", "20th", "25th", "28th")),
    "clock": _clock,
    "rating": lambda r: str(r.randint(3, 10)),
    "title_adj": lambda r: r.choice(ADJ),
    "title_noun": lambda r: r.choice(NOUNS),
    "venue_name": lambda r: f"the {r.choice(ADJ)} {r.choice(NOUNS)}",
    "restaurant": lambda r: f"{r.choice(ADJ)} {r.choice(NOUNS)}",
    "book": lambda r: f"The {r.choice(ADJ)} {r.choice(NOUNS)}",
    "unit": lambda r: r.choice(("second", "minute")),
}


class Slots(dict):
    """Template values drawn on first use; related values (a contact's name and relation) are
    drawn together, and nested placeholders in a drawn value are filled the same way."""

    def __init__(self, draw: Draw) -> None:
        super().__init__()
        self.draw = draw

    def __missing__(self, key: str) -> str:
        rng = self.draw.rng
        if key in GROUPS:
            for name, value in GROUPS[key](self.draw).items():
                self[name] = render(value, self)
        elif key == "project":
            self[key] = rng.choice(self.draw.persona.projects).capitalize()
        elif key == "name":
            self[key] = self.draw.persona.name
        elif key in NUMBERS:
            self[key] = NUMBERS[key](rng)
        elif key in VOCAB:
            self[key] = render(rng.choice(VOCAB[key]), self)
        else:
            raise KeyError(f"no vocabulary for slot {key!r}")
        return self[key]


def render(text: str, slots: Slots) -> str:
    """`text` with its placeholders filled (nested ones too)."""
    return text.format_map(slots) if "{" in text else text


# --- Templates ---------------------------------------------------------------------------------

# A template: a header `name | type | topic tags | importance range | weight`, then memory texts
# (indented) and questions targeting the memory (indented, starting with "?"). Placeholders are
# slots (see Slots); a long text goes on with a line starting with "+".
SPEC = """
drink | Preference | preference drinks | 0.3-0.6 | 1.2
  {me} prefers {drink} in the {daypart}, {drink_detail}.
  In the {daypart} {me} usually drinks {drink} ({drink_detail}).
  {me} likes to have {drink} during the {daypart}; {drink_detail}.
  ? What does {name} like to drink in the {daypart}?
  ? What's my usual drink in the {daypart}?
  ? what does {name} add to the {daypart} drink?
food_love | Preference | preference food | 0.3-0.6 | 1.2
  {me} loves {cuisine} food, especially the {dish} at {restaurant} in {city}.
  Favourite {cuisine} dish for {me_obj}: {dish}, best at {restaurant} ({city}).
  {me} keeps going back to {restaurant} in {city} for the {dish}.
  ? Which {cuisine} dish does {name} love?
  ? where should I get {dish} in {city}?
  ? What restaurant in {city} does {name} like?
food_dislike | Preference | preference food | 0.3-0.6 | 1
  {me} can't stand {ingredient}; ask for it to be left out of the {dish}.
  No {ingredient} for {me_obj}, not even in {dish}. Mentioned while planning
  + {day} dinner.
  {me} dislikes {ingredient} and picks it out of {dish} every time.
  ? What ingredient should be left out of {name}'s {dish}?
  ? what food does {name} dislike?
music | Preference | preference music | 0.2-0.5 | 1
  {me} listens to {genre} while {activity}, mostly on {music_app}.
  For {activity}, {me} puts on {genre} ({music_app}).
  ? What music does {name} play while {activity}?
  ? what do I listen to when {activity}?
tool_pref | Preference | preference tools | 0.3-0.6 | 1
  {me} prefers {app_a} over {app_b} for {task}, because {reason}.
  For {task}, {me} switched from {app_b} to {app_a} because {reason}.
  ? Which app does {name} use for {task}?
  ? does {name} prefer {app_a} or {app_b}?
answer_style | Style | preference communication | 0.5-0.8 | 0.6
  {me} wants answers {style} and {style2}, {style_context}.
  Answer style for {me_obj}: {style}, {style2} — {style_context}.
  ? How does {name} like answers {style_context}?
  ? what answer style do I prefer {style_context}?
seat | Preference | preference travel | 0.3-0.6 | 0.6
  {me} always books a {seat} seat on any {transport} longer than {n1} hours.
  Travel note: {me} wants a {seat} seat when the {transport} is over {n1} hours.
  ? What seat does {name} book on a long {transport}?
  ? which seat should I book for a {n1}-hour {transport}?
contact | Fact | people | 0.5-0.8 | 1
  {person} is {me_pos} {relation}; {pronoun} live in {city} and work as a {job}
  + at {company}.
  {Me_pos} {relation} {person} now works as a {job} for {company} in {city}.
  ? Where does {name}'s {relation} {person} live?
  ? What does {person} do for work?
  ? who is {person}?
birthday | Fact | people birthdays | 0.6-0.9 | 1
  {person}'s birthday is on {month} {day_num}; {pronoun} would love {gift}.
  Remember {person} ({me_pos} {relation}): birthday {month} {day_num}, gift idea
  + {gift}.
  ? When is {person}'s birthday?
  ? what gift would my {relation} {person} like?
allergy | Fact | people health | 0.7-1.0 | 1
  {person} ({me_pos} {relation}) is allergic to {allergen}; avoid it when
  + cooking {dish}.
  Allergy: {person} reacts badly to {allergen} — {me} found out at {restaurant}.
  ? What is {person} allergic to?
  ? is my {relation} {person} allergic to anything?
contact_hobby | Fact | people hobbies | 0.3-0.6 | 1
  {person} recently took up {hobby} and goes every {day} {day_time} at {venue}.
  {Me_pos} {relation} {person} started {hobby} in {month}, {day}s at {venue}.
  ? What new hobby did {person} start?
  ? when does {person} go to {hobby}?
life_event | Event | people news | 0.4-0.7 | 1
  {person} {life_event} in {month} {year}.
  News from {me_pos} {relation} {person}: {pronoun} {life_event} ({month} {year}).
  ? What happened with {person} in {month} {year}?
  ? what's new with my {relation} {person}?
pet | Fact | pets | 0.4-0.8 | 0.7
  {Me_pos} {pet} {pet_name} is {n1} years old and needs {pet_care}.
  {pet_name} ({me_pos} {pet}, {n1}) needs {pet_care}; the vet is in {city}.
  ? What does {pet_name} the {pet} need?
  ? how old is my {pet} {pet_name}?
lived | Fact | places biography | 0.5-0.8 | 0.7
  {me} lived in {city} for {n_years} years before moving to {city2} in {year}.
  Before {city2} (since {year}), {me} spent {n_years} years in {city}.
  ? Where did {name} live before {city2}?
  ? when did I move to {city2}?
fav_place | Preference | places | 0.3-0.6 | 1
  {Me_pos} favourite {place_type} in {city} is {venue_name} on {street};
  + {place_note}.
  {venue_name} ({street}, {city}) is the {place_type} {me} likes most — {place_note}.
  ? What is {name}'s favourite {place_type} in {city}?
  ? which {place_type} do I like in {city}?
trip | Event | travel plans | 0.5-0.8 | 1
  {me} is planning a {trip_kind} to {city} from {date} to {date2} with {person};
  + {travel_note}.
  Trip: {city}, {date} – {date2}, {trip_kind} with {me_pos} {relation} {person};
  + {travel_note}.
  ? When is {name}'s trip to {city}?
  ? who am I travelling to {city} with?
migration | Context | work project | 0.5-0.8 | 1.2
  Project {project}: the team is migrating {component} from {tool_b} to {tool_a},
  + target {month} {goal_year}.
  {project} will move {component} off {tool_b} onto {tool_a} by {month} {goal_year}.
  ? What is project {project} migrating {component} to?
  ? when should the migration of {component} in {project} be done?
stack | Fact | work project architecture | 0.5-0.8 | 1.2
  {project} uses {datastore} for {purpose} and {infra} for {purpose2}; owner is
  + {person_full}.
  In {project}, {datastore} holds {purpose} and {infra} handles {purpose2}
  + (ask {person_full}).
  ? Which database does {project} use for {purpose}?
  ? who owns the {purpose2} setup in {project}?
milestone | Event | work project deadlines | 0.6-0.9 | 1.2
  The {milestone} for {project} is due on {date}; {person_full} is responsible
  + for {deliverable}.
  {project}: {milestone} on {date}, {deliverable} owned by {person_full}.
  ? When is the {milestone} for {project} due?
  ? who is doing {deliverable} for {project}?
metrics | Fact | work project performance | 0.4-0.7 | 1
  {component} in {project} handles about {rps} requests per {unit} at a p95 of
  + {ms} ms.
  Load figures for {project}: {component} sees {rps} req/{unit}, p95 {ms} ms.
  ? What's the p95 latency of {component} in {project}?
  ? how much traffic does {component} get in {project}?
past_event | Event | events | 0.3-0.7 | 1.3
  On {past_date}, {me} {event_past} {event_obj} with {person} in {city};
  + {event_note}.
  {past_date}: {event_past} {event_obj} in {city} together with {person}
  + ({event_note}).
  ? What did {name} do with {person} in {city}?
  ? when did I {event_base} {event_obj} in {city}?
appointment | Event | appointments | 0.6-0.9 | 1.1
  {Me_pos} {appointment} is on {date} at {clock} with {person_full}{appt_note}.
  Reminder: {appointment} for {me_obj} on {date}, {clock}{appt_note}.
  ? When is {name}'s {appointment}?
  ? what time is my {appointment} on {date}?
talk | Event | work talks | 0.4-0.7 | 0.6
  {me} gave a talk on {topic} at {conference} in {city} on {past_date};
  + {talk_note}.
  Talk: '{topic}' at {conference} ({city}, {past_date}); {talk_note}.
  ? Where did {name} present about {topic}?
  ? when was my talk on {topic}?
purchase | Event | purchases money | 0.3-0.6 | 1
  {me} bought a new {product} for {price} {currency} on {past_date} from {store};
  + warranty runs {n1} years.
  Purchase: {product}, {price} {currency}, {past_date}, from {store}.
  ? When did {name} buy the {product}?
  ? how much did my {product} cost?
tech_decision | Decision | decision work project | 0.7-1.0 | 1.3
  Decision for {project}: use {tool_a} instead of {tool_b} for {component},
  + because {reason}.
  We decided {project} goes with {tool_a} (not {tool_b}) for {component}
  + because {reason}.
  ? Why did {project} choose {tool_a} for {component}?
  ? what did we decide about {component} in {project}?
life_decision | Decision | decision personal | 0.6-0.9 | 1
  {me} decided to {decision} starting {month} {goal_year}, mainly because
  + {life_reason}.
  Starting {month} {goal_year}, {me} will {decision} — {life_reason}.
  ? What did {name} decide to do starting {month}?
  ? why did I decide to {decision}?
team_rule | Pattern | work project process | 0.5-0.8 | 0.8
  Team rule in {project}: {rule} (agreed on {past_date}).
  {project} convention since {past_date}: {rule}.
  ? What is the rule about {rule_topic} in {project}?
  ? what did the {project} team agree on for {rule_topic}?
habit | Habit | habit | 0.3-0.6 | 1.2
  {me} {habit} every {day} {day_time}{habit_note}.
  Every {day} {day_time}, {me} {habit}{habit_note}.
  ? What does {name} do on {day} {day_time}s?
  ? what's my {day} {day_time} routine?
routine | Habit | habit routine | 0.2-0.5 | 0.8
  Before {anchor}, {me} usually {routine} and then {routine2}.
  {me} {routine} before {anchor}; on {day}s also {routine2}.
  ? What does {name} do before {anchor}?
  ? what's my routine before {anchor}?
fix | Insight | tech troubleshooting | 0.5-0.8 | 1.3
  When {tool_a} fails with '{error}' in {project}, the fix is {fix}.
  '{error}' from {tool_a} ({project}): solved by {fix}.
  ? How do I fix '{error}' in {tool_a}?
  ? what fixed the {error} problem in {project}?
config | Insight | tech configuration | 0.5-0.8 | 1
  In {project}, {setting} must stay at {n2} for {component}, or {symptom}.
  Don't change {setting} ({n2}) on {component} of {project}: {symptom}.
  ? What should {setting} be set to for {component}?
  ? why is {setting} fixed in {project}?
command | Pattern | tech howto | 0.4-0.7 | 1
  To {cmd_task} in {project}, run `{command}` from the {dir} directory.
  {project} how-to: {cmd_task} → `{command}` (in {dir}); takes about {n2} minutes.
  ? How do I {cmd_task} in {project}?
  ? which command does {cmd_task} for {project}?
gotcha | Insight | tech bugs | 0.5-0.8 | 1
  {tool_a} {version} has a bug with {feature}: {symptom}; {project} pins
  + {version_prev} for now.
  Known issue: {feature} is broken in {tool_a} {version} ({symptom}); stay on
  + {version_prev}.
  ? Which {tool_a} version should {project} use?
  ? what's the bug with {feature} in {tool_a}?
secrets | Fact | tech access | 0.6-0.9 | 0.6
  The {env} credentials for {service} are kept in {vault}, rotated every {n2} days.
  {service} ({env}): credentials live in {vault}; {person_full} rotates them.
  ? Where are the {env} credentials for {service}?
  ? who rotates the {service} keys?
health | Habit | health | 0.6-0.9 | 0.8
  {me} takes {supplement} ({dose}) every {day_time} as advised by Dr. {last_name}.
  Dr. {last_name} told {me_obj} to take {dose} of {supplement} each {day_time}.
  ? What supplement does {name} take?
  ? how much {supplement} should I take?
bill | Fact | money | 0.5-0.8 | 0.8
  {Me_pos} {bill} of {price} {currency} is due on the {nth} of each month, from
  + {account}.
  {bill}: {price} {currency} monthly, paid on the {nth} via {account}.
  ? When is {name}'s {bill} due?
  ? how much is my {bill}?
goal | Context | goals | 0.5-0.8 | 1
  {me} wants to {goal} by {month} {goal_year}; progress: {progress}.
  Goal for {goal_year}: {goal} (by {month}) — currently {progress}.
  ? What is {name}'s goal for {goal_year}?
  ? how is my goal to {goal} going?
meeting | Context | work meetings | 0.4-0.7 | 1
  The {meeting} with {person_full} moved to {day}s at {clock} {tz}, starting {date}.
  From {date}, the {meeting} with {person_full} is on {day} at {clock} ({tz}).
  ? When is the {meeting} with {person_full}?
  ? what day did my {meeting} move to?
work_ask | Context | work tasks | 0.6-0.9 | 1
  {person_full} asked {me_obj} to {work_ask} before {date}.
  To do for {person_full}: {work_ask}, deadline {date}.
  ? What did {person_full} ask {name} to do?
  ? when do I have to {work_ask}?
gift | Context | people gifts | 0.3-0.6 | 0.7
  Gift idea for {person}: {gift} from {store}, around {price} {currency}.
  For {person}'s next birthday {me} wants to get {gift} (about {price} {currency}).
  ? What gift did I want to get {person}?
  ? gift ideas for my {relation} {person}?
book | Preference | books | 0.2-0.5 | 0.7
  {me} finished '{book}' by {author} and rated it {rating}/10: {review}.
  Book: '{book}' ({author}), {rating}/10 from {me_obj} — {review}.
  ? What did {name} think of '{book}'?
  ? how did I rate the book by {author}?
"""


@dataclass(frozen=True, slots=True)
class Template:
    name: str
    type: str
    topics: tuple[str, ...]
    texts: tuple[str, ...]
    questions: tuple[str, ...]
    importance: tuple[float, float] = (0.3, 0.7)
    weight: float = 1.0


def parse_spec(spec: str) -> tuple[Template, ...]:
    """Templates from SPEC's text form."""
    blocks: list[tuple[list[str], list[str]]] = []
    for raw in spec.strip().splitlines():
        line = raw.strip()
        if not raw.startswith(" "):
            blocks.append(([line], []))
        elif line.startswith("+"):
            blocks[-1][0][-1] += " " + line[1:].strip()
        else:
            blocks[-1][0].append(line)
    templates = []
    for lines, _ in blocks:
        name, type_, topics, importance, weight = (part.strip() for part in lines[0].split("|"))
        low, high = (float(x) for x in importance.split("-"))
        texts = tuple(x for x in lines[1:] if not x.startswith("?"))
        questions = tuple(x[1:].strip() for x in lines[1:] if x.startswith("?"))
        templates.append(
            Template(
                name, type_, tuple(topics.split()), texts, questions, (low, high), float(weight)
            )
        )
    return tuple(templates)


TEMPLATES = parse_spec(SPEC)
EXTRA_VOCAB = {
    "routine2": ROUTINES,
    "day_num": tuple(str(n) for n in range(1, 29)),
    "last_name": LAST,
}
VOCAB.update(EXTRA_VOCAB)

GENERIC_QUERIES = (
    "what do I usually eat for dinner?",
    "any upcoming trips?",
    "what did we decide about {project}?",
    "tell me about my family",
    "which databases do my projects use?",
    "what are my morning habits?",
    "health appointments coming up",
    "what do I know about {city}?",
    "who is working on {project}?",
    "what are my favourite restaurants?",
    "what hobbies do my friends have?",
    "open problems in {project}",
    "things I said about money",
    "what music do I like?",
    "recent decisions",
    "what is {person} up to?",
    "how do I deploy {project}?",
    "my goals for this year",
    "allergies I should remember",
    "weekly routine",
    "what tools do I prefer?",
    "meetings that moved",
    "deadlines next month",
    "birthdays to remember",
    "known bugs and workarounds",
)


# --- Generation --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GenMemory:
    """One generated memory and the question that targets it."""

    index: int
    user: int  # index into the personas
    content: str
    type: str
    tags: tuple[str, ...]
    importance: float
    timestamp: str
    template: str
    question: str

    def body(self) -> dict[str, Any]:
        """The POST /memory(/batch) item."""
        return {
            "content": self.content,
            "type": self.type,
            "tags": list(self.tags),
            "importance": self.importance,
            "timestamp": self.timestamp,
        }


@dataclass(frozen=True, slots=True)
class GenQuery:
    text: str
    user: int
    target: int | None  # GenMemory.index, None for a generic query
    kind: str  # "targeted" or "generic"


@dataclass(slots=True)
class Stats:
    count: int = 0
    unique: int = 0
    per_template: dict[str, int] = field(default_factory=dict)

    @property
    def unique_fraction(self) -> float:
        return round(self.unique / self.count, 4) if self.count else 0.0


def contact(first: str, rng: random.Random) -> Contact:
    """A contact: a first name (sometimes with a surname) and a fixed relation."""
    name = f"{first} {rng.choice(LAST)}" if rng.random() < 0.3 else first
    return Contact(name, rng.choice(RELATIONS), "they")


def personas(count: int, seed: int = 7) -> list[Persona]:
    """`count` users with distinct first names, ~60 contacts and 6 projects each."""
    rng = random.Random(f"personas-{seed}")
    names = rng.sample(FIRST, count)
    people = []
    for index, name in enumerate(names):
        others = rng.sample([f for f in FIRST if f != name], 60)
        contacts = tuple(contact(first, rng) for first in others)
        projects = tuple(rng.sample(PROJECTS, 6))
        user_id = f"u{index:02d}-{name.lower()}"
        people.append(Persona(user_id, name, rng.choice(LAST), contacts, projects))
    return people


def timestamp(rng: random.Random, end: datetime = END) -> datetime:
    """A moment in the SPAN_DAYS before `end`, to the second."""
    return end - timedelta(seconds=rng.randint(0, SPAN_DAYS * 86400))


def tags_for(template: Template, slots: Slots) -> tuple[str, ...]:
    """Topic tags, plus project:<name> / person:<name> / city:<name> when the text uses them."""
    tags = list(template.topics)
    if "project" in slots:
        tags.append(f"project:{slots['project'].lower()}")
    if "person" in slots:
        tags.append(f"person:{slots['person'].split()[0].lower()}")
    if "city" in slots:
        tags.append(f"city:{slots['city'].lower().replace(' ', '-')}")
    return tuple(tags)


def placeholders(text: str) -> set[str]:
    """The slot names a template text uses."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def answerable(questions: tuple[str, ...], slots: Slots) -> tuple[str, ...]:
    """The questions that ask only about what the memory's text says (all, if none does)."""
    said = set(slots) | {"name"}
    fitting = tuple(q for q in questions if placeholders(q) <= said)
    return fitting or questions


def one_memory(index: int, user: int, persona: Persona, rng: random.Random) -> GenMemory:
    """The memory number `index` of `persona`, drawn with `rng`."""
    template = rng.choices(TEMPLATES, weights=WEIGHTS)[0]
    moment = timestamp(rng)
    slots = Slots(Draw(rng, persona, moment))
    text = render(rng.choice(template.texts), slots)
    tags = tags_for(template, slots)
    question = render(rng.choice(answerable(template.questions, slots)), slots)
    low, high = template.importance
    return GenMemory(
        index=index,
        user=user,
        content=text[0].upper() + text[1:],
        type=template.type,
        tags=tags,
        importance=round(rng.uniform(low, high), 2),
        timestamp=moment.isoformat().replace("+00:00", "Z"),
        template=template.name,
        question=question[0].upper() + question[1:],
    )


WEIGHTS = tuple(tpl.weight for tpl in TEMPLATES)


def memories(people: list[Persona], count: int, seed: int = 7) -> list[GenMemory]:
    """`count` memories spread evenly over the users (memory i belongs to user i % n)."""
    return list(iter_memories(people, count, seed))


def iter_memories(people: list[Persona], count: int, seed: int = 7) -> Iterator[GenMemory]:
    rng = random.Random(f"memories-{seed}")
    for index in range(count):
        user = index % len(people)
        yield one_memory(index, user, people[user], rng)


def queries(
    people: list[Persona],
    items: list[GenMemory],
    count: int,
    seed: int = 7,
    generic_share: float = 0.2,
) -> list[GenQuery]:
    """`count` queries, users in turn: ~80% target one memory (its paraphrase question), the
    rest are generic questions about the user's world."""
    rng = random.Random(f"queries-{seed}")
    by_user: dict[int, list[GenMemory]] = {}
    for item in items:
        by_user.setdefault(item.user, []).append(item)
    users = sorted(by_user)
    out = []
    for number in range(count):
        user = users[number % len(users)]
        if rng.random() < generic_share:
            slots = Slots(Draw(rng, people[user], END))
            text = render(rng.choice(GENERIC_QUERIES), slots)
            out.append(GenQuery(text[0].upper() + text[1:], user, None, "generic"))
        else:
            target = rng.choice(by_user[user])
            out.append(GenQuery(target.question, user, target.index, "targeted"))
    return out


def stats(items: list[GenMemory]) -> Stats:
    """How many texts, how many distinct, and the count per template."""
    result = Stats(count=len(items), unique=len({m.content for m in items}))
    for item in items:
        result.per_template[item.template] = result.per_template.get(item.template, 0) + 1
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--show", type=int, default=15, help="print this many samples")
    args = parser.parse_args()
    people = personas(args.users, args.seed)
    items = memories(people, args.memories, args.seed)
    summary = stats(items)
    write = sys.stdout.write
    write(f"{summary.count} memories, {summary.unique} unique ({summary.unique_fraction:.2%})\n")
    sample = random.Random(args.seed).sample(items, min(args.show, len(items)))
    for item in sample:
        write(
            f"- [{item.type}; {', '.join(item.tags)}; {item.importance}; {item.timestamp}]\n"
            f"  {item.content}\n  Q: {item.question}\n"
        )
    for query in queries(people, items, min(args.show, 10), args.seed):
        write(f"? ({query.kind}) {query.text}\n")


if __name__ == "__main__":
    main()

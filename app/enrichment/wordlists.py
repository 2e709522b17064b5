"""The vocabularies entity extraction checks names against.

Common words that capitals make look like names (pronouns, stopwords, chat openers, generic nouns
and acronyms, calendar words), honorifics, the suffixes that give a name's kind away, and the
well-known tools (`KNOWN_TOOLS`, matched in any case; `AMBIGUOUS_TOOLS`, only when capitalised).
"""

from app.lexicon import CALENDAR_NAMES, word_set

PRONOUNS = word_set(
    "i i'm i've i'll i'd me my mine we us our ours you your yours he him his she her hers "
    "they them their theirs "
    "it its this that these those who whom whose what which someone somebody everyone everybody "
    "anyone anybody nobody none nothing something everything anything"
)
STOPWORDS = word_set(
    "a an the and or but if so as at by for from in into of on onto to with without about "
    "after before over under via per is are was were be been am do does did have has had will "
    "would can could should may might must not no yes ok okay also just only very too then there "
    "here now when where why how all any some each every both other another such same"
)
# Chat openers and sign-offs that sentence-initial capitals make look like names.
CHAT_WORDS = word_set(
    "hey hi hiya hello bye thanks thank thx ty yeah yea yep yes yup nope nah no ok okay wow whoa "
    "oh ah aw aww oof woah yo dang bummer uh um hmm ugh lol haha hehe omg yay woohoo phew sure "
    "cool great awesome "
    "amazing wonderful lovely sweet nice glad perfect sounds congrats congratulations cheers "
    "please sorry oops honestly basically anyway btw fyi also plus besides maybe well right "
    "alright gotcha "
    "totally absolutely definitely exactly agreed indeed wanna gonna gotta lemme kinda sorta ya "
    "note notes todo reminder decision update incident fix meeting summary agenda action"
)
GENERIC_NOUNS = word_set(
    "user users customer customers client clients team teams company project projects app apps "
    "service server database code repo bug issue task ticket meeting call plan idea thing stuff "
    "new old first last next man dude bro people person guy guys folks everyone mom dad mother "
    "father grandma grandpa sister brother wife husband partner boss manager doctor dentist "
    "intern friend family kids baby "
    "today tomorrow yesterday tonight morning afternoon evening week weekend month year"
)
# Tech words that NER tags as organisations but that name no particular thing.
GENERIC_ACRONYMS = word_set(
    "api apis sdk cli ui ux qa ci cd pr prs mr url uri http https rest json csv xml yaml html css "
    "sql db os cpu gpu ram ssd vpn dns ssh ssl tls pdf okr okrs kpi kpis eta asap eod fyi todo "
    "id ids ai ml llm faq tbd wip am pm usd eur gb mb"
)
CALENDAR_WORDS = CALENDAR_NAMES | word_set(
    "spring summer autumn fall winter "
    "mon tue tues wed thu thur thurs fri sat sun jan feb mar apr jun jul aug sep sept oct nov dec"
)
HONORIFICS = ("Dr", "Mr", "Mrs", "Ms", "Mx", "Prof", "Aunt", "Auntie", "Uncle", "Sir", "Coach")
ORG_SUFFIXES = word_set(
    "inc corp corporation ltd llc plc gmbh co company foundation university college institute "
    "labs bank group partners ventures capital holdings"
)
PLACE_SUFFIXES = word_set(
    "hotel park museum airport station bridge square street avenue road beach lake river "
    "mountains gardens zoo stadium arena mall market cafe café"
)
EVENT_SUFFIXES = (
    "Con",
    "Conf",
    "Conference",
    "Summit",
    "Festival",
    "Fest",
    "Expo",
    "Cup",
    "Olympics",
    "Marathon",
    "Championship",
    "Championships",
    "Hackathon",
    "Awards",
    "Tour",
)
DETERMINERS = "the a an my our your his her their this that these those"

# Well-known software, services and devices. spaCy's small model rarely knows them (Docker is a
# PERSON to it), and a memory service for agents hears about tools constantly. Matched in any case.
KNOWN_TOOLS = word_set(
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
        "github actions",
        "gitlab ci",
        "travis ci",
        "vs code",
        "visual studio",
        "sublime text",
        "google docs",
        "google sheets",
        "google drive",
        "google calendar",
        "apple notes",
        "raspberry pi",
        "nintendo switch",
        "macbook pro",
        "macbook air",
        "apple watch",
        "stable diffusion",
        "power bi",
        "spring boot",
        "ruby on rails",
        "arch linux",
    )
)
# Tool names that are also words or names ("in jest", "Franz Kafka", "a home assistant"): only
# capitalised and not at the start of a sentence, and only as strong as an NER label.
AMBIGUOUS_TOOLS = word_set(
    """
    Go Rust Swift Java Ruby Elixir Bash React Angular Svelte Tailwind Rails Express Spark Flask
    Celery Pandas Jest Prettier Cypress Playwright Selenium Maven Homebrew Kafka Cassandra Helm
    Terraform Prometheus Sentry Vagrant Azure Fedora Jenkins Render Linear Notion Confluence
    Asana Miro Discord Postman Tableau Looker Airflow Copilot Slack Cursor Zoom Excel Chrome
    Firefox Safari Obsidian Kindle Pinecone Snowflake Lambda Windows Outlook Signal Telegram
    Teams Alexa
    """
) | {"Home Assistant", "New Relic"}

"""The word lists of the no-LLM reader and of recall, defined once (lower case).

What a noun is decides which attribute a fact fills: "I have a beagle" is a pet, "I have two
boys" children, "I play the piano" a skill, "we moved to Postgres" a tool and "we moved to
Bristol" a home. The reader's template patterns are built from the same lists
(app/remember/rules/patterns.py), and recall reads its names against `CALENDAR_NAMES`.
A leaf: it imports nothing of Engram's, so every layer may use it.
"""


def word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


PETS = word_set(
    "dog dogs cat cats puppy puppies kitten kittens parrot hamster hamsters rabbit rabbits bunny "
    "bird birds fish goldfish horse pony turtle tortoise snake lizard gecko ferret guinea pig "
    "pigs rat rats mouse mice budgie chicken chickens hen hens pup pups tabby beagle labrador "
    "lab collie spaniel terrier poodle cockapoo cavapoo labradoodle goldendoodle greyhound "
    "whippet husky huskies retriever shepherd dachshund pug bulldog corgi chihuahua schnauzer "
    "boxer rottweiler doberman sheepdog lurcher mutt moggy siamese persian ragdoll sphynx "
    "bengal"
)
CHILDREN = word_set(
    "kid kids child children son sons daughter daughters boy boys girl girls twin twins baby "
    "babies toddler toddlers teenager teenagers teen teens"
)
RELATIONS = word_set(
    "wife husband partner girlfriend boyfriend fiance fiancee fiancé fiancée son daughter "
    "brother sister mum mom mother dad father grandma grandmother grandpa grandfather baby "
    "stepson stepdaughter"
)
# Names of kin, pets and jobs longer than one word (the sets above hold single words).
RELATION_PHRASES = ("best friend",)
PET_PHRASES = ("guinea pig",)
OCCUPATION_PHRASES = ("social worker", "police officer")
SPOUSES = word_set("wife husband")
PARTNERS = word_set("partner girlfriend boyfriend fiance fiancee fiancé fiancée")
OCCUPATIONS = word_set(
    "engineer developer programmer teacher nurse doctor physician surgeon lawyer attorney "
    "designer artist painter writer author journalist editor student accountant manager "
    "scientist researcher chef cook baker barista waiter waitress bartender photographer "
    "musician singer architect consultant analyst pharmacist dentist therapist counselor "
    "counsellor psychologist firefighter pilot professor lecturer mechanic electrician plumber "
    "carpenter farmer veterinarian vet librarian entrepreneur freelancer paramedic translator "
    "cashier realtor contractor intern tutor coach dancer actor actress instructor technician "
    "administrator clerk receptionist officer midwife carer caregiver builder driver "
    "postman postwoman cleaner hairdresser barber solicitor banker economist statistician "
    "marketer recruiter founder ceo cto director lead head owner tester physio optician "
    "surveyor paralegal radiographer sonographer dietitian nutritionist gardener landscaper "
    "welder machinist butcher florist tailor jeweller courier soldier nanny childminder "
    "housekeeper caretaker porter steward stewardess ranger sommelier animator illustrator "
    "copywriter producer presenter broadcaster curator archivist optometrist podiatrist "
    "osteopath chiropractor midwife dentist hygienist"
)
# Occupations recognised by their ending where the list has no entry: "-ologist" (a
# radiologist), "-therapist" (a physiotherapist), "-ician" (an electrician, a beautician).
OCCUPATION_ENDINGS = ("ologist", "therapist", "ician", "engineer", "developer", "designer")
INSTRUMENTS = word_set(
    "guitar piano violin cello drums bass ukulele saxophone sax trumpet flute clarinet harp "
    "keyboard banjo harmonica trombone viola accordion"
)
SPORTS = word_set(
    "football soccer tennis golf rugby cricket basketball baseball hockey squash badminton "
    "volleyball netball chess padel pickleball darts snooker pool polo lacrosse softball"
)
# Verbs that are pastimes in themselves: "I swim", "I knit a lot", "I go hiking".
ACTIVITY_VERBS = word_set(
    "swim run jog hike cycle bike knit crochet sew climb boulder paint draw bake cook garden "
    "surf ski snowboard skate dance sing read write fish golf row box kayak sail meditate "
    "smoke vape drink game"
)
ACTIVITY_NOUNS = word_set(
    "yoga pilates crossfit karate judo taekwondo boxing climbing bouldering running swimming "
    "cycling hiking knitting gardening baking painting photography meditation smoking drinking "
    "parkour zumba spinning rowing fishing gaming"
)
# What someone runs or manages for work ("I manage a bakery"), not "I run a marathon".
BUSINESSES = word_set(
    "bakery cafe café shop restaurant pub bar salon team store business company studio gym "
    "clinic practice department office kitchen farm agency hotel nursery school lab"
)
VEHICLES = word_set("car van motorbike motorcycle truck scooter campervan")
CAR_BRANDS = word_set(
    "honda toyota mazda ford vw volkswagen tesla bmw audi nissan kia hyundai fiat renault "
    "peugeot skoda volvo mini vauxhall subaru mercedes citroen seat lexus jeep porsche"
)
STUDY_NOUNS = word_set(
    "master masters degree phd doctorate bachelor bachelors course diploma mba ba bsc msc ma "
    "apprenticeship"
)
# Areas of a team's stack where one tool replaces another; programming languages add up.
TOOL_AREAS = {
    "database": "mysql postgres postgresql sqlite mongodb mariadb dynamodb oracle cassandra",
    "editor": "vs code vscode neovim vim emacs intellij pycharm sublime zed webstorm",
    "hosting": "heroku fly.io aws gcp azure vercel netlify digitalocean render railway",
    "framework": "django flask fastapi rails laravel react vue angular svelte next.js flutter "
    "spring express",
    "ci": "github actions gitlab ci jenkins circleci travis",
    "programming_language": "python typescript javascript java golang rust kotlin swift ruby "
    "php scala elixir haskell",
}
TOOLS = {
    tool: area
    for area, names in TOOL_AREAS.items()
    for tool in (
        names.replace("vs code", "vs_code")
        .replace("github actions", "github_actions")
        .replace("gitlab ci", "gitlab_ci")
        .split()
    )
}
TOOLS = {tool.replace("_", " "): area for tool, area in TOOLS.items()}
TOOL_SPELLINGS = {"postgresql": "postgres", "vscode": "vs code", "golang": "go"}
# "Go" only counts as a tool where the sentence is about code.
CODE_CONTEXT = word_set("stack code coding backend frontend service services app api written write")
# Capitalised words that follow "I'm" or "call me" without being a name ("I'm Sorry", "I'm Back").
NOT_NAMES = word_set(
    "sorry fine good great okay ok sure back here home done ready happy glad excited tired busy "
    "new single married free hungry late early alright well there in out off up down just so "
    "not also still really very pretty quite bored stuck sick ill lost fine cool"
)
# Conditions a person "has": one list for the parse-based reader and the "I've got …" template,
# so that both key a condition alike (its word, as `condition:<word>`).
CONDITIONS = word_set(
    "diabetes asthma adhd autism arthritis migraines migraine epilepsy eczema ibs anxiety "
    "depression coeliac celiac psoriasis crohn's endometriosis tinnitus"
)
# The speaker in a clause's subject or possessive: "I" and "we" ("my partner and I", "our stack").
SPEAKER_PRONOUNS = word_set("i we")
SPEAKER_POSSESSIVES = word_set("my our")
INDEFINITE_ARTICLES = word_set("a an")
# Month and weekday names: capitalised, never a person ("What did we do in May?").
CALENDAR_NAMES = word_set(
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday "
    "jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun"
)

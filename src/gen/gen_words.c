/* Word lists for generated text (see gen_words.h). */
#include "gen/gen_words.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const char *const gen_first_names[] = {
    "Anna",  "Ben",    "Chen",   "Daria",  "Elif",   "Farid",  "Greta", "Hiro",    "Ines",
    "Jonas", "Kavya",  "Li",     "Mateo",  "Nadia",  "Olu",    "Priya", "Quentin", "Rosa",
    "Sven",  "Tomás",  "Uma",    "Viktor", "Wei",    "Ximena", "Yuki",  "Zoë",     "Amara",
    "Björn", "Carmen", "Dmitri", "Émile",  "Fatima", "Jürgen", "Léa",   "Mei",     "Noah",
};
const size_t gen_n_first_names = COUNT(gen_first_names);

const char *const gen_last_names[] = {
    "Andersson", "Becker", "Castro",  "Dubois",   "Eriksen", "Fischer",  "García",  "Huang",
    "Ivanova",   "Jensen", "Kim",     "López",    "Müller",  "Nakamura", "O'Brien", "Patel",
    "Quinn",     "Rossi",  "Schmidt", "Tanaka",   "Usman",   "Virtanen", "Wang",    "Yilmaz",
    "Zhang",     "Şahin",  "Novák",   "Kowalski", "Nguyen",  "Silva",
};
const size_t gen_n_last_names = COUNT(gen_last_names);

const char *const gen_words[] = {
    "river",  "stone",   "garden", "summer",   "lantern", "harbor",  "maple",   "copper",
    "signal", "window",  "orbit",  "meadow",   "canvas",  "ember",   "glacier", "violet",
    "market", "bridge",  "forest", "thunder",  "pixel",   "saffron", "anchor",  "velvet",
    "recipe", "journey", "notes",  "travel",   "music",   "ideas",   "reading", "photos",
    "café",   "naïve",   "über",   "façade",   "crème",   "旅行",    "美食",    "工作",
    "東京",   "ramen",   "日本語", "Ελληνικά", "привет",  "mañana",  "smörgås", "fjord",
};
const size_t gen_n_words = COUNT(gen_words);

const gen_place gen_places[] = {
    {"DE", "Bavaria", "Munich", "Europe/Berlin"},
    {"DE", "Berlin", "Berlin", "Europe/Berlin"},
    {"FR", "Île-de-France", "Paris", "Europe/Paris"},
    {"US", "California", "San Francisco", "America/Los_Angeles"},
    {"US", "New York", "New York", "America/New_York"},
    {"US", "Texas", "Austin", "America/Chicago"},
    {"GB", "England", "London", "Europe/London"},
    {"JP", "Tokyo", "Tokyo", "Asia/Tokyo"},
    {"CN", "Zhejiang", "Hangzhou", "Asia/Shanghai"},
    {"CN", "Shanghai", "Shanghai", "Asia/Shanghai"},
    {"IN", "Karnataka", "Bengaluru", "Asia/Kolkata"},
    {"BR", "São Paulo", "São Paulo", "America/Sao_Paulo"},
    {"AU", "New South Wales", "Sydney", "Australia/Sydney"},
    {"CA", "Ontario", "Toronto", "America/Toronto"},
    {"ES", "Catalonia", "Barcelona", "Europe/Madrid"},
    {"IT", "Lombardy", "Milan", "Europe/Rome"},
    {"CH", "Zürich", "Zürich", "Europe/Zurich"},
    {"KR", "Seoul", "Seoul", "Asia/Seoul"},
    {"MX", "Jalisco", "Guadalajara", "America/Mexico_City"},
    {"ZA", "Western Cape", "Cape Town", "Africa/Johannesburg"},
    {"SE", "Stockholm", "Stockholm", "Europe/Stockholm"},
    {"NL", "North Holland", "Amsterdam", "Europe/Amsterdam"},
};
const size_t gen_n_places = COUNT(gen_places);

const char *const gen_domains[] = {"example.com", "example.org", "example.net", "test.example"};
const size_t gen_n_domains = COUNT(gen_domains);

const char *const gen_weekdays[7] = {"Monday", "Tuesday",  "Wednesday", "Thursday",
                                     "Friday", "Saturday", "Sunday"};

const char *const gen_map_keys[] = {"en", "de", "fr", "ja", "score", "source", "votes", "notes"};
const size_t gen_n_map_keys = COUNT(gen_map_keys);

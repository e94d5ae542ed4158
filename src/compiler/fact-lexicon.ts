/**
 * Word lists the fact patterns match against. They are closed lists on purpose: an open
 * pattern such as "I'm a ⟨noun⟩" would read "I'm a big fan" or "I'm an optimist" as a job.
 */

/** Occupations and titles, matched on the last word of a role phrase ("senior software engineer"). */
export const OCCUPATIONS = new Set([
  'accountant', 'actor', 'actress', 'admin', 'administrator', 'advisor', 'adviser', 'analyst', 'architect',
  'artist', 'assistant', 'associate', 'attorney', 'auditor', 'author', 'baker', 'banker', 'barber', 'barista',
  'bartender', 'biologist', 'blogger', 'bookkeeper', 'builder', 'butcher', 'carpenter', 'cashier', 'ceo',
  'cfo', 'chef', 'chemist', 'cio', 'cleaner', 'clerk', 'coach', 'consultant', 'contractor', 'cook', 'coo',
  'coordinator', 'copywriter', 'counselor', 'counsellor', 'cto', 'dancer', 'dentist', 'designer', 'developer',
  'dietitian', 'director', 'doctor', 'driver', 'economist', 'editor', 'educator', 'electrician', 'engineer',
  'entrepreneur', 'executive', 'farmer', 'firefighter', 'founder', 'co-founder', 'cofounder', 'freelancer',
  'gardener', 'geologist', 'hairdresser', 'historian', 'illustrator', 'influencer', 'instructor', 'intern',
  'investor', 'janitor', 'journalist', 'judge', 'lawyer', 'lecturer', 'librarian', 'lead', 'lifeguard',
  'manager', 'marketer', 'mechanic', 'medic', 'midwife', 'musician', 'nanny', 'nurse', 'officer', 'owner',
  'paralegal', 'paramedic', 'partner', 'pharmacist', 'photographer', 'physician', 'physicist', 'physiotherapist',
  'pilot', 'plumber', 'poet', 'politician', 'president', 'principal', 'producer', 'professor', 'programmer',
  'psychologist', 'realtor', 'receptionist', 'recruiter', 'representative', 'researcher', 'salesperson',
  'scientist', 'secretary', 'singer', 'soldier', 'specialist', 'statistician', 'student', 'supervisor',
  'surgeon', 'teacher', 'technician', 'therapist', 'translator', 'trainer', 'tutor', 'veterinarian', 'vet',
  'vp', 'waiter', 'waitress', 'webmaster', 'writer', 'youtuber', 'streamer', 'sysadmin', 'devops', 'sre',
  'mathematician', 'astronaut', 'veteran', 'volunteer', 'retiree', 'homemaker', 'caregiver', 'guard',
]);

/** Tier names of subscription plans, recognised before "plan"/"tier"/"subscription". */
export const PLAN_TIERS = new Set([
  'free', 'basic', 'starter', 'standard', 'pro', 'plus', 'premium', 'business', 'team', 'teams', 'enterprise',
  'professional', 'growth', 'scale', 'ultimate', 'personal', 'individual', 'family', 'student', 'startup',
  'advanced', 'essentials', 'essential', 'core', 'lite', 'max', 'unlimited', 'gold', 'silver', 'bronze',
  'platinum', 'developer', 'hobby', 'trial', 'annual', 'monthly', 'yearly', 'org', 'organization',
]);

/**
 * Tier names recognised without a following "plan" ("upgraded to Enterprise"). Ordinary words
 * such as "team", "family" or "plus" are left out: "I'm on the team" is no subscription.
 */
export const BARE_TIERS = new Set([
  'free', 'basic', 'starter', 'pro', 'premium', 'enterprise', 'professional', 'trial', 'growth', 'ultimate',
  'unlimited', 'platinum', 'essentials', 'lite',
]);

export const LANGUAGES = new Set([
  'english', 'spanish', 'french', 'german', 'portuguese', 'italian', 'dutch', 'swedish', 'norwegian', 'danish',
  'finnish', 'polish', 'czech', 'slovak', 'hungarian', 'romanian', 'greek', 'turkish', 'russian', 'ukrainian',
  'arabic', 'hebrew', 'persian', 'farsi', 'hindi', 'urdu', 'bengali', 'punjabi', 'tamil', 'telugu', 'marathi',
  'chinese', 'mandarin', 'cantonese', 'japanese', 'korean', 'vietnamese', 'thai', 'indonesian', 'malay',
  'tagalog', 'filipino', 'swahili', 'afrikaans', 'catalan', 'basque', 'irish', 'welsh', 'icelandic', 'latin',
  'bulgarian', 'serbian', 'croatian', 'slovenian', 'lithuanian', 'latvian', 'estonian', 'sign language', 'asl',
]);

/** Contact channels, each mapped to the one name stored as the preference value. */
export const CONTACT_CHANNELS: Record<string, string> = {
  email: 'email', 'e-mail': 'email', emails: 'email', mail: 'email',
  phone: 'phone', 'phone call': 'phone', 'phone calls': 'phone', call: 'phone', calls: 'phone', telephone: 'phone',
  text: 'text message', texts: 'text message', 'text message': 'text message', 'text messages': 'text message',
  sms: 'text message', texting: 'text message',
  whatsapp: 'WhatsApp', telegram: 'Telegram', signal: 'Signal', slack: 'Slack', 'microsoft teams': 'Microsoft Teams',
  chat: 'chat', 'live chat': 'chat', 'in-app chat': 'chat', 'video call': 'video call', zoom: 'video call',
  post: 'post', letter: 'post', 'in person': 'in person',
};

/** Family relations, singular; plurals are folded by the pattern. */
export const RELATIONS = [
  'wife', 'husband', 'partner', 'spouse', 'boyfriend', 'girlfriend', 'fiance', 'fiancee', 'fiancé', 'fiancée',
  'son', 'daughter', 'kid', 'kids', 'children', 'child', 'baby', 'twins', 'stepson', 'stepdaughter',
  'sister', 'brother', 'siblings', 'mom', 'mum', 'mother', 'dad', 'father', 'parents', 'grandma',
  'grandmother', 'grandpa', 'grandfather', 'grandparents', 'grandson', 'granddaughter', 'grandkids',
  'grandchildren', 'aunt', 'uncle', 'cousin', 'niece', 'nephew', 'stepmom', 'stepdad', 'mother-in-law',
  'father-in-law', 'sons', 'daughters', 'sisters', 'brothers', 'cousins',
];

export const PETS = [
  'dog', 'dogs', 'puppy', 'pup', 'cat', 'cats', 'kitten', 'kitty', 'parrot', 'bird', 'hamster', 'rabbit', 'bunny',
  'guinea pig', 'goldfish', 'fish', 'horse', 'pony', 'turtle', 'tortoise', 'snake', 'lizard', 'gecko', 'ferret',
  'chinchilla', 'rat', 'pig', 'goat', 'chickens', 'budgie', 'cockatiel', 'iguana', 'hedgehog',
];

/** Instruments and sports that "I play ⟨x⟩" names as a hobby. */
export const PLAYABLES = new Set([
  'guitar', 'piano', 'violin', 'viola', 'cello', 'drums', 'bass', 'ukulele', 'saxophone', 'sax', 'flute',
  'clarinet', 'trumpet', 'trombone', 'harp', 'keyboard', 'banjo', 'harmonica', 'accordion', 'tennis',
  'soccer', 'football', 'basketball', 'baseball', 'volleyball', 'hockey', 'golf', 'chess', 'badminton',
  'cricket', 'rugby', 'poker', 'squash', 'pickleball', 'softball', 'handball', 'lacrosse', 'ping pong',
  'table tennis', 'video games', 'games', 'board games', 'dnd', 'd&d', 'dungeons and dragons', 'frisbee',
]);

/** Device families by the class they fill: a new phone replaces the old phone, not the laptop. */
export const DEVICE_CLASSES: { cls: string; pattern: string }[] = [
  { cls: 'tablet', pattern: "ipad(?:\\s+(?:pro|air|mini))?|galaxy\\s+tab(?:\\s+\\w+)?|kindle(?:\\s+\\w+)?|surface\\s+go|android\\s+tablet" },
  { cls: 'phone', pattern: "iphone(?:\\s+(?:\\d{1,2}|x[rs]?|se|pro|max|plus|mini)){0,3}|pixel(?:\\s+(?:\\d{1,2}a?|pro|xl|fold)){1,2}|galaxy\\s+(?:s|a|z|note)\\s?\\d{0,2}(?:\\s+(?:ultra|plus|fold|flip))?|oneplus(?:\\s+\\d{1,2})?|android\\s+phone|android|motorola|xiaomi\\s+\\w+|huawei\\s+\\w+" },
  { cls: 'computer', pattern: "macbook(?:\\s+(?:pro|air))?(?:\\s+m\\d)?|imac|mac\\s+(?:mini|studio)|mac(?!\\s*(?:and|n|&|'n')\\b)|windows\\s+(?:pc|laptop|machine|computer)|chromebook|thinkpad|dell\\s+\\w+|surface\\s+(?:pro|laptop)(?:\\s+\\d)?|linux\\s+(?:box|machine|laptop|pc)" },
  { cls: 'browser', pattern: "chrome|firefox|safari|microsoft\\s+edge|brave|opera|vivaldi" },
  { cls: 'operating system', pattern: "windows\\s+(?:7|8|10|11|xp|vista)|macos(?:\\s+\\w+)?|ios\\s+\\d{1,2}|android\\s+\\d{1,2}|linux|ubuntu|chromeos" },
];

/** Single-word identities matched after "I'm (a)". */
export const IDENTITIES = new Set([
  'transgender', 'trans', 'nonbinary', 'non-binary', 'gay', 'lesbian', 'bisexual', 'queer', 'asexual', 'pansexual',
  'genderqueer', 'genderfluid', 'intersex',
]);

export const DIETS: Record<string, string> = {
  vegetarian: 'vegetarian', vegan: 'vegan', pescatarian: 'pescatarian', 'gluten-free': 'gluten-free',
  'gluten free': 'gluten-free', 'lactose intolerant': 'lactose intolerant', 'dairy-free': 'dairy-free',
  'dairy free': 'dairy-free', keto: 'keto', celiac: 'celiac', coeliac: 'celiac', diabetic: 'diabetic',
  kosher: 'kosher', halal: 'halal', paleo: 'paleo',
};

/** Nationalities and similar, which "I'm ⟨Capitalised⟩" names instead of a person's name. */
export const DEMONYMS = new Set([
  'american', 'canadian', 'mexican', 'brazilian', 'argentinian', 'argentine', 'chilean', 'colombian', 'peruvian',
  'venezuelan', 'cuban', 'jamaican', 'british', 'english', 'irish', 'scottish', 'welsh', 'french', 'german',
  'spanish', 'portuguese', 'italian', 'dutch', 'belgian', 'swiss', 'austrian', 'swedish', 'norwegian', 'danish',
  'finnish', 'icelandic', 'polish', 'czech', 'slovak', 'hungarian', 'romanian', 'bulgarian', 'greek', 'turkish',
  'russian', 'ukrainian', 'serbian', 'croatian', 'lithuanian', 'latvian', 'estonian', 'israeli', 'iranian',
  'iraqi', 'syrian', 'lebanese', 'egyptian', 'moroccan', 'algerian', 'tunisian', 'nigerian', 'ghanaian', 'kenyan',
  'ethiopian', 'south african', 'indian', 'pakistani', 'bangladeshi', 'sri lankan', 'nepali', 'chinese',
  'japanese', 'korean', 'vietnamese', 'thai', 'filipino', 'filipina', 'indonesian', 'malaysian', 'singaporean',
  'australian', 'kiwi', 'scandinavian', 'european', 'asian', 'african', 'latino', 'latina', 'hispanic',
]);

import { extractAgentFacts, extractAnswerFact, extractFacts, statementParts } from './fact-patterns';

/** "key = value" lines, for compact expectations. */
const facts = (sentence: string): string[] => extractFacts(sentence).map((f) => `${f.key} = ${f.value}`);

describe('extractFacts: who the customer is', () => {
  it.each([
    ['My name is Juno Marsh', ['profile:name = Juno Marsh']],
    ["My name is Juno Marsh and I'm on the Pro plan.", ['profile:name = Juno Marsh', 'profile:plan = Pro']],
    ['my name is juno marsh', ['profile:name = Juno Marsh']],
    ["Hi, I'm Juno from Acme Corp.", ['profile:name = Juno', 'profile:company = Acme Corp']],
    ['Please call me Jay.', ['profile:preferred_name = Jay']],
    ['Me llamo Ana García.', ['profile:name = Ana García']],
    ['My new email is juno@example.com', ['profile:email = juno@example.com']],
    ['Please update my email to juno.m@newco.io', ['profile:email = juno.m@newco.io']],
    ['My work email is jm@acme.io', ['profile:work_email = jm@acme.io']],
    ['You can reach me at +1 (555) 123-4567.', ['profile:phone = +1 (555) 123-4567']],
    ['My account number is AC-99812', ['profile:account_id = AC-99812']],
    ['my username is juno_m', ['profile:username = juno_m']],
    ["As I said before, I'm on the Pro plan.", ['profile:plan = Pro']],
    ["I'm Canadian, so please bill in CAD.", ['profile:nationality = Canadian']],
    ['My manager is Dana Scully.', ['contact:manager = Dana Scully']],
    ['My card ends in 4242.', ['profile:payment_card = card ending 4242']],
  ])('%s', (sentence, expected) => {
    expect(facts(sentence)).toEqual(expected);
  });
});

describe('extractFacts: one clause per fact', () => {
  const clauses = (sentence: string): string[] => extractFacts(sentence).map((f) => f.clause);
  it.each([
    ['My name is Juno Marsh and I live in Tromso', ['My name is Juno Marsh', 'I live in Tromso']],
    ["My name is Juno Marsh and I'm on the Pro plan.", ['My name is Juno Marsh', "I'm on the Pro plan."]],
    ['Hi, my name is Juno Marsh.', ['My name is Juno Marsh.']],
    ['My favorite color is teal and my office is in building 7', ['My favorite color is teal']],
    ["I'm on the Pro plan, can I upgrade?", ["I'm on the Pro plan"]],
    ["I'm the CTO at Initech", ["I'm the CTO at Initech", "I'm the CTO at Initech"]],
    ['I live in Oslo; my manager is Dana Scully.', ['I live in Oslo', 'My manager is Dana Scully.']],
  ])('%s', (sentence, expected) => {
    expect(clauses(sentence)).toEqual(expected);
  });
});

describe('extractFacts: work, plan and place', () => {
  it.each([
    ["I'm the CTO at Initech.", ['profile:role = CTO', 'profile:company = Initech']],
    ['I work as a senior software engineer at Google.', ['profile:role = senior software engineer', 'profile:company = Google']],
    ['I work at a bakery.', ['profile:company = a bakery']],
    ["I'm currently a student at MIT.", ['profile:role = student', 'profile:school = MIT']],
    ['My job title is Senior Data Analyst.', ['profile:role = Senior Data Analyst']],
    ['Lost my job as a banker yesterday.', ['profile:previous_role = banker']],
    ['I also lost my job at Door Dash this month.', ['profile:previous_company = Door Dash']],
    ["I'm retired.", ['profile:role = retired']],
    ['We upgraded to Enterprise last week.', ['profile:plan = Enterprise']],
    ["We're on the business tier.", ['profile:plan = Business']],
    ['My subscription is Premium.', ['profile:plan = Premium']],
    ["I'm on the Pro plan, can I upgrade to Enterprise?", ['profile:plan = Pro']],
    ['I live in San Francisco, CA and work remotely.', ['profile:location = San Francisco, CA']],
    ["I'm based out of Berlin, Germany.", ['profile:location = Berlin, Germany']],
    ['I moved to Denver last year.', ['profile:location = Denver']],
    ["I'm originally from Sweden.", ['profile:hometown = Sweden']],
    ['I grew up in Lagos.', ['profile:hometown = Lagos']],
    ["I'm in PST so mornings are hard.", ['profile:timezone = PST']],
    ['My timezone is Europe/Berlin.', ['profile:timezone = Europe/Berlin']],
  ])('%s', (sentence, expected) => {
    expect(facts(sentence)).toEqual(expected);
  });
});

describe('extractFacts: contact and language preferences, devices', () => {
  it.each([
    ['I prefer email.', ['profile:contact_preference = email']],
    ["I'd rather be contacted via text message.", ['profile:contact_preference = text message']],
    ['Email works best for me.', ['profile:contact_preference = email']],
    ["I'm only available after 5pm on weekdays.", ['profile:availability = available after 5pm on weekdays']],
    ['Please reply in Spanish.', ['profile:language = Spanish']],
    ['I speak French and German.', ['language_spoken:french = French', 'language_spoken:german = German']],
    ["I'm on my iPhone 14.", ['device:phone = iPhone 14']],
    ['I switched to Firefox.', ['device:browser = Firefox']],
  ])('%s', (sentence, expected) => {
    expect(facts(sentence)).toEqual(expected);
  });
});

describe('extractFacts: personal life', () => {
  it.each([
    ['I love sushi.', ['preference:sushi = sushi']],
    ['I hate sushi.', ['preference:sushi = sushi']],
    ['I love hiking and camping.', ['preference:hik = hiking', 'preference:camp = camping']],
    ["I'm a big fan of pottery - the creativity is awesome.", ['preference:potteri = pottery']],
    ["I'm not a fan of horror movies.", ['preference:horror movi = horror movies']],
    ['My favorite color is blue.', ['favorite:color = blue']],
    ['I love all dances, but contemporary is my top pick.', ['preference:danc = all dances', 'preference:contemporari = contemporary']],
    ['My hobbies are knitting and baking.', ['hobby:knit = knitting', 'hobby:bak = baking']],
    ['In my spare time I like to paint.', ['hobby:paint = paint']],
    ['Yeah, I play clarinet!', ['hobby:clarinet = clarinet']],
    ['I have two kids and a dog named Rex.', ['family:count:children = two kids']],
    ['My husband is a teacher.', ['family:husband = husband']],
    ['My son Max turned five.', ['family:son:max = son Max']],
    ['Oscar, my guinea pig, is great.', ['pet:guinea pig:oscar = guinea pig Oscar']],
    ['I got a new cat named Luna!', ['pet:cat:luna = cat Luna']],
    ["I'm married.", ['profile:relationship_status = married']],
    ["I'm vegetarian.", ['profile:diet = vegetarian']],
    ["I'm allergic to peanuts and shellfish.", ['allergy:peanut = peanuts', 'allergy:shellfish = shellfish']],
    ["I'm 34 years old.", ['profile:age = 34']],
    ['My birthday is March 3rd.', ['profile:birthday = March 3rd']],
    ['My pronouns are she/her.', ['profile:pronouns = she/her']],
    ["I'm a trans woman.", ['identity:tran = trans woman']],
    ['My goal is to run a marathon.', ['goal:run marathon = run a marathon']],
    ["I'm starting a dance studio.", ['business:danc studio = dance studio']],
    ['I just launched an ad campaign for my clothing store.', ['business:cloth stor = clothing store']],
    ['Cooking and baking are my creative outlets.', ['preference:cook bak = Cooking and baking']],
    ["I'm learning German now.", ['learning:german = German']],
  ])('%s', (sentence, expected) => {
    expect(facts(sentence)).toEqual(expected);
  });

  it('labels likes and dislikes of the same object under one key', () => {
    const [love] = extractFacts('I love sushi.');
    const [hate] = extractFacts('I hate sushi.');
    expect(love.key).toBe(hate.key);
    expect([love.label, hate.label]).toEqual(['likes', 'dislikes']);
  });

  it('gives explicit statements more confidence than loose ones', () => {
    const [name] = extractFacts('My name is Juno.');
    const [like] = extractFacts('I like tea.');
    expect(name.confidence).toBeGreaterThan(like.confidence);
  });

  it('lowers confidence of hedged statements', () => {
    const [sure] = extractFacts("I'm on the Pro plan.");
    const [hedged] = extractFacts("I think I'm on the Pro plan.");
    expect(hedged.confidence).toBeLessThan(sure.confidence);
  });
});

describe('extractFacts: what is not a fact', () => {
  it.each([
    'What is your name?',
    'Do you like tea?',
    'I love it!',
    'I love how you did that.',
    "I'd love to see it.",
    'I love your painting.',
    'I love escaping to that world.',
    'If I were on the Pro plan I would be happier.',
    "I don't think I'm on the Pro plan.",
    'I want to upgrade to Enterprise.',
    'I have free time on Sundays.',
    "I'm on the team now.",
    "I'm a big fan.",
    "I'm a huge Harry Potter fan.",
    'This is Paris! Isn’t it beautiful?',
    "It's Seattle, I'm stoked for my game there.",
    "I'm in awe of your courage as a trans person.",
    'Here is a photo of my horse painting.',
    'I have a Google account.',
    'I want to open a ticket about my invoice.',
    'My friend said her name is Ana.',
    "She said I'm on the Pro plan.",
    "I'm Tired, really.",
    'Being my own boss and doing something I love is awesome.',
    'I went to my local shop.',
    "Don't quit, failures lead you closer to success.",
  ])('%s', (sentence) => {
    expect(facts(sentence)).toEqual([]);
  });
});

describe('statementParts', () => {
  it('keeps statements, drops questions, and keeps the content of polite requests', () => {
    expect(statementParts('I love sushi, do you?')).toEqual(['I love sushi']);
    expect(statementParts('What do you think?')).toEqual([]);
    expect(statementParts('Can you update my email to a@b.io?')).toEqual(['Can you update my email to a@b.io?']);
  });
});

describe('extractAgentFacts', () => {
  it('takes the account changes an agent confirms', () => {
    expect(extractAgentFacts("I've upgraded your account to Enterprise.").map((f) => `${f.key} = ${f.value}`)).toEqual([
      'profile:plan = Enterprise',
    ]);
    expect(extractAgentFacts('Your email has been updated to new@x.io.').map((f) => f.value)).toEqual(['new@x.io']);
  });

  it('ignores what agents say about themselves or the product', () => {
    expect(extractAgentFacts("My name is Sam and I'm on the support team.")).toEqual([]);
    expect(extractAgentFacts('Our Pro plan includes 10 seats.')).toEqual([]);
  });
});

describe('extractAnswerFact', () => {
  it.each([
    ["What's your email address?", 'sure, it is juno@x.io', 'profile:email = juno@x.io'],
    ['Can I get your name?', "It's Juno Marsh", 'profile:name = Juno Marsh'],
    ['What is your account number?', 'AC-99812', 'profile:account_id = AC-99812'],
    ['Which plan are you on?', 'the Pro plan', 'profile:plan = Pro'],
    ['What is the best phone number to reach you?', '555 123 4567', 'profile:phone = 555 123 4567'],
  ])('%s → %s', (question, answer, expected) => {
    const fact = extractAnswerFact(question, answer);
    expect(fact === null ? null : `${fact.key} = ${fact.value}`).toBe(expected);
  });

  it('ignores long replies and non-questions', () => {
    expect(extractAnswerFact("What's your name?", 'well it is a long story that I will tell you another day if you have the time')).toBeNull();
    expect(extractAnswerFact('Thanks, noted.', 'Juno')).toBeNull();
  });
});

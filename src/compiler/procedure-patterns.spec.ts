import {
  confirmsFix,
  extractInstructions,
  findStepLists,
  howToTopic,
  inlineSteps,
  isImperative,
  renderSteps,
  reportsFailure,
  suggestion,
  toDoSteps,
} from './procedure-patterns';

describe('extractInstructions', () => {
  it.each([
    ['Always CC my manager Dana on billing emails.', 'instruction:cc:manager'],
    ["Please don't call me before 9am.", 'instruction:contact:call'],
    ['Only email me.', 'instruction:contact:email'],
    ['Call me after 5pm on weekdays.', 'instruction:contact:call'],
    ['From now on, send all invoices to billing@acme.io.', 'instruction:send:invoic'],
    ['Never auto-renew my subscription.', 'instruction:billing'],
    ['Always leave packages at the back door.', 'instruction:delivery'],
    ['Please always use my work email.', null],
    ["I'd prefer you didn't text me.", 'instruction:contact:text'],
    ['Could you always copy my assistant on these?', 'instruction:cc:assistant'],
  ])('%s', (sentence, key) => {
    const [instruction, ...more] = extractInstructions(sentence);
    expect(more).toEqual([]);
    expect(instruction.key).toBe(key);
    expect(instruction.content).toBe(sentence);
    expect(instruction.summary.startsWith('instruction: ')).toBe(true);
  });

  it.each([
    "Don't quit, failures lead you closer to success.",
    'Never give up!',
    'I always call my mom on Sundays.',
    'Do you ever email customers?',
    'Next time you should come with us!',
    'Please send me the invoice.',
    'They were part of my wedding decor and always remind me of that day.',
  ])('is not an instruction: %s', (sentence) => {
    expect(extractInstructions(sentence)).toEqual([]);
  });

  it('finds each instruction of a sentence that holds several', () => {
    expect(extractInstructions('Only email me, never call.').map((f) => f.key)).toEqual([
      'instruction:contact:email',
      'instruction:contact:call',
    ]);
    const found = extractInstructions("Please don't call me before 9am, and always CC my manager Dana on invoices.");
    expect(found.map((f) => f.summary)).toEqual([
      "instruction: please don't call me before 9am",
      'instruction: always CC my manager Dana on invoices',
    ]);
  });

  it('rates always/never/from-now-on higher than a plain request', () => {
    const [never] = extractInstructions('Never call me.');
    const [dont] = extractInstructions("Don't call me.");
    expect(never.confidence).toBeGreaterThan(dont.confidence);
  });
});

describe('findStepLists', () => {
  it('finds a numbered list of imperative steps and its intro line', () => {
    const text = 'To reset your password:\n1. Go to Settings\n2. Click **Reset password**\n\n3. Check your inbox';
    expect(findStepLists(text)).toEqual([
      { intro: 'To reset your password:', steps: ['Go to Settings', 'Click Reset password', 'Check your inbox'], line: 1 },
    ]);
  });

  it('accepts bullets and "Step 1:" markers', () => {
    expect(findStepLists('- Unplug the router\n- Wait 30 seconds\n- Plug it back in')[0].steps).toHaveLength(3);
    expect(findStepLists('Step 1: Open the app\nStep 2: Tap Sync')[0].steps).toEqual(['Open the app', 'Tap Sync']);
  });

  it('ignores lists that are not steps and single items', () => {
    expect(findStepLists('Plans:\n- Pro: $20\n- Enterprise: call us')).toEqual([]);
    expect(findStepLists('1. Go to Settings')).toEqual([]);
  });
});

describe('howToTopic', () => {
  it.each([
    ['To reset your password:', 'reset your password'],
    ['How do I export my data?', 'export my data'],
    ['Here are the steps to cancel a subscription.', 'cancel a subscription'],
    ['Here you go:', null],
  ])('%s', (text, topic) => {
    expect(howToTopic(text)).toBe(topic);
  });
});

describe('one-sentence how-tos', () => {
  it('reads "first … then …" sequences of imperative steps', () => {
    expect(inlineSteps('First clear the cache, then restart the app, and finally log in again.')).toEqual([
      'clear the cache',
      'restart the app',
      'log in again',
    ]);
    expect(inlineSteps('First I went to the store, then I went home.')).toBeNull();
  });

  it('reads "To X, do Y" sentences', () => {
    expect(toDoSteps('To export your data, go to Settings > Privacy and click Export.')).toEqual({
      topic: 'export your data',
      steps: ['go to Settings > Privacy and click Export'],
    });
    expect(toDoSteps('To be honest, I love it.')).toBeNull();
  });
});

describe('isImperative', () => {
  it.each([
    ['Restart the router', true],
    ['Then go to Settings', true],
    ['If it fails, reinstall the app', true],
    ['I restarted it', false],
    ['Pro: $20', false],
  ])('%s → %s', (text, expected) => {
    expect(isImperative(text)).toBe(expected);
  });
});

describe('suggestion', () => {
  it.each([
    ['Sorry about that! Try restarting the router.', 'Try restarting the router'],
    ['Could you try clearing your browser cache?', 'try clearing your browser cache'],
    ['You should reinstall the app.', 'reinstall the app'],
    ['Then log out and back in.', 'log out and back in'],
    ['Could you confirm your email address?', null],
    ['What is your account number?', null],
    ['I have escalated this to our team.', null],
  ])('%s', (sentence, expected) => {
    expect(suggestion(sentence)).toBe(expected);
  });
});

describe('confirmsFix and reportsFailure', () => {
  it.each(['That worked, thanks!', 'It works now', 'Perfect, the problem is solved.', 'Yes! That fixed it.'])('success: %s', (text) => {
    expect(confirmsFix(text)).toBe(true);
  });

  it.each(["That didn't work.", 'Still not working', 'No luck, same error.'])('failure: %s', (text) => {
    expect(confirmsFix(text)).toBe(false);
    expect(reportsFailure(text)).toBe(true);
  });
});

describe('renderSteps', () => {
  it('numbers steps under the heading and stays within the budget', () => {
    expect(renderSteps('How to sync:', ['Open the app', 'Tap Sync'])).toBe('How to sync:\n1. Open the app\n2. Tap Sync');
    const long = renderSteps(null, Array.from({ length: 20 }, (_, i) => `Step ${i} ${'x'.repeat(100)}`), 700);
    expect(long.length).toBeLessThanOrEqual(700);
  });
});

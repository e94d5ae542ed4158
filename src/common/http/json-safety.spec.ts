import { findJsonProblem, MAX_JSON_DEPTH, scanJsonShape } from './json-safety';

describe('findJsonProblem', () => {
  it('accepts ordinary JSON including emoji and astral characters', () => {
    expect(findJsonProblem({ a: ['héllo 🔴', 1.5, null, true, { b: '𝄞' }] })).toBeNull();
  });

  it('names the path of a NUL byte in a value or a key', () => {
    expect(findJsonProblem({ a: { b: ['ok', 'x\u0000y'] } })?.loc).toEqual(['a', 'b', 1]);
    expect(findJsonProblem({ 'k\u0000': 1 })?.msg).toMatch(/NUL/);
  });

  it('rejects lone surrogates but not valid pairs', () => {
    expect(findJsonProblem('\ud83d')?.msg).toMatch(/surrogate/);
    expect(findJsonProblem('a\udc00')?.msg).toMatch(/surrogate/);
    expect(findJsonProblem('\ud83d\ude00')).toBeNull();
  });

  it('rejects non-finite numbers and nesting past the limit without recursion', () => {
    expect(findJsonProblem({ n: Infinity })?.loc).toEqual(['n']);
    let deep: unknown = 1;
    for (let i = 0; i < MAX_JSON_DEPTH + 1; i++) deep = [deep];
    expect(findJsonProblem(deep)?.type).toBe('too_deep');
    let veryDeep: unknown = 1;
    for (let i = 0; i < 100000; i++) veryDeep = { a: veryDeep };
    expect(findJsonProblem(veryDeep)?.type).toBe('too_deep');
  });
});

describe('scanJsonShape', () => {
  it('counts values and depth from the text, ignoring brackets and commas inside strings', () => {
    expect(scanJsonShape('{"a": [1, 2, {"b": "x,[{y"}]}')).toEqual({ problem: null, values: 6 });
    expect(scanJsonShape('"a\\"[,"')).toEqual({ problem: null, values: 1 });
  });

  it('counts exactly as a walk over every character does, escapes and unterminated strings included', () => {
    // The scan jumps from a string's opening quote to its closing one; this is the plain walk.
    const walk = (text: string, maxNodes = 100_000, maxDepth = MAX_JSON_DEPTH) => {
      let depth = 0;
      let nodes = 1;
      let inString = false;
      for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (inString) {
          if (c === '\\') i++;
          else if (c === '"') inString = false;
          continue;
        }
        if (c === '"') inString = true;
        else if (c === '[' || c === '{') {
          if (++depth > maxDepth) return { type: 'too_deep', values: nodes };
          nodes++;
        } else if (c === ']' || c === '}') depth--;
        else if (c === ',') nodes++;
        if (nodes > maxNodes) return { type: 'too_many_values', values: nodes };
      }
      return { type: null, values: nodes };
    };
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const alphabet = ['"', '\\', '[', ']', '{', '}', ',', 'a', ' ', ':'];
    for (let n = 0; n < 5000; n++) {
      const text = Array.from({ length: Math.floor(random() * 40) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      const got = scanJsonShape(text, 12, 6);
      expect({ type: got.problem?.type ?? null, values: got.values }).toEqual(walk(text, 12, 6));
    }
  });

  it('stops at the value cap or the depth limit without parsing', () => {
    expect(scanJsonShape(`[${'0,'.repeat(10)}0]`, 5).problem?.type).toBe('too_many_values');
    expect(scanJsonShape('['.repeat(MAX_JSON_DEPTH + 1)).problem?.type).toBe('too_deep');
    expect(scanJsonShape('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH)).problem).toBeNull();
  });
});

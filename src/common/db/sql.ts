/**
 * A tiny tagged-template SQL builder: interpolated values become numbered parameters, so hot
 * queries can be written out in full and still never concatenate input into SQL text.
 */
export class SqlFragment {
  constructor(
    readonly strings: readonly string[],
    readonly values: readonly unknown[],
  ) {}
}

export function sql(strings: TemplateStringsArray, ...values: unknown[]): SqlFragment {
  return new SqlFragment([...strings], values);
}

/** Trusted SQL text written in our code (identifiers, keywords). Never pass input here. */
export function raw(text: string): SqlFragment {
  return new SqlFragment([text], []);
}

export function join(fragments: SqlFragment[], separator = ', '): SqlFragment {
  if (fragments.length === 0) return raw('');
  const strings: string[] = [''];
  const values: unknown[] = [];
  fragments.forEach((f, i) => {
    if (i > 0) strings[strings.length - 1] += separator;
    values.push(f);
    strings.push('');
  });
  return new SqlFragment(strings, values);
}

export function compile(fragment: SqlFragment): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const walk = (f: SqlFragment): string => {
    let text = f.strings[0];
    f.values.forEach((v, i) => {
      if (v instanceof SqlFragment) text += walk(v);
      else {
        values.push(v);
        text += `$${values.length}`;
      }
      text += f.strings[i + 1];
    });
    return text;
  };
  return { text: walk(fragment), values };
}

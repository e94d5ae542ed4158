import { parseArgs } from 'node:util';

type OptionSpec = { type: 'string'; multiple?: boolean } | { type: 'boolean' };
type Options = Record<string, OptionSpec>;
type Values<O extends Options> = {
  [K in keyof O]?: O[K] extends { type: 'boolean' } ? boolean : O[K] extends { multiple: true } ? string[] : string;
};

/**
 * The one argument parser of the command line: Node's `util.parseArgs`, strict (an unknown
 * option is an error), with two rules the commands have always had:
 * - a string option takes the next argument as its value unless that starts with `--`, so
 *   `--days -1` reaches the command's own check ("must be a number of days"), not a parser error;
 * - a bare negative number is a positional (`migrate downgrade -1`).
 * Errors say which option is wrong, in the commands' words ("--id needs a value").
 */
export function parseCliArgs<const O extends Options>(args: string[], options: O): { values: Values<O>; positionals: string[] } {
  const flags: string[] = [];
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : null;
    const next = args[i + 1];
    if (name !== null && options[name]?.type === 'string' && next !== undefined && !next.startsWith('--')) {
      flags.push(`${arg}=${next}`);
      i++;
    } else if (arg.startsWith('-') && arg !== '-' && !/^-\d+$/.test(arg)) flags.push(arg);
    else positionals.push(arg);
  }
  try {
    const parsed = parseArgs({ args: [...flags, '--', ...positionals], options, allowPositionals: true, strict: true });
    return { values: parsed.values as Values<O>, positionals: parsed.positionals };
  } catch (err) {
    const code = (err as { code?: string }).code;
    const flag = /'(-[^' ]+)/.exec((err as Error).message)?.[1] ?? '';
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new Error(`unknown option ${JSON.stringify(flag)}`);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') throw new Error(options[flag.replace(/^--/, '')]?.type === 'boolean' ? `${flag} takes no value` : `${flag} needs a value`);
    throw err;
  }
}

import { SETTINGS } from './config.schema';

/** docs/configuration.md, generated from the settings schema (`npm run cli -- config-docs`). */
export function renderConfigReference(): string {
  const lines = [
    '# Configuration reference',
    '',
    'Every setting is an environment variable with the prefix `SERVICE_`; a `.env` file in the working',
    'directory is read too (the environment wins). Bad values stop start-up with one line per variable.',
    'This page is generated from `src/config/config.schema.ts`; a test fails when they differ.',
    '',
    '| Variable | Default | Rule | Meaning |',
    '|---|---|---|---|',
  ];
  for (const s of SETTINGS) {
    const rule =
      s.kind === 'enum'
        ? s.values!.map((v) => `\`${v}\``).join(', ')
        : s.kind === 'int' || s.kind === 'number'
          ? `${s.kind === 'int' ? 'integer' : 'number'} ${s.min}–${s.max}`
          : s.kind === 'bool'
            ? 'true/false/1/0'
            : s.kind === 'json-list'
              ? 'JSON list of strings'
              : 'text';
    const aliases = s.aliases?.length ? ` Also read from ${s.aliases.map((a) => `\`${a}\``).join(', ')}.` : '';
    const secret = s.secret ? ' Secret: never logged.' : '';
    lines.push(`| \`SERVICE_${s.name}\` | ${s.default === '' ? '(empty)' : `\`${s.default}\``} | ${rule} | ${s.description}${aliases}${secret} |`);
  }
  return lines.join('\n') + '\n';
}

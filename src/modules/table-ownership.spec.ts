/**
 * Rooms own their tables (docs/architecture.md): the SQL text of a room's code names only the
 * tables that room owns, apart from the documented exceptions below. The check reads the string
 * and template literals of every source file (comments and identifiers are not SQL) and finds
 * the table after each FROM, JOIN, INTO, UPDATE, TABLE and USING — upper case, as the house
 * writes SQL, so prose such as "turn episodes into memories" is not taken for a statement.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

const SRC = resolve(__dirname, '..');

/** Each table's owning room (src/modules/<room>, or src/common/<area> for cross-cutting tables). */
const OWNER: Record<string, string> = {
  episodes: 'episodes',
  memories: 'memories',
  compile_jobs: 'memories',
  memory_revisions: 'memories',
  receipts: 'receipts',
  policy_bundles: 'policy',
  resolutions: 'support',
  health_cache: 'support',
  health_refresh_marks: 'support',
  health_history: 'support',
  webhook_events: 'webhooks',
  webhook_event_counts: 'webhooks',
  snapshots: 'snapshots',
  api_keys: 'api-keys',
  rate_limits: 'throttle',
};

/** Documented exceptions (docs/architecture.md, "Rules"): room → tables of other rooms it names. */
const EXCEPTIONS: Record<string, string[]> = {
  // The context read path: candidates across episodes and memories in one statement.
  context: ['episodes', 'memories'],
  // The subject listing: subjects with counts across episodes and memories (read only).
  subjects: ['episodes', 'memories'],
};

const TABLE_REF = new RegExp(`\\b(?:FROM|JOIN|INTO|UPDATE|TABLE|USING)\\s+(${Object.keys(OWNER).join('|')})\\b`, 'g');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** The text of every string and template literal of a file, template holes as blanks. */
function literalTexts(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) out.push(node.text);
    else if (ts.isTemplateExpression(node)) out.push([node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(' $x '));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** The room of a file: src/modules/<room>/…, or src/common/<area>/…; null elsewhere. */
function roomOf(file: string): string | null {
  const parts = relative(SRC, file).split('/');
  return (parts[0] === 'modules' || parts[0] === 'common') && parts.length > 2 ? parts[1] : null;
}

/** room → table → files naming it. */
function tablesByRoom(): Map<string, Map<string, Set<string>>> {
  const found = new Map<string, Map<string, Set<string>>>();
  for (const file of sources(SRC)) {
    const room = roomOf(file);
    if (room === null) continue;
    for (const text of literalTexts(file)) {
      for (const m of text.matchAll(TABLE_REF)) {
        const table = m[1].toLowerCase();
        const byTable = found.get(room) ?? new Map<string, Set<string>>();
        byTable.set(table, (byTable.get(table) ?? new Set()).add(relative(SRC, file)));
        found.set(room, byTable);
      }
    }
  }
  return found;
}

describe('rooms own their tables', () => {
  const found = tablesByRoom();

  it('finds the SQL of the rooms (the scan works)', () => {
    expect(found.get('memories')?.has('memories')).toBe(true);
    expect(found.get('episodes')?.has('episodes')).toBe(true);
    expect(found.get('throttle')?.has('rate_limits')).toBe(true);
  });

  it('names another room\'s table only where a documented exception allows it', () => {
    const trespass: string[] = [];
    for (const [room, tables] of found) {
      for (const [table, files] of tables) {
        if (OWNER[table] === room || EXCEPTIONS[room]?.includes(table)) continue;
        trespass.push(`${room} names ${table} (owned by ${OWNER[table]}) in ${[...files].join(', ')}`);
      }
    }
    expect(trespass).toEqual([]);
  });

  it('leaves admin no SQL of its own: export, import and the tenant audit go through the owners\' bulk services', () => {
    expect([...(found.get('admin')?.keys() ?? [])]).toEqual([]);
  });

  it('keeps the exception list honest: every listed exception is still used', () => {
    const unused = Object.entries(EXCEPTIONS).flatMap(([room, tables]) => tables.filter((t) => !found.get(room)?.has(t)).map((t) => `${room}: ${t}`));
    expect(unused).toEqual([]);
  });
});

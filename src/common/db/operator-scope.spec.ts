/**
 * "Every tenant" is an OperatorScope, and only operator surfaces and background workers mint one
 * (issue 18): the operator routes (/admin, /ops, /metrics), CLI commands and the workers and
 * crons that act on rows carrying their own tenant. A client request's code holds a TenantScope
 * and has no way to widen it. This spec fails when another file calls operatorScope().
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

const SRC = resolve(__dirname, '..', '..');

const MINTERS = [
  /^cli\//,
  // Operator routes.
  /^modules\/admin\/admin\.controller\.ts$/,
  /^modules\/policy\/policy\.controller\.ts$/,
  /^modules\/snapshots\/snapshots\.controller\.ts$/,
  /^modules\/webhooks\/webhooks-admin\.controller\.ts$/,
  /^modules\/ops\//,
  /^modules\/metrics\//,
  // Workers and crons: queues and sweeps over every tenant's rows.
  /^modules\/memories\/compile-jobs\.worker\.ts$/,
  /^modules\/memories\/embeddings\/embedding-backfill\.ts$/,
  /^modules\/webhooks\/webhook-delivery\.worker\.ts$/,
  /^modules\/webhooks\/webhook-retention\.ts$/,
  /^modules\/support\/health-marks\.sweeper\.ts$/,
  /^modules\/snapshots\/snapshots-cleanup\.service\.ts$/,
  // The factory itself.
  /^common\/db\/tenant-scope\.ts$/,
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts') ? [path] : [];
  });
}

function callsOperatorScope(file: string): boolean {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  let found = false;
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'operatorScope') found = true;
    if (!found) ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('operator scopes are minted only by operator surfaces and workers', () => {
  const minting = sources(SRC).filter(callsOperatorScope).map((f) => relative(SRC, f));

  it('finds the minting files (the scan works)', () => {
    expect(minting).toContain('modules/memories/compile-jobs.worker.ts');
  });

  it('has no caller of operatorScope() outside the operator surfaces and workers', () => {
    expect(minting.filter((f) => !MINTERS.some((m) => m.test(f)))).toEqual([]);
  });
});

#!/usr/bin/env node
/**
 * Renders kustomize directories with `kubectl kustomize` and validates every object against the
 * Kubernetes API schemas of `kubernetes-models` (and the Prometheus Operator's for
 * ServiceMonitor). Prints one JSON report per directory on stdout and exits 1 when any object
 * is invalid or of a kind no schema covers.
 *
 *   node scripts/validate-kubernetes.js deploy/kubernetes/overlays/dev deploy/kubernetes/overlays/production
 */
const { execFileSync } = require('node:child_process');
const { parseAllDocuments } = require('yaml');

/** `apps/v1` → the module holding its kinds; the core group is `v1`. */
function modelModule(apiVersion) {
  if (apiVersion.startsWith('monitoring.coreos.com/')) return `@kubernetes-models/prometheus-operator/${apiVersion}`;
  return `kubernetes-models/${apiVersion}`;
}

async function validateObject(doc) {
  let models;
  try {
    // The model packages are ES modules; import() loads them from this CommonJS script.
    models = await import(modelModule(doc.apiVersion));
  } catch {
    return `no schema for apiVersion ${doc.apiVersion}`;
  }
  const Model = models[doc.kind];
  if (typeof Model !== 'function') return `no schema for ${doc.apiVersion} ${doc.kind}`;
  try {
    new Model(doc).validate();
    return null;
  } catch (err) {
    return err.message;
  }
}

async function validateDirectory(dir) {
  const rendered = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const objects = [];
  const errors = [];
  for (const parsed of parseAllDocuments(rendered)) {
    if (parsed.errors.length > 0) {
      errors.push(`YAML: ${parsed.errors[0].message}`);
      continue;
    }
    const doc = parsed.toJS();
    if (doc === null) continue;
    objects.push(doc);
    const problem = await validateObject(doc);
    if (problem) errors.push(`${doc.kind}/${doc.metadata?.name}: ${problem}`);
  }
  return { dir, objects, errors };
}

async function main() {
  const dirs = process.argv.slice(2);
  if (dirs.length === 0) {
    console.error('usage: validate-kubernetes.js <kustomize dir>...');
    return 2;
  }
  let failed = false;
  for (const dir of dirs) {
    const report = await validateDirectory(dir);
    if (report.errors.length > 0) failed = true;
    console.log(JSON.stringify(report));
  }
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err.message);
    process.exit(1);
  },
);

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { ConfigError, loadConfig } from 'src/config/app-config';
import { SECRET_PLACEHOLDER, SETTINGS } from 'src/config/config.schema';

const ROOT = join(__dirname, '..');
const DIR = join(ROOT, 'deploy', 'kubernetes');
const OVERLAYS = readdirSync(join(DIR, 'overlays'));
const COMPONENTS = readdirSync(join(DIR, 'components'));
const MiB = 1024 * 1024;

/* eslint-disable @typescript-eslint/no-explicit-any */
type Doc = any;
interface Report {
  dir: string;
  objects: Doc[];
  errors: string[];
}

/** Renders kustomize directories with kubectl and validates every object (scripts/validate-kubernetes.js). */
function render(...dirs: string[]): { status: number | null; reports: Report[]; stderr: string } {
  const run = spawnSync(process.execPath, [join(ROOT, 'scripts', 'validate-kubernetes.js'), ...dirs], { encoding: 'utf8', cwd: ROOT });
  const reports = run.stdout.trim() === '' ? [] : run.stdout.trim().split('\n').map((line) => JSON.parse(line) as Report);
  return { status: run.status, reports, stderr: run.stderr };
}

function quantityBytes(q: string): number {
  const m = /^(\d+)(Ki|Mi|Gi)?$/.exec(q);
  if (!m) throw new Error(`unexpected quantity ${q}`);
  const unit: Record<string, number> = { Ki: 1024, Mi: MiB, Gi: 1024 * MiB };
  return Number(m[1]) * (m[2] ? unit[m[2]] : 1);
}

describe('Kubernetes manifests (deploy/kubernetes: kustomize base, components, overlays)', () => {
  // Every overlay, plus one that pulls in every component so that each is rendered and checked.
  const everything = mkdtempSync(join(tmpdir(), 'k8s-all-'));
  writeFileSync(
    join(everything, 'kustomization.yaml'),
    [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      'resources:',
      // kustomize takes relative paths only.
      `  - ${relative(everything, join(DIR, 'base'))}`,
      'components:',
      ...COMPONENTS.map((c) => `  - ${relative(everything, join(DIR, 'components', c))}`),
    ].join('\n'),
  );
  const rendered = render(...OVERLAYS.map((o) => join(DIR, 'overlays', o)), everything);
  afterAll(() => rmSync(everything, { recursive: true, force: true }));
  const byDir = new Map(rendered.reports.map((r) => [r.dir, r.objects]));
  const objectsOf = (dir: string): Doc[] => byDir.get(dir) ?? [];
  const all = objectsOf(everything);
  const one = (docs: Doc[], kind: string): Doc => {
    const found = docs.filter((d) => d.kind === kind);
    expect(found).toHaveLength(1);
    return found[0];
  };
  const deployment = one(all, 'Deployment');
  const configMap = one(all, 'ConfigMap');
  const secret = one(all, 'Secret');
  const podLabels = deployment.spec.template.metadata.labels;
  const settings = new Map(SETTINGS.map((s) => [`SERVICE_${s.name}`, s]));
  const startProd: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts['start:prod'];

  it('renders every overlay and every component with kubectl kustomize, each object valid against the Kubernetes API schemas', () => {
    expect(rendered.stderr).toBe('');
    expect(rendered.reports.map((r) => r.errors)).toEqual(rendered.reports.map(() => []));
    expect(rendered.status).toBe(0);
    expect(OVERLAYS.sort()).toEqual(['dev', 'production']);
    expect(all.map((d) => d.kind).sort()).toEqual(['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'Ingress', 'NetworkPolicy', 'PodDisruptionBudget', 'Secret', 'Service', 'ServiceMonitor']);
  });

  it('reports an object the schemas reject', () => {
    const bad = mkdtempSync(join(tmpdir(), 'k8s-bad-'));
    try {
      writeFileSync(join(bad, 'kustomization.yaml'), 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - deployment.yaml\n');
      writeFileSync(join(bad, 'deployment.yaml'), 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\nspec:\n  replicas: two\n  selector: {}\n  template: {}\n');
      const result = render(bad);
      expect(result.status).toBe(1);
      expect(result.reports[0].errors.join('\n')).toMatch(/Deployment\/x: .*replicas must be integer/);
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  });

  it('lists every manifest of the base and of each component in its kustomization', () => {
    const listed = (dir: string) => {
      const k = parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8'));
      expect([...k.resources].sort()).toEqual(readdirSync(dir).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml').sort());
      return k;
    };
    expect(listed(join(DIR, 'base')).kind).toBe('Kustomization');
    for (const c of COMPONENTS) expect(listed(join(DIR, 'components', c)).kind).toBe('Component');
  });

  it('leaves the replica count to the HPA in production, and runs one replica without HPA or PDB in dev', () => {
    const production = objectsOf(join(DIR, 'overlays', 'production'));
    const prodDeployment = one(production, 'Deployment');
    expect(prodDeployment.spec.replicas).toBeUndefined();
    const hpa = one(production, 'HorizontalPodAutoscaler');
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: prodDeployment.metadata.name });
    const pdb = one(production, 'PodDisruptionBudget');
    expect(hpa.spec.minReplicas).toBeGreaterThan(pdb.spec.minAvailable);
    for (const [k, v] of Object.entries(pdb.spec.selector.matchLabels)) expect(podLabels[k]).toBe(v);
    one(production, 'NetworkPolicy');
    const dev = objectsOf(join(DIR, 'overlays', 'dev'));
    expect(one(dev, 'Deployment').spec.replicas).toBe(1);
    expect(dev.filter((d) => d.kind === 'HorizontalPodAutoscaler' || d.kind === 'PodDisruptionBudget')).toEqual([]);
  });

  it("runs the server with start:prod's heap cap, and a memory limit that holds the heap, the body budget and the rest", () => {
    const [container] = deployment.spec.template.spec.containers;
    expect(container.command.join(' ')).toBe(startProd);
    const heap = Number(/--max-old-space-size=(\d+)/.exec(startProd)![1]) * MiB;
    // Request bodies in flight are Buffers outside the V8 heap (docs/operations.md, "Memory").
    const bodies = 64 * MiB;
    const overhead = 128 * MiB;
    expect(quantityBytes(container.resources.limits.memory)).toBeGreaterThanOrEqual(heap + bodies + overhead);
    expect(quantityBytes(container.resources.requests.memory)).toBeLessThanOrEqual(quantityBytes(container.resources.limits.memory));
  });

  it('migrates in an init container with the locked `migrate upgrade head`, so no pod serves before its schema is there', () => {
    const pod = deployment.spec.template.spec;
    const [migrate] = pod.initContainers;
    expect(migrate.name).toBe('migrate');
    expect(migrate.image).toBe(pod.containers[0].image);
    expect(migrate.command.slice(-4)).toEqual(['dist/src/cli/main.js', 'migrate', 'upgrade', 'head']);
    const cli = readFileSync(join(ROOT, 'src', 'cli', 'main.ts'), 'utf8');
    expect(cli).toMatch(/^\s{2}migrate: \{/m);
    // The runner waits for the registry's migrations lock (a session-level pg_advisory_lock).
    expect(readFileSync(join(ROOT, 'src', 'db', 'migration-runner.ts'), 'utf8')).toMatch(/withSessionLock\(\w+, AdvisoryLock\.Migrations, true,/);
    expect(readFileSync(join(ROOT, 'src', 'common', 'db', 'advisory-locks.ts'), 'utf8')).toContain('pg_advisory_lock(');
    expect(configMap.data.SERVICE_AUTO_MIGRATE).toBe('false');
    expect(deployment.spec.strategy.rollingUpdate.maxUnavailable).toBe(0);
  });

  it('probes /healthz for liveness and /readyz for readiness on the named port 8100', () => {
    const [container] = deployment.spec.template.spec.containers;
    expect(container.ports).toEqual([{ name: 'http', containerPort: 8100, protocol: 'TCP' }]);
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(container.startupProbe.httpGet.path).toBe('/healthz');
    expect(Number(configMap.data.SERVICE_PORT)).toBe(8100);
    const service = one(all, 'Service');
    expect(service.spec.ports).toEqual([{ name: 'http', port: 8100, targetPort: 'http', protocol: 'TCP' }]);
    for (const [k, v] of Object.entries(service.spec.selector)) expect(podLabels[k]).toBe(v);
    const monitor = one(all, 'ServiceMonitor');
    expect(monitor.spec.endpoints[0]).toMatchObject({ port: 'http', path: '/metrics', authorization: { credentials: { name: secret.metadata.name, key: 'SERVICE_API_KEY' } } });
    expect(one(all, 'Ingress').spec.rules[0].http.paths[0].backend.service).toEqual({ name: service.metadata.name, port: { name: 'http' } });
  });

  it('sets resource requests and limits and runs as a non-root user without privileges', () => {
    const pod = deployment.spec.template.spec;
    for (const container of [...pod.initContainers, ...pod.containers]) {
      expect(container.resources.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
      expect(container.resources.limits.memory).toEqual(expect.any(String));
      expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    }
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
  });

  it('takes its environment from the ConfigMap and the Secret, in the server and the migration', () => {
    const refs = (c: Doc) => c.envFrom.map((e: Doc) => e.configMapRef?.name ?? e.secretRef?.name);
    const pod = deployment.spec.template.spec;
    for (const c of [...pod.initContainers, ...pod.containers]) expect(refs(c)).toEqual([configMap.metadata.name, secret.metadata.name]);
  });

  it('uses only settings of the config schema, with secrets only in the Secret', () => {
    const configKeys = Object.keys(configMap.data);
    const secretKeys = Object.keys(secret.stringData ?? secret.data);
    for (const key of [...configKeys, ...secretKeys]) expect(settings.has(key) ? key : `${key} is not a setting`).toBe(key);
    for (const key of configKeys) expect(settings.get(key)!.secret ? `${key} is a secret` : key).toBe(key);
    for (const key of secretKeys) expect(settings.get(key)!.secret ? key : `${key} is not a secret`).toBe(key);
    expect(secretKeys).toEqual(expect.arrayContaining(['SERVICE_DATABASE_URL', 'SERVICE_API_KEY']));
    // The values are valid for the app once the placeholders are replaced (boot would fail on a bad one).
    const replaced = Object.fromEntries(Object.entries(secret.stringData as Record<string, string>).map(([k, v]) => [k, v.replaceAll(SECRET_PLACEHOLDER, 'real-secret')]));
    const config = loadConfig({ ...configMap.data, ...replaced });
    expect(config).toMatchObject({ port: 8100, autoMigrate: false, databaseUrl: expect.stringMatching(/^postgresql:\/\//) });
  });

  it('refuses to start with the placeholder values of the Secret, naming each setting still holding one', () => {
    const placeholders = Object.keys(secret.stringData).filter((k) => String(secret.stringData[k]).includes(SECRET_PLACEHOLDER));
    expect(placeholders).toEqual(expect.arrayContaining(['SERVICE_DATABASE_URL', 'SERVICE_API_KEY']));
    let problems: string[] = [];
    try {
      loadConfig({ ...configMap.data, ...secret.stringData });
    } catch (e) {
      problems = (e as ConfigError).problems;
    }
    for (const key of placeholders) expect(problems).toContainEqual(expect.stringContaining(`${key} still holds the placeholder`));
    // The error never shows the value it refused.
    expect(problems.join(' ')).not.toContain('postgres:5432');
  });
});

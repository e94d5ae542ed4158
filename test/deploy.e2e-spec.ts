import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ConfigError, loadConfig } from 'src/config/app-config';
import { SECRET_PLACEHOLDER, SETTINGS } from 'src/config/config.schema';

const ROOT = join(__dirname, '..');
const DIR = join(ROOT, 'deploy', 'kubernetes');

/* eslint-disable @typescript-eslint/no-explicit-any */
type Doc = any;

function load(file: string): Doc[] {
  const docs = parseAllDocuments(readFileSync(join(DIR, file), 'utf8'));
  for (const d of docs) if (d.errors.length) throw new Error(`${file}: ${d.errors[0].message}`);
  return docs.map((d) => d.toJS());
}

describe('Kubernetes manifests (deploy/kubernetes)', () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml'));
  const docs = files.filter((f) => f !== 'kustomization.yaml').flatMap(load);
  const one = (kind: string) => {
    const found = docs.filter((d) => d.kind === kind);
    expect(found).toHaveLength(1);
    return found[0];
  };
  const deployment = one('Deployment');
  const configMap = one('ConfigMap');
  const secret = one('Secret');
  const job = one('Job');
  const podLabels = deployment.spec.template.metadata.labels;
  const settings = new Map(SETTINGS.map((s) => [`SERVICE_${s.name}`, s]));

  it('lists every manifest in kustomization.yaml', () => {
    const [kustomization] = load('kustomization.yaml');
    expect([...kustomization.resources].sort()).toEqual(files.filter((f) => f !== 'kustomization.yaml').sort());
  });

  it('probes /healthz for liveness and /readyz for readiness on the named port 8100', () => {
    const [container] = deployment.spec.template.spec.containers;
    expect(container.ports).toEqual([{ name: 'http', containerPort: 8100, protocol: 'TCP' }]);
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(container.startupProbe.httpGet.path).toBe('/healthz');
    expect(Number(configMap.data.SERVICE_PORT)).toBe(8100);
  });

  it('sets resource requests and limits and runs as a non-root user without privileges', () => {
    const pod = deployment.spec.template.spec;
    const [container] = pod.containers;
    expect(container.resources.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
    expect(container.resources.limits.memory).toEqual(expect.any(String));
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
    expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
  });

  it('takes its environment from the ConfigMap and the Secret, in the Deployment and the Job', () => {
    const refs = (c: Doc) => c.envFrom.map((e: Doc) => e.configMapRef?.name ?? e.secretRef?.name);
    const containers = [...deployment.spec.template.spec.containers, ...job.spec.template.spec.initContainers, ...job.spec.template.spec.containers];
    for (const c of containers) expect(refs(c)).toEqual([configMap.metadata.name, secret.metadata.name]);
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

  it('migrates in a Job: preflight, then `migrate upgrade head`, then preflight must say GO', () => {
    const pod = job.spec.template.spec;
    const commands = [...pod.initContainers, ...pod.containers].map((c: Doc) => c.command.join(' '));
    expect(commands[0]).toContain('node dist/src/cli/main.js preflight');
    expect(commands[1]).toBe('node dist/src/cli/main.js migrate upgrade head');
    expect(commands[2]).toBe('node dist/src/cli/main.js preflight');
    expect(pod.restartPolicy).toBe('Never');
    // The commands the Job runs exist in the CLI.
    const cli = readFileSync(join(ROOT, 'src', 'cli', 'main.ts'), 'utf8');
    expect(cli).toMatch(/^\s{2}preflight: \{/m);
    expect(cli).toMatch(/^\s{2}migrate: \{/m);
    expect(configMap.data.SERVICE_AUTO_MIGRATE).toBe('false');
  });

  it('exposes port 8100 through the Service and guards the pods with a PodDisruptionBudget and an HPA', () => {
    const service = one('Service');
    expect(service.spec.ports).toEqual([{ name: 'http', port: 8100, targetPort: 'http', protocol: 'TCP' }]);
    for (const [k, v] of Object.entries(service.spec.selector)) expect(podLabels[k]).toBe(v);
    const pdb = one('PodDisruptionBudget');
    for (const [k, v] of Object.entries(pdb.spec.selector.matchLabels)) expect(podLabels[k]).toBe(v);
    expect(pdb.spec.minAvailable).toBeLessThan(deployment.spec.replicas);
    const hpa = one('HorizontalPodAutoscaler');
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name });
    expect(hpa.spec.minReplicas).toBeGreaterThan(pdb.spec.minAvailable);
  });
});

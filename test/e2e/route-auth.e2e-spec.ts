import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, Reflector } from '@nestjs/core';
import { IS_PUBLIC, TENANT_OPTIONAL } from 'src/common/guards/public.decorator';
import { createTestApp, TestApp } from '../app-factory';

const SNAPSHOT = join(__dirname, '..', 'route-auth.txt');

/**
 * Every route with its auth mode: `public` (no key, no tenant), `key` (a key with the operator
 * role, tenant header not required: operator routes), `key+tenant` (a key with the client role
 * and, with REQUIRE_TENANT, the tenant header or a key bound to a tenant). A change here is a permission change: it shows in review as a diff of
 * test/route-auth.txt (regenerate with UPDATE_ROUTE_AUTH=1).
 */
describe('route auth modes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('matches the reviewed list in test/route-auth.txt', () => {
    const reflector = t.app.get(Reflector);
    const lines: string[] = [];
    for (const wrapper of t.app.get(DiscoveryService).getControllers()) {
      const cls = wrapper.metatype as (new (...args: unknown[]) => unknown) | undefined;
      if (!cls) continue;
      const base = ([] as string[]).concat(Reflect.getMetadata(PATH_METADATA, cls) ?? '');
      for (const name of Object.getOwnPropertyNames(cls.prototype)) {
        const handler = cls.prototype[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const method = Reflect.getMetadata(METHOD_METADATA, handler);
        if (method === undefined) continue;
        const paths = ([] as string[]).concat(Reflect.getMetadata(PATH_METADATA, handler) ?? '');
        const isPublic = reflector.getAllAndOverride<boolean>(IS_PUBLIC, [handler, cls]);
        const tenantOptional = reflector.getAllAndOverride<boolean>(TENANT_OPTIONAL, [handler, cls]);
        const mode = isPublic ? 'public' : tenantOptional ? 'key' : 'key+tenant';
        for (const b of base) {
          for (const p of paths) {
            const path = ('/' + [b, p].filter(Boolean).join('/')).replace(/\/+/g, '/').replace(/(.)\/$/, '$1');
            lines.push(`${RequestMethod[method].padEnd(6)} ${path.padEnd(48)} ${mode}`);
          }
        }
      }
    }
    const text = [...new Set(lines)].sort().join('\n') + '\n';
    if (process.env.UPDATE_ROUTE_AUTH === '1' || !existsSync(SNAPSHOT)) {
      if (process.env.CI) throw new Error('test/route-auth.txt is missing or being updated in CI');
      writeFileSync(SNAPSHOT, text);
    }
    expect(text).toBe(readFileSync(SNAPSHOT, 'utf8'));
  });
});

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { KeyResolver, Principal, Role } from 'src/common/auth/principal';
import { FreshRead } from 'src/common/db/fresh-read';
import { AppError } from 'src/common/errors/app-error';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeyCreatedDto, ApiKeyDto, toApiKeyDto } from './dto/api-key.dto';

/**
 * How long a replica trusts a key it has read from the table. A key revoked or rotated on another
 * replica stops working here within this time (docs/operations.md "Security model"); on the
 * replica that revoked it, at once. Created and rotated keys work everywhere at once: a key this
 * replica does not know, or whose secret does not match what it remembers, is read afresh.
 */
export const KEY_CACHE_MS = 2000;
/** Remembered keys per replica; the oldest is forgotten first (it is read again when presented). */
const MAX_CACHED_KEYS = 10_000;

/** `msk_<id>_<secret>`: the id finds the key, the secret proves it (only its digest is stored). */
const TOKEN = /^msk_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

const digest = (secret: string): Buffer => createHash('sha256').update(secret).digest();

interface CachedKey {
  at: number;
  digest: Buffer;
  principal: Principal;
}

/**
 * Stored API keys: create, list, rotate, revoke, and authentication for the gate (KEY_RESOLVER).
 * A valid key usually costs no query (remembered for KEY_CACHE_MS); whether any key exists — the
 * difference between open access and a refusal — is always read from the table, never from a
 * remembered count, so the first key created on any replica closes open access everywhere at once.
 * Concurrent open-access requests share that read (FreshRead: each from a query that began after
 * it arrived), so under load it costs one round trip per few requests, not one each.
 */
@Injectable()
export class ApiKeysService implements KeyResolver {
  private readonly cache = new Map<string, CachedKey>();
  private readonly anyActive: FreshRead<boolean>;

  constructor(
    private readonly ds: DataSource,
    private readonly repo: ApiKeysRepository,
  ) {
    this.anyActive = new FreshRead(() => this.repo.anyActive(this.ds.manager));
  }

  keysInUse(): Promise<boolean> {
    return this.anyActive.get();
  }

  async resolve(token: string): Promise<Principal | null> {
    const m = TOKEN.exec(token);
    if (!m) return null;
    const [, id, secret] = m;
    const given = digest(secret);
    const cached = this.cache.get(id);
    if (cached && Date.now() - cached.at < KEY_CACHE_MS && timingSafeEqual(given, cached.digest)) return cached.principal;
    this.cache.delete(id);
    const row = await this.repo.active(this.ds.manager, id);
    if (!row) return null;
    const key: CachedKey = { at: Date.now(), digest: row.secret_sha256, principal: Object.freeze({ keyId: row.id, roles: Object.freeze([row.role]), tenantId: row.bound_tenant_id }) };
    if (this.cache.size >= MAX_CACHED_KEYS) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(id, key);
    return timingSafeEqual(given, key.digest) ? key.principal : null;
  }

  async create(input: { role: Role; tenantId?: string | null; name?: string }): Promise<ApiKeyCreatedDto> {
    const tenantId = input.tenantId ?? null;
    if (input.role === 'operator' && tenantId !== null) {
      throw AppError.validation(['body', 'tenant_id'], 'operator keys work across tenants and cannot be bound to one');
    }
    const id = randomBytes(6).toString('hex');
    const secret = randomBytes(32).toString('base64url');
    const row = await this.repo.insert(this.ds.manager, { id, name: input.name ?? '', role: input.role, tenantId, digest: digest(secret) });
    return { ...toApiKeyDto(row), key: `msk_${id}_${secret}` };
  }

  async list(): Promise<ApiKeyDto[]> {
    return (await this.repo.list(this.ds.manager)).map(toApiKeyDto);
  }

  /** A new secret for the same id and grants; the old secret stops working at once here, within KEY_CACHE_MS elsewhere. */
  async rotate(id: string): Promise<ApiKeyCreatedDto> {
    const secret = randomBytes(32).toString('base64url');
    const row = await this.repo.rotate(this.ds.manager, id, digest(secret));
    if (!row) throw AppError.notFound(`No active API key ${id}.`);
    this.cache.delete(id);
    return { ...toApiKeyDto(row), key: `msk_${id}_${secret}` };
  }

  async revoke(id: string): Promise<ApiKeyDto> {
    const row = await this.repo.revoke(this.ds.manager, id);
    if (!row) throw AppError.notFound(`No API key ${id}.`);
    this.cache.delete(id);
    return toApiKeyDto(row);
  }
}

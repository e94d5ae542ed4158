/**
 * The subject export document (compat.md "Export document" and "Import"):
 * `{format_version: "1.0", exported_at, subject_id, tenant_id, counts, episodes, memories,
 * checksum}`, where `checksum` is the SHA-256 of `{"episodes": [...], "memories": [...]}` in
 * Python `json.dumps(sort_keys=True)` form (see python-json.ts).
 *
 * Decisions:
 * - Timestamps are strings end to end. Postgres keeps microseconds, a JS Date only
 *   milliseconds, so the owning rooms' export reads select them as text (`isoformatUtc`,
 *   src/common/db/sql.ts), Python's `isoformat()` of a UTC datetime with microseconds. Imported
 *   timestamps are normalised to that form (one without an offset is read as UTC).
 * - Extra keys beyond the existing implementation's (episode `session_id`; memory
 *   `attribute_key`, `superseded_by`, `sensitivity_labels`) keep our own round trips lossless. They are written only
 *   when set, and a timestamp on a whole second is written without its fraction, as Python's
 *   `isoformat()` writes it: an imported document of the existing implementation then
 *   re-exports to the same items and the same checksum (compat.md, "Timestamps"). Documents
 *   without the extra keys import with null.
 * - `confidence` and embedding values are floats: a `1` from the database is written `1.0`,
 *   as the existing implementation writes it.
 * - Receipts (docs/governance.md "Receipts in exports and snapshots") are an optional top-level
 *   `receipts` list of `{tenant_id, receipt}` (the tenant holding the row, the body as stored),
 *   with its own `receipts_checksum` (SHA-256 of `{"receipts": [...]}` in the same Python form)
 *   and `counts.receipts`, all three written only when the subject holds receipts: a subject
 *   without any exports the 0.6.1 document unchanged, and a document without them imports.
 * - Rows are the owning rooms' export rows (`EpisodeExportRow`, `MemoryExportRow`,
 *   `ReceiptExportRow`, beside each entity), read and written by those rooms through their bulk
 *   services. They carry jsonb columns as JSON text both ways: read as text, an export holds
 *   exactly what is stored (parsed here losslessly); to insert, it is cast with `::jsonb`, because
 *   parsed documents hold `LosslessNumber`s, which a driver's `JSON.stringify` would mangle.
 */
import { createHash } from 'node:crypto';
import { isLosslessNumber } from 'lossless-json';
import { ErrorCode } from 'src/common/errors/error-codes';
import { MEMORY_KINDS, MEMORY_STATUSES, type MemoryKind, type MemoryStatus } from 'src/compiler/memory-kinds';
import type { EpisodeExportRow } from 'src/modules/episodes/episode.entity';
import type { MemoryExportRow } from 'src/modules/memories/memory.entity';
import { normaliseLabels } from 'src/modules/memories/sensitivity-labels';
import type { ReceiptExportRow } from 'src/modules/receipts/receipt.entity';
import { servedBody } from 'src/modules/receipts/stored-body';
import { parseLossless, PyFloat, pythonJson, sha256Hex } from './python-json';

export const EXPORT_FORMAT_VERSION = '1.0';

/** Free-form JSON (payload, metadata, provenance); after a lossless parse it holds LosslessNumbers. */
export type JsonObject = Record<string, unknown>;

export interface EpisodeItem {
  id: string;
  subject_id: string;
  tenant_id: string | null;
  session_id: string | null;
  source: string;
  type: string;
  payload: JsonObject;
  metadata: JsonObject;
  provenance: JsonObject;
  created_at: string;
  /** Null while uncompiled: the next compile picks the episode up. */
  last_compiled_at: string | null;
}

export interface MemoryItem {
  id: string;
  subject_id: string;
  tenant_id: string | null;
  kind: MemoryKind;
  content: string;
  summary: string;
  confidence: number;
  valid_from: string;
  valid_to: string | null;
  source_episode_ids: string[];
  metadata: JsonObject;
  status: MemoryStatus;
  embedding: number[] | null;
  attribute_key: string | null;
  superseded_by: string | null;
  created_at: string;
  updated_at: string;
  /** Written only when the memory has labels, so unlabelled documents keep the 0.6.1 shape. */
  sensitivity_labels: string[];
}

/** A receipt the subject holds: the holding row's tenant and the body as stored (and signed). */
export interface ReceiptItem {
  tenant_id: string | null;
  receipt: JsonObject;
}

export interface ExportHeader {
  exported_at: string;
  subject_id: string;
  tenant_id: string | null;
}

export interface ExportDocument extends ExportHeader {
  format_version: typeof EXPORT_FORMAT_VERSION;
  counts: { episodes: number; memories: number; receipts?: number };
  episodes: EpisodeItem[];
  memories: MemoryItem[];
  checksum: string;
  /** Absent in documents of subjects without receipts and in those of older versions. */
  receipts: ReceiptItem[];
}

/** An episode to insert: the episodes room's export row, jsonb as Python-form JSON text. */
export function toEpisodeRow(item: EpisodeItem): EpisodeExportRow {
  const { payload, metadata, provenance, ...rest } = item;
  return { ...rest, payload: pythonJson(payload), metadata: pythonJson(metadata), provenance: pythonJson(provenance) };
}

/** A memory to insert: the memories room's export row, metadata as Python-form JSON text. */
export function toMemoryRow(item: MemoryItem): MemoryExportRow {
  const { metadata, ...rest } = item;
  return { ...rest, metadata: pythonJson(metadata) };
}

/** An episode as the document holds it: the room's export row, its jsonb parsed losslessly. */
export function toEpisodeItem(row: EpisodeExportRow): EpisodeItem {
  return {
    ...row,
    payload: parseLossless(row.payload) as JsonObject,
    metadata: parseLossless(row.metadata) as JsonObject,
    provenance: parseLossless(row.provenance) as JsonObject,
  };
}

/** A memory as the document holds it: the room's export row, its metadata parsed losslessly. */
export function toMemoryItem(row: MemoryExportRow): MemoryItem {
  return { ...row, metadata: parseLossless(row.metadata) as JsonObject };
}

/**
 * A receipt as the document holds it: the holding row's tenant and the body as served and signed
 * (plain JSON; the entries unpacked from their stored form, so any verifier reads it as is).
 */
export function toReceiptItem(row: ReceiptExportRow): ReceiptItem {
  return { tenant_id: row.tenant_id, receipt: servedBody(row.body) as unknown as JsonObject };
}

// ---------------------------------------------------------------------------------------------
// Checksum and writing

/**
 * Hex SHA-256 over `{"episodes": [...], "memories": [...]}` in Python json form. Takes raw items
 * (as parsed, or as read from the database); plain-number `confidence` and embedding values are
 * written as floats, parsed ones keep their text.
 */
export function computeChecksum(episodes: readonly unknown[], memories: readonly unknown[]): string {
  return sha256Hex(pythonJson({ episodes, memories: memories.map(markMemoryFloats) }));
}

function markMemoryFloats(memory: unknown): unknown {
  if (!isJsonObject(memory)) return memory;
  const marked: JsonObject = { ...memory };
  if (typeof memory.confidence === 'number') marked.confidence = new PyFloat(memory.confidence);
  if (Array.isArray(memory.embedding)) {
    marked.embedding = memory.embedding.map((v: unknown) => (typeof v === 'number' ? new PyFloat(v) : v));
  }
  return marked;
}

/**
 * Streams the document text, one chunk per item, hashing the checksum input as it goes so a
 * subject of any size is never held in memory. `counts` and `checksum` come last because only
 * then are they known.
 */
export async function* writeExportDocument(
  header: ExportHeader,
  episodes: AsyncIterable<EpisodeItem>,
  memories: AsyncIterable<MemoryItem>,
  receipts: AsyncIterable<ReceiptItem> = (async function* () {})(),
): AsyncGenerator<string> {
  const hash = createHash('sha256');
  yield `{"format_version": ${pythonJson(EXPORT_FORMAT_VERSION)}, "exported_at": ${pythonJson(header.exported_at)}, ` +
    `"subject_id": ${pythonJson(header.subject_id)}, "tenant_id": ${pythonJson(header.tenant_id)}, "episodes": [`;
  // The checksum input is the same item texts in a different frame.
  hash.update('{"episodes": [');
  let episodeCount = 0;
  for await (const episode of episodes) {
    const text = (episodeCount > 0 ? ', ' : '') + pythonJson(asWritten(episode));
    hash.update(text);
    episodeCount++;
    yield text;
  }
  yield '], "memories": [';
  hash.update('], "memories": [');
  let memoryCount = 0;
  for await (const memory of memories) {
    const text = (memoryCount > 0 ? ', ' : '') + pythonJson(markMemoryFloats(asWritten(memory)));
    hash.update(text);
    memoryCount++;
    yield text;
  }
  hash.update(']}');
  yield ']';
  // Receipts only when there are some, so that a subject without any keeps the 0.6.1 document.
  const receiptHash = createHash('sha256').update('{"receipts": [');
  let receiptCount = 0;
  for await (const receipt of receipts) {
    const text = (receiptCount > 0 ? ', ' : ', "receipts": [') + pythonJson(receipt);
    receiptHash.update(receiptCount > 0 ? text : text.slice(', "receipts": ['.length));
    receiptCount++;
    yield text;
  }
  if (receiptCount > 0) yield ']';
  const receiptCounts = receiptCount > 0 ? `, "receipts": ${receiptCount}` : '';
  const receiptChecksum = receiptCount > 0 ? `, "receipts_checksum": "${receiptHash.update(']}').digest('hex')}"` : '';
  yield `, "counts": {"episodes": ${episodeCount}, "memories": ${memoryCount}${receiptCounts}}, "checksum": "${hash.digest('hex')}"${receiptChecksum}}`;
}

/** Hex SHA-256 over `{"receipts": [...]}` in Python json form (raw items, as parsed). */
export function computeReceiptsChecksum(receipts: readonly unknown[]): string {
  return sha256Hex(pythonJson({ receipts }));
}

const OPTIONAL_KEYS = ['session_id', 'attribute_key', 'superseded_by'] as const;
const TIMESTAMP_KEYS = ['created_at', 'last_compiled_at', 'valid_from', 'valid_to', 'updated_at'] as const;

/** An item as the document writes it: unset extra keys left out, timestamps in Python's form. */
function asWritten<T extends EpisodeItem | MemoryItem>(item: T): Partial<T> {
  const out: Record<string, unknown> = { ...item };
  for (const key of OPTIONAL_KEYS) if (out[key] === null) delete out[key];
  if (Array.isArray(out.sensitivity_labels) && out.sensitivity_labels.length === 0) delete out.sensitivity_labels;
  for (const key of TIMESTAMP_KEYS) {
    const value = out[key];
    if (typeof value === 'string') out[key] = pythonIsoformat(value);
  }
  return out as Partial<T>;
}

/** Python's `isoformat()` leaves out a zero fraction: `…:05+00:00`, not `…:05.000000+00:00`. */
function pythonIsoformat(timestamp: string): string {
  return timestamp.endsWith('.000000+00:00') ? `${timestamp.slice(0, -'.000000+00:00'.length)}+00:00` : timestamp;
}

// ---------------------------------------------------------------------------------------------
// Verification

export type ImportRejectionCode =
  | ErrorCode.UnsupportedFormatVersion
  | ErrorCode.ChecksumMismatch
  | ErrorCode.InvalidDocument;

export type VerifyResult =
  | { ok: true; doc: ExportDocument }
  | { ok: false; code: ImportRejectionCode; message: string };

class InvalidDocumentError extends Error {}

function invalid(path: string, problem: string): never {
  throw new InvalidDocumentError(`Invalid export document: ${path} ${problem}`);
}

/**
 * Checks a document parsed with `parseLossless` (a `JSON.parse`d one loses float text and fails
 * the checksum). Order: version, then checksum over the raw items (tampering is reported as such
 * even when it also broke the shape), then the shape of every item. The returned document is
 * normalised: numbers are plain, timestamps canonical, optional keys filled.
 */
export function verifyDocument(raw: unknown): VerifyResult {
  if (!isJsonObject(raw)) {
    return { ok: false, code: ErrorCode.InvalidDocument, message: 'Invalid export document: must be a JSON object' };
  }
  const version = raw.format_version;
  if (version !== EXPORT_FORMAT_VERSION) {
    const message =
      version === undefined || version === null
        ? `Export document has no format version; supported version is ${EXPORT_FORMAT_VERSION}`
        : `Unsupported export format version ${show(version)}; supported version is ${EXPORT_FORMAT_VERSION}`;
    return { ok: false, code: ErrorCode.UnsupportedFormatVersion, message };
  }
  try {
    const episodes = arrayAt(raw.episodes, 'episodes');
    const memories = arrayAt(raw.memories, 'memories');
    if (typeof raw.checksum !== 'string') invalid('checksum', 'must be a string');
    let actual: string;
    try {
      actual = computeChecksum(episodes, memories);
    } catch (err) {
      invalid('checksum', `cannot be computed: ${(err as Error).message}`);
    }
    if (actual !== raw.checksum.toLowerCase()) {
      return {
        ok: false,
        code: ErrorCode.ChecksumMismatch,
        message: `Export document checksum mismatch: document says ${raw.checksum}, content hashes to ${actual}`,
      };
    }
    const receipts = raw.receipts == null ? [] : arrayAt(raw.receipts, 'receipts');
    if (receipts.length > 0) {
      if (typeof raw.receipts_checksum !== 'string') invalid('receipts_checksum', 'must be a string when receipts are present');
      const actualReceipts = computeReceiptsChecksum(receipts);
      if (actualReceipts !== raw.receipts_checksum.toLowerCase()) {
        return {
          ok: false,
          code: ErrorCode.ChecksumMismatch,
          message: `Export document receipts checksum mismatch: document says ${raw.receipts_checksum}, receipts hash to ${actualReceipts}`,
        };
      }
    }
    const doc: ExportDocument = {
      format_version: EXPORT_FORMAT_VERSION,
      exported_at: stringAt(raw.exported_at, 'exported_at'),
      subject_id: textAt(raw.subject_id, 'subject_id', 256),
      tenant_id: nullableTextAt(raw.tenant_id, 'tenant_id', 256),
      counts: { episodes: episodes.length, memories: memories.length },
      episodes: episodes.map((e, i) => readEpisode(e, `episodes[${i}]`)),
      memories: memories.map((m, i) => readMemory(m, `memories[${i}]`)),
      checksum: actual,
      receipts: receipts.map((r, i) => readReceipt(r, `receipts[${i}]`)),
    };
    if (doc.receipts.length > 0) doc.counts.receipts = doc.receipts.length;
    rejectDuplicates(doc.episodes, 'episodes');
    rejectDuplicates(doc.memories, 'memories');
    rejectDuplicates(
      doc.receipts.map((r) => ({ id: `${r.tenant_id ?? ''} ${String(r.receipt.receipt_id)}` })),
      'receipts',
    );
    return { ok: true, doc };
  } catch (err) {
    if (err instanceof InvalidDocumentError) return { ok: false, code: ErrorCode.InvalidDocument, message: err.message };
    throw err;
  }
}

function readEpisode(value: unknown, path: string): EpisodeItem {
  const o = objectAt(value, path);
  return {
    id: uuidAt(o.id, `${path}.id`),
    subject_id: textAt(o.subject_id, `${path}.subject_id`, 256),
    tenant_id: nullableTextAt(o.tenant_id, `${path}.tenant_id`, 256),
    session_id: nullableTextAt(o.session_id, `${path}.session_id`, 256),
    source: textAt(o.source, `${path}.source`, 256),
    type: textAt(o.type, `${path}.type`, 128),
    payload: objectAt(o.payload, `${path}.payload`),
    metadata: optionalObjectAt(o.metadata, `${path}.metadata`),
    provenance: optionalObjectAt(o.provenance, `${path}.provenance`),
    created_at: timestampAt(o.created_at, `${path}.created_at`),
    last_compiled_at: o.last_compiled_at == null ? null : timestampAt(o.last_compiled_at, `${path}.last_compiled_at`),
  };
}

function readMemory(value: unknown, path: string): MemoryItem {
  const o = objectAt(value, path);
  const createdAt = timestampAt(o.created_at, `${path}.created_at`);
  return {
    id: uuidAt(o.id, `${path}.id`),
    subject_id: textAt(o.subject_id, `${path}.subject_id`, 256),
    tenant_id: nullableTextAt(o.tenant_id, `${path}.tenant_id`, 256),
    kind: oneOfAt(o.kind, MEMORY_KINDS, `${path}.kind`),
    content: stringAt(o.content, `${path}.content`),
    // Our summary column is NOT NULL; an absent summary is the empty one.
    summary: o.summary == null ? '' : stringAt(o.summary, `${path}.summary`),
    confidence: numberAt(o.confidence, `${path}.confidence`),
    // A memory is valid from its creation unless it says otherwise.
    valid_from: o.valid_from == null ? createdAt : timestampAt(o.valid_from, `${path}.valid_from`),
    valid_to: o.valid_to == null ? null : timestampAt(o.valid_to, `${path}.valid_to`),
    source_episode_ids: arrayAt(o.source_episode_ids, `${path}.source_episode_ids`).map((id, i) =>
      uuidAt(id, `${path}.source_episode_ids[${i}]`),
    ),
    metadata: optionalObjectAt(o.metadata, `${path}.metadata`),
    status: oneOfAt(o.status, MEMORY_STATUSES, `${path}.status`),
    embedding:
      o.embedding == null
        ? null
        : arrayAt(o.embedding, `${path}.embedding`).map((v, i) => numberAt(v, `${path}.embedding[${i}]`)),
    attribute_key: nullableTextAt(o.attribute_key, `${path}.attribute_key`, 256),
    superseded_by: o.superseded_by == null ? null : uuidAt(o.superseded_by, `${path}.superseded_by`),
    created_at: createdAt,
    updated_at: o.updated_at == null ? createdAt : timestampAt(o.updated_at, `${path}.updated_at`),
    sensitivity_labels: labelsAt(o.sensitivity_labels, `${path}.sensitivity_labels`),
  };
}

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const RECEIPT_MODES = ['retrieval', 'as_of_replay'] as const;

/**
 * A receipt as exported. Only what the row needs is checked (id, subject, mode, parent, time);
 * the body is otherwise kept exactly, numbers turned back into the plain numbers it was signed
 * with, so `GET /v1/receipts/{id}/verify` gives the same verdict after the import.
 */
function readReceipt(value: unknown, path: string): ReceiptItem {
  const o = objectAt(value, path);
  const receipt = plainJson(objectAt(o.receipt, `${path}.receipt`)) as JsonObject;
  const id = receipt.receipt_id;
  if (typeof id !== 'string' || !ULID.test(id)) invalid(`${path}.receipt.receipt_id`, 'must be a ULID');
  textAt(receipt.subject_id, `${path}.receipt.subject_id`, 256);
  oneOfAt(receipt.mode, RECEIPT_MODES, `${path}.receipt.mode`);
  nullableTextAt(receipt.parent_receipt_id, `${path}.receipt.parent_receipt_id`, 256);
  timestampAt(receipt.created_at, `${path}.receipt.created_at`);
  return { tenant_id: nullableTextAt(o.tenant_id, `${path}.tenant_id`, 256), receipt };
}

/** A losslessly parsed value with its numbers as JavaScript numbers (what JSON.parse gives). */
function plainJson(value: unknown): unknown {
  if (isLosslessNumber(value)) return Number(value.value);
  if (Array.isArray(value)) return value.map(plainJson);
  if (isJsonObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plainJson(v)]));
  return value;
}

/** Optional; normalised and limited as `PATCH /v1/memories/{id}/labels` does. */
function labelsAt(value: unknown, path: string): string[] {
  if (value == null) return [];
  const result = normaliseLabels(arrayAt(value, path));
  if ('labels' in result) return result.labels;
  invalid(`${path}[${result.problems[0].index}]`, result.problems[0].msg);
}

function rejectDuplicates(items: readonly { id: string }[], path: string): void {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (seen.has(item.id)) invalid(`${path}[${i}].id`, `repeats id ${item.id}`);
    seen.add(item.id);
  });
}

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value);
}

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (isLosslessNumber(value)) return value.value;
  return typeof value === 'object' && value !== null ? (Array.isArray(value) ? 'array' : 'object') : String(value);
}

function objectAt(value: unknown, path: string): JsonObject {
  if (!isJsonObject(value)) invalid(path, 'must be an object');
  return value;
}

function optionalObjectAt(value: unknown, path: string): JsonObject {
  return value == null ? {} : objectAt(value, path);
}

function arrayAt(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) invalid(path, 'must be an array');
  return value;
}

function stringAt(value: unknown, path: string): string {
  if (typeof value !== 'string') invalid(path, 'must be a string');
  return value;
}

/** Non-empty and within the column's length (the contract's 1–256 / 1–128 limits). */
function textAt(value: unknown, path: string, maxLength: number): string {
  const text = stringAt(value, path);
  if (text.length === 0 || text.length > maxLength) invalid(path, `must be 1-${maxLength} characters`);
  return text;
}

function nullableTextAt(value: unknown, path: string, maxLength: number): string | null {
  return value == null ? null : textAt(value, path, maxLength);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function uuidAt(value: unknown, path: string): string {
  if (typeof value !== 'string' || !UUID.test(value)) invalid(path, 'must be a UUID');
  // Postgres prints uuids in lowercase; comparing remapped ids needs one spelling.
  return value.toLowerCase();
}

function numberAt(value: unknown, path: string): number {
  const n = isLosslessNumber(value) ? Number(value.value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n)) invalid(path, 'must be a finite number');
  return n;
}

function oneOfAt<T extends string>(value: unknown, allowed: readonly T[], path: string): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    invalid(path, `must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

function timestampAt(value: unknown, path: string): string {
  const micros = typeof value === 'string' ? parseTimestampMicros(value) : null;
  if (micros === null) invalid(path, 'must be an ISO 8601 timestamp');
  return formatTimestampMicros(micros);
}

// ---------------------------------------------------------------------------------------------
// Timestamps at microsecond precision (epoch microseconds as bigint: year 2255 already passes
// 2^53 microseconds)

const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

/**
 * Reads what Python's `isoformat()` and Postgres write (`T` or space, optional fraction, `Z`,
 * `+HH`, `+HH:MM` or no offset, taken as UTC). Digits past microseconds are dropped.
 */
export function parseTimestampMicros(text: string): bigint | null {
  const m = TIMESTAMP.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  if (year < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 onto 1900–1999.
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  const fraction = BigInt((m[7] ?? '').slice(0, 6).padEnd(6, '0'));
  let offsetMinutes = 0;
  if (m[9] !== undefined) {
    const hours = Number(m[10]);
    const minutes = Number(m[11] ?? '0');
    if (hours > 23 || minutes > 59) return null;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  const seconds = date.getTime() / 1000 + hour * 3600 + minute * 60 + second - offsetMinutes * 60;
  return BigInt(seconds) * 1_000_000n + fraction;
}

/** `YYYY-MM-DDTHH:MM:SS.ffffff+00:00`, Python's `isoformat()` of a UTC datetime. */
export function formatTimestampMicros(micros: bigint): string {
  let seconds = micros / 1_000_000n;
  let fraction = micros % 1_000_000n;
  if (fraction < 0n) {
    fraction += 1_000_000n;
    seconds -= 1n;
  }
  const date = new Date(Number(seconds) * 1000);
  const year = date.getUTCFullYear();
  if (!(year >= 1 && year <= 9999)) throw new RangeError(`Timestamp out of range (year ${year})`);
  return `${date.toISOString().slice(0, 19)}.${fraction.toString().padStart(6, '0')}+00:00`;
}

// ---------------------------------------------------------------------------------------------
// Import planning

export interface ImportOptions {
  targetSubjectId?: string;
  targetTenantId?: string;
  preserveIds: boolean;
  newId: () => string;
}

export interface ImportPlan {
  subject_id: string;
  tenant_id: string | null;
  ids_preserved: boolean;
  episodes: EpisodeExportRow[];
  memories: MemoryExportRow[];
  receipts: ReceiptExportRow[];
}

/**
 * Rows for a verified document. Every item moves to the target subject; the tenant becomes the
 * target tenant when given, else each item keeps its own. Without preserve_ids every episode and
 * memory gets a new id and references inside the document (`source_episode_ids`,
 * `superseded_by`) follow; a reference to something outside the document is kept as it is —
 * it never pointed at a row of this import, and dropping it would lose provenance.
 */
export function planImport(doc: ExportDocument, options: ImportOptions): ImportPlan {
  const subjectId = options.targetSubjectId ?? doc.subject_id;
  const tenant = (own: string | null) => options.targetTenantId ?? own;
  const episodeIds = idMap(doc.episodes, options);
  const memoryIds = idMap(doc.memories, options);
  return {
    subject_id: subjectId,
    tenant_id: options.targetTenantId ?? doc.tenant_id,
    ids_preserved: options.preserveIds,
    episodes: doc.episodes.map((e) =>
      toEpisodeRow({ ...e, id: episodeIds.get(e.id)!, subject_id: subjectId, tenant_id: tenant(e.tenant_id) }),
    ),
    memories: doc.memories.map((m) =>
      toMemoryRow({
        ...m,
        id: memoryIds.get(m.id)!,
        subject_id: subjectId,
        tenant_id: tenant(m.tenant_id),
        source_episode_ids: m.source_episode_ids.map((id) => episodeIds.get(id) ?? id),
        superseded_by: m.superseded_by === null ? null : (memoryIds.get(m.superseded_by) ?? m.superseded_by),
      }),
    ),
    // Receipts keep their ids and bodies whatever preserve_ids says: a body is signed as it was
    // written (its own ids and subject included), so only the holding row moves.
    receipts: doc.receipts.map((r) => ({
      id: r.receipt.receipt_id as string,
      tenant_id: tenant(r.tenant_id),
      body: JSON.stringify(r.receipt),
    })),
  };
}

function idMap(items: readonly { id: string }[], options: ImportOptions): Map<string, string> {
  return new Map(items.map((item) => [item.id, options.preserveIds ? item.id : options.newId()]));
}

/** compat.md: an ID conflict rejection's message starts with `ID conflict`. */
export function idConflictMessage(episodeIds: readonly string[], memoryIds: readonly string[]): string {
  const taken = [...episodeIds, ...memoryIds];
  return (
    `ID conflict: ${episodeIds.length} episode id(s) and ${memoryIds.length} memory id(s) already exist ` +
    `(first: ${taken[0]}); import with preserve_ids=false to give the copies new ids`
  );
}

/**
 * A local, deterministic OpenAI-compatible server for tests: POST /v1/embeddings and
 * POST /v1/chat/completions on 127.0.0.1 (port 0), no network. Each endpoint answers with its
 * default handler unless a test queued one-shot replies (success, an HTTP error with headers,
 * a hang past the client's timeout, a non-JSON body, any chat content).
 *
 * The default chat "model" reads the prompt the llm compiler sends: for each episode it
 * returns an episode_summary and a profile_fact per sentence stating a name, preference,
 * home town or email, superseding an existing memory that states the same kind of thing.
 */
import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { stubEmbedding } from 'src/modules/models/stub-embedding';

export interface FakeRequest {
  path: string;
  headers: IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export type FakeReply =
  | { status?: number; json?: unknown; headers?: Record<string, string>; text?: string }
  | { hang: true };

export type FakeHandler = (req: FakeRequest) => FakeReply;

/** Chat reply whose assistant message is `content` (any text, valid JSON or not). */
export function chatReply(content: string, finishReason = 'stop'): FakeReply {
  return {
    json: {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      created: 0,
      model: 'fake',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    },
  };
}

export function memoriesReply(memories: unknown[]): FakeReply {
  return chatReply(JSON.stringify({ memories }));
}

export function embeddingsReply(vectors: number[][]): FakeReply {
  return {
    json: {
      object: 'list',
      model: 'fake',
      data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
      usage: { prompt_tokens: 1, total_tokens: 1 },
    },
  };
}

export function errorReply(status: number, message: string, headers: Record<string, string> = {}): FakeReply {
  return { status, headers, json: { error: { message, type: 'fake_error', code: null } } };
}

/** Episodes of a compile prompt: alias, header and text. */
export function promptEpisodes(userContent: string): { alias: string; text: string }[] {
  const part = userContent.split('NEW EPISODES:\n')[1] ?? '';
  const body = part.split('\n\nReply with the JSON object.')[0];
  return body
    .split(/\n\n(?=\[E\d+\] )/)
    .map((block) => {
      const m = /^\[(E\d+)\] [^\n]*\n?([\s\S]*)$/.exec(block);
      return m ? { alias: m[1], text: m[2] } : null;
    })
    .filter((e): e is { alias: string; text: string } => e !== null);
}

/** Existing memories of a compile prompt: alias and content. */
export function promptMemories(userContent: string): { alias: string; content: string }[] {
  const part = (userContent.split('EXISTING MEMORIES:\n')[1] ?? '').split('\n\nNEW EPISODES:')[0];
  return part
    .split('\n')
    .map((line) => /^\[(M\d+)\] [a-z_]+: (.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ alias: m[1], content: m[2] }));
}

const FACT = /\b(my name is|i prefer|i live in|my email is)\b[^.!?\n]*/i;

/** The default deterministic chat model (see the file comment). */
export function defaultChat(req: FakeRequest): FakeReply {
  const user = String(req.body.messages?.find((m: { role: string }) => m.role === 'user')?.content ?? '');
  const existing = promptMemories(user);
  const memories: unknown[] = [];
  for (const episode of promptEpisodes(user)) {
    const firstLine = episode.text.split('\n')[0] ?? '';
    memories.push({ kind: 'episode_summary', content: firstLine, summary: 'conversation', confidence: 0.7, source_episode_ids: [episode.alias], supersedes_memory_id: null });
    for (const line of episode.text.split('\n')) {
      const text = line.replace(/^[a-z]+: /, '');
      for (const sentence of text.split(/(?<=[.!?])\s+/)) {
        const m = FACT.exec(sentence);
        if (!m) continue;
        const key = m[1].toLowerCase();
        const old = existing.find((e) => e.content.toLowerCase().includes(key));
        memories.push({
          kind: 'profile_fact',
          content: sentence.trim(),
          summary: key,
          confidence: 0.9,
          source_episode_ids: [episode.alias],
          supersedes_memory_id: old?.alias ?? null,
        });
      }
    }
  }
  return memoriesReply(memories);
}

export class FakeOpenAIServer {
  readonly requests: FakeRequest[] = [];
  private readonly queues = new Map<string, FakeHandler[]>();
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private readonly hanging = new Set<ServerResponse>();
  url = '';

  /** Vectors of the default embeddings handler when the request names no `dimensions`. */
  constructor(public embeddingDimensions = 64) {}

  defaults: Record<string, FakeHandler> = {
    '/v1/chat/completions': defaultChat,
    '/v1/embeddings': (req) => {
      const input: string[] = Array.isArray(req.body.input) ? req.body.input : [req.body.input];
      const dims = typeof req.body.dimensions === 'number' ? req.body.dimensions : this.embeddingDimensions;
      return embeddingsReply(input.map((text) => stubEmbedding(text, dims)));
    },
  };

  /** One-shot replies for the next requests to `path`, in order; then the default again. */
  queue(path: '/v1/chat/completions' | '/v1/embeddings', ...replies: (FakeReply | FakeHandler)[]): void {
    const list = this.queues.get(path) ?? [];
    for (const r of replies) list.push(typeof r === 'function' ? r : () => r);
    this.queues.set(path, list);
  }

  chat(...replies: (FakeReply | FakeHandler)[]): void {
    this.queue('/v1/chat/completions', ...replies);
  }

  embeddings(...replies: (FakeReply | FakeHandler)[]): void {
    this.queue('/v1/embeddings', ...replies);
  }

  requestsTo(path: string): FakeRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  reset(): void {
    this.requests.length = 0;
    this.queues.clear();
    this.releaseHanging();
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        let body: unknown = null;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          body = null;
        }
        const path = (req.url ?? '').split('?')[0];
        const request: FakeRequest = { path, headers: req.headers, body };
        this.requests.push(request);
        const handler = this.queues.get(path)?.shift() ?? this.defaults[path];
        if (!handler || req.method !== 'POST') {
          res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
          return;
        }
        const reply = handler(request);
        if ('hang' in reply) {
          this.hanging.add(res);
          return;
        }
        const headers = { ...(reply.headers ?? {}) };
        if (reply.text !== undefined) {
          res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...headers }).end(reply.text);
        } else {
          res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(reply.json ?? {}));
        }
      });
    });
    this.server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this.url;
  }

  async stop(): Promise<void> {
    this.releaseHanging();
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = null;
  }

  private releaseHanging(): void {
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
  }
}

/**
 * COMPILER_TYPE=llm: a chat model turns episodes into memories.
 *
 * Per chunk of episodes (LLM_CHUNK_TOKENS) one request carries the subject's active memories
 * (bounded) and the chunk; the reply is parsed and every item validated on its own (see
 * llm-output.ts). Invalid items are dropped and counted; an unusable reply gets one repair
 * turn; a second unusable reply, or a model that cannot be reached after the gateway's
 * retries, fails the whole compile (LlmCompileError, 503) so nothing is half-stored and the
 * episodes stay uncompiled — or, with LLM_FALLBACK_TO_HEURISTIC, the heuristic compiler
 * compiles the same episodes instead.
 *
 * Memories accepted from an earlier chunk are shown to later chunks too, so a fact that
 * changes within one compile supersedes its own earlier draft.
 */
import { Logger } from '@nestjs/common';
import { ErrorCode } from 'src/common/errors/error-codes';
import { AppError } from 'src/common/errors/app-error';
import { comparable } from 'src/compiler/compiler-text';
import { compileHeuristic } from 'src/compiler/heuristic-compiler';
import type { CompilerEpisode, ExistingMemory } from 'src/compiler/compiler.types';
import type { MemoryCompiler, CompilePlan, MemoryDraft } from 'src/compiler/compiler.types';
import { chunkEpisodes, pickMemories } from './episode-chunks';
import type { EpisodeChunk, KnownMemory } from './episode-chunks';
import { InvalidOutputError, parseReply, validateReply } from './llm-output';
import type { ReplyContext, ValidatedReply } from './llm-output';
import { ModelCallError } from 'src/modules/models/model-gateway';
import type { ChatMessage, ModelGateway } from 'src/modules/models/model-gateway';
import { OUTPUT_SCHEMA, PROMPT_VERSION, repairMessages, SYSTEM_PROMPT, userPrompt } from './prompts';

/** Existing memories shown per request: enough to supersede, small next to the episodes. */
const MEMORY_BUDGET_TOKENS = 2000;
const MAX_MEMORIES_SHOWN = 100;

export interface LlmCompilerSettings {
  model: string;
  responseFormat: 'json_schema' | 'json_object' | 'none';
  chunkTokens: number;
  maxOutputTokens: number;
  maxEpisodesPerCompile: number;
  fallbackToHeuristic: boolean;
}

export type LlmFailure = 'invalid_output' | 'model_unavailable';

/** The compile could not use the model. 503: nothing was stored, a retry is safe. */
export class LlmCompileError extends AppError {
  constructor(
    readonly failure: LlmFailure,
    message: string,
    model: string,
  ) {
    super(ErrorCode.ServiceUnavailable, message, { reason: failure, model, prompt_version: PROMPT_VERSION });
  }
}

interface CompileStats {
  chunks: number;
  requests: number;
  accepted: number;
  rejected: number;
  duplicates: number;
}

export class LlmCompiler implements MemoryCompiler {
  readonly remote = true;
  readonly name: string;
  private readonly logger = new Logger('llm-compiler');

  constructor(
    private readonly gateway: ModelGateway,
    private readonly settings: LlmCompilerSettings,
  ) {
    this.name = `llm:${settings.model}:${PROMPT_VERSION}`;
  }

  get maxEpisodesPerCompile(): number {
    return this.settings.maxEpisodesPerCompile;
  }

  async compile(episodes: CompilerEpisode[], existing: ExistingMemory[]): Promise<CompilePlan> {
    if (episodes.length === 0) return { drafts: [], supersede: [] };
    try {
      return await this.compileWithModel(episodes, existing);
    } catch (err) {
      if (!(err instanceof LlmCompileError) || !this.settings.fallbackToHeuristic) throw err;
      this.logger.warn(
        { err: { message: err.message }, reason: err.failure, episodes: episodes.length },
        'llm compile failed; compiling these episodes with the heuristic compiler (LLM_FALLBACK_TO_HEURISTIC)',
      );
      return compileHeuristic(episodes, existing);
    }
  }

  private async compileWithModel(episodes: CompilerEpisode[], existing: ExistingMemory[]): Promise<CompilePlan> {
    const stats: CompileStats = { chunks: 0, requests: 0, accepted: 0, rejected: 0, duplicates: 0 };
    const drafts: MemoryDraft[] = [];
    const supersede: CompilePlan['supersede'] = [];
    const superseded = new Set<string>();
    const seen = new Set(existing.map((m) => contentKey(m.kind, m.content)));
    for (const chunk of chunkEpisodes(episodes, this.settings.chunkTokens)) {
      stats.chunks++;
      // Newest first: this compile's own drafts, then the stored memories nobody superseded yet.
      const known: KnownMemory[] = [
        ...drafts
          .map((d, i) => ({ d, i }))
          .filter(({ d }) => d.status === 'active' && d.kind !== 'episode_summary')
          .reverse()
          .map(({ d, i }) => ({ ref: `draft:${i}`, kind: d.kind, content: d.content })),
        ...existing.filter((m) => !superseded.has(m.id)).map((m) => ({ ref: `memory:${m.id}`, kind: m.kind, content: m.content })),
      ];
      const { prompt: memories, refs } = pickMemories(known, MEMORY_BUDGET_TOKENS, MAX_MEMORIES_SHOWN);
      const reply = await this.ask(chunk, memories, refs, stats);
      const byId = new Map(chunk.episodes.map(({ episode }) => [episode.id, episode]));
      for (const item of reply.items) {
        const key = contentKey(item.kind, item.content);
        if (item.supersedes === null && seen.has(key)) {
          stats.duplicates++;
          continue;
        }
        seen.add(key);
        const sources = item.sourceEpisodeIds.map((id) => byId.get(id)!);
        const validFrom = new Date(Math.max(...sources.map((e) => e.created_at.getTime())));
        const sessions = [...new Set(sources.map((e) => e.session_id))];
        const index = drafts.length;
        drafts.push({
          kind: item.kind,
          content: item.content,
          summary: item.summary,
          confidence: item.confidence,
          source_episode_ids: item.sourceEpisodeIds,
          attribute_key: null,
          valid_from: validFrom,
          valid_to: null,
          status: 'active',
          metadata: { compiler: this.name, ...(sessions.length === 1 && sessions[0] !== null ? { session_id: sessions[0] } : {}) },
        });
        stats.accepted++;
        if (item.supersedes?.startsWith('memory:')) {
          const id = item.supersedes.slice('memory:'.length);
          if (!superseded.has(id)) {
            superseded.add(id);
            supersede.push({ id, valid_to: validFrom, by_draft: index });
          }
        } else if (item.supersedes?.startsWith('draft:')) {
          const old = drafts[Number(item.supersedes.slice('draft:'.length))];
          if (old.status === 'active') {
            old.status = 'superseded';
            old.valid_to = new Date(Math.max(validFrom.getTime(), old.valid_from.getTime()));
            old.replaced_by_draft = index;
          }
        }
      }
    }
    this.logger.log({ model: this.settings.model, prompt_version: PROMPT_VERSION, episodes: episodes.length, ...stats }, 'llm compile done');
    return { drafts, supersede };
  }

  /** One request for a chunk, and at most one repair turn when the reply is unusable. */
  private async ask(chunk: EpisodeChunk, memories: ReturnType<typeof pickMemories>['prompt'], refs: Map<string, string>, stats: CompileStats): Promise<ValidatedReply> {
    const episodeRefs = new Map<string, string>();
    for (const { episode, prompt } of chunk.episodes) {
      episodeRefs.set(prompt.alias, episode.id);
      episodeRefs.set(episode.id, episode.id);
    }
    const memoryRefs = new Map(refs);
    for (const ref of refs.values()) if (ref.startsWith('memory:')) memoryRefs.set(ref.slice('memory:'.length), ref);
    const ctx: ReplyContext = { episodes: episodeRefs, memories: memoryRefs };
    const messages: ChatMessage[] = [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: userPrompt(memories, chunk.episodes.map((e) => e.prompt)) },
    ];
    const first = await this.request(messages, stats);
    let problem: string;
    try {
      return this.validated(first.content, ctx, stats);
    } catch (err) {
      if (!(err instanceof InvalidOutputError)) throw err;
      problem = describe(err, first.finishReason);
    }
    this.logger.warn({ model: this.settings.model, problem }, 'llm reply unusable; asking the model once to repair it');
    const second = await this.request(repairMessages(messages, first.content, problem), stats);
    try {
      return this.validated(second.content, ctx, stats);
    } catch (err) {
      if (!(err instanceof InvalidOutputError)) throw err;
      throw new LlmCompileError(
        'invalid_output',
        `LLM compiler: model ${this.settings.model} returned unusable output twice (${describe(err, second.finishReason)}); nothing was stored and the episodes stay uncompiled`,
        this.settings.model,
      );
    }
  }

  private async request(messages: ChatMessage[], stats: CompileStats): Promise<{ content: string; finishReason: string | null }> {
    stats.requests++;
    try {
      return await this.gateway.chat({
        model: this.settings.model,
        messages,
        responseFormat: this.settings.responseFormat,
        schema: OUTPUT_SCHEMA,
        maxOutputTokens: this.settings.maxOutputTokens,
      });
    } catch (err) {
      if (!(err instanceof ModelCallError)) throw err;
      throw new LlmCompileError(
        'model_unavailable',
        `LLM compiler: ${err.message}; nothing was stored and the episodes stay uncompiled`,
        this.settings.model,
      );
    }
  }

  private validated(content: string, ctx: ReplyContext, stats: CompileStats): ValidatedReply {
    const reply = validateReply(parseReply(content), ctx);
    if (reply.rejected.length > 0) {
      stats.rejected += reply.rejected.length;
      this.logger.warn({ model: this.settings.model, rejected: reply.rejected.length, reasons: reply.rejected.slice(0, 10) }, 'llm items rejected');
    }
    return reply;
  }
}

function contentKey(kind: string, content: string): string {
  return `${kind}\u0000${comparable(content)}`;
}

function describe(err: InvalidOutputError, finishReason: string | null): string {
  return finishReason === 'length' ? `${err.message}; the reply was cut off at the output token limit` : err.message;
}

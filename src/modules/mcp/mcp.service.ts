import { Injectable, Type } from '@nestjs/common';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import type { Ctx } from 'src/common/context/request-context';
import { AppError } from 'src/common/errors/app-error';
import { AppValidationPipe } from 'src/common/http/validation.pipe';
import { metrics } from 'src/common/metrics/metrics';
import { withSpan } from 'src/common/tracing/tracing';
import { ContextService } from 'src/modules/context/context.service';
import { ContextRequestDto } from 'src/modules/context/dto/context.dto';
import { CreateEpisodeDto } from 'src/modules/episodes/dto/create-episode.dto';
import { EpisodesService } from 'src/modules/episodes/episodes.service';
import { CompileRequestDto, JobIdParamDto } from 'src/modules/memories/dto/compile.dto';
import { DEFAULT_SEARCH_LIMIT, SearchMemoriesQueryDto } from 'src/modules/memories/dto/search.dto';
import { CorrectMemoryDto, DEFAULT_MEMORY_CONFIDENCE, MemoryIdParamDto, RememberMemoryDto } from 'src/modules/memories/dto/memory-write.dto';
import { CompileService } from 'src/modules/memories/compile.service';
import { MemoriesService } from 'src/modules/memories/memories.service';
import { MemoryRecordsService } from 'src/modules/memories/memory-records.service';
import { MEMORY_KINDS } from 'src/compiler/memory-kinds';
import { PolicyService } from 'src/modules/policy/policy.service';
import { ReceiptIdParamDto } from 'src/modules/receipts/dto/receipt.dto';
import { ReceiptsService } from 'src/modules/receipts/receipts.service';
import { DEFAULT_TIMELINE_LIMIT, SubjectParamDto, TimelineQueryDto } from 'src/modules/subjects/dto/subjects.dto';
import { SubjectsService } from 'src/modules/subjects/subjects.service';
import { DEFAULT_HANDOFF_MAX_TOKENS, DEFAULT_HANDOFF_REASON, HandoffRequestDto } from 'src/modules/support/dto/handoff.dto';
import { DEFAULT_RESOLUTION_STATUS, UpsertResolutionDto } from 'src/modules/support/dto/resolution.dto';
import { DEFAULT_FIRST_RESPONSE_THRESHOLD_MINUTES, DEFAULT_RESOLUTION_THRESHOLD_HOURS, SlaQueryDto } from 'src/modules/support/dto/sla.dto';
import { SupportService } from 'src/modules/support/support.service';
import { RESOLUTION_STATUSES } from 'src/modules/support/support.types';
import { SERVICE_VERSION } from 'src/common/version';
import { toToolError } from './mcp-errors';

/**
 * How one MCP connection reaches the services. Over HTTP the request's context (request id,
 * tenant from the guards) already exists and every call runs in it; over stdio each call opens
 * a context of its own with the process's tenant.
 */
export interface McpSession {
  transport: 'http' | 'stdio';
  run<T>(fn: (ctx: Ctx) => Promise<T>): Promise<T>;
}

export const PROFILE_URI_TEMPLATE = 'memory://subjects/{subject_id}/profile';
const PROFILE_FACTS_LIMIT = 500;

// Argument schemas: the JSON schema a model sees. Limits mirror the REST DTOs, which also check
// every call (the DTO is the rule; these tell the model about it up front); test/e2e/mcp checks
// that every bound here is the DTO's.
const subjectId = z.string().min(1).max(256).describe('The subject: a user, account, workspace, repository, ticket or agent id.');
const sessionId = z.string().min(1).max(256);
const optionalId = (what: string) => z.string().min(1).max(256).optional().describe(what);
// Who is asking: the tenant's policy bundle may keep labelled memories from some caller types,
// on every read below (docs/governance.md); receipts record it.
const callerFields = {
  caller_id: optionalId('Who is asking, e.g. "agent-7" (stored on receipts).'),
  caller_type: optionalId('What kind of caller, e.g. "support_bot": the policy may deny labelled memories to some types.'),
};
// The governance fields of the REST context and handoff bodies (ReceiptRequestFieldsDto).
const receiptFields = {
  ...callerFields,
  emit_receipt: z.boolean().optional().describe('Write a signed receipt of exactly what this call returned (see get_receipt).'),
  query_id: optionalId('Your own query id, stored on the receipt.'),
  task_id: optionalId('Your own task id, stored on the receipt.'),
  parent_receipt_id: optionalId('The receipt this call follows from, for multi-step agents.'),
};

const memoryId = z.string().min(1).max(256).describe('The memory id (from search_memories, get_context provenance or remember).');

// As-of reads (docs/governance.md, section 3): the same field as the REST reads.
const asOf = z.string().optional().describe('ISO-8601 instant in the past: answer as the memory stood then (default now).');

/** The caller of an MCP read, as the policy reads it. */
function callerOf(args: { caller_id?: unknown; caller_type?: unknown }): { caller_id: string | null; caller_type: string | null } {
  return { caller_id: typeof args.caller_id === 'string' ? args.caller_id : null, caller_type: typeof args.caller_type === 'string' ? args.caller_type : null };
}

/** Wraps a tool's work in the per-call span, metric and error mapping. */
type ToolRunner = <A>(name: string, run: (ctx: Ctx, args: A) => Promise<CallToolResult>) => (args: A) => Promise<CallToolResult>;

function ok(result: object, text?: string): CallToolResult {
  return { content: [{ type: 'text', text: text ?? JSON.stringify(result, null, 2) }], structuredContent: result as Record<string, unknown> };
}

/** Builds the MCP server (tools and resources) over the same services the REST controllers call. */
@Injectable()
export class McpService {
  private readonly pipe = new AppValidationPipe();

  constructor(
    private readonly ds: DataSource,
    private readonly episodes: EpisodesService,
    private readonly memories: MemoriesService,
    private readonly pipeline: CompileService,
    private readonly records: MemoryRecordsService,
    private readonly context: ContextService,
    private readonly support: SupportService,
    private readonly subjects: SubjectsService,
    private readonly policies: PolicyService,
    private readonly receipts: ReceiptsService,
  ) {}

  /** The REST rules for a tool's arguments: the same DTO class, the same 422 details. */
  private async check<T extends object>(cls: Type<T>, value: unknown): Promise<T> {
    return (await this.pipe.transform(value ?? {}, { type: 'body', metatype: cls })) as T;
  }

  createServer(session: McpSession): McpServer {
    const server = new McpServer(
      { name: 'memory-service', version: SERVICE_VERSION },
      {
        instructions:
          'Durable memory for agents, organised by subject (a user, account, ticket, agent…). Record what happens with ingest_episode, ' +
          'turn new episodes into memories with compile_memories, and before acting for a subject call get_context with your task ' +
          'to receive a ranked markdown briefing. Manage single memories with remember, get_memory, correct_memory and ' +
          'forget_memory. Errors carry codes like validation_error and not_found.',
      },
    );

    const tool = this.toolRunner(session);
    this.registerPipelineTools(server, tool);
    this.registerReadTools(server, tool);
    this.registerMemoryTools(server, tool);
    this.registerSubjectTools(server, tool);
    this.registerSupportTools(server, tool);
    this.registerProfileResource(server, session);
    return server;
  }

  /** Every tool: span, metric, DTO check, contract error codes. */
  private toolRunner(session: McpSession): ToolRunner {
    return (name, run) => (args) =>
      session.run((ctx) =>
        withSpan('mcp.tool', { 'mcp.tool': name, 'mcp.transport': session.transport }, async () => {
          try {
            const result = await run(ctx, args);
            metrics.mcpToolCalls.inc({ tool: name, transport: session.transport, outcome: 'ok' });
            return result;
          } catch (err) {
            metrics.mcpToolCalls.inc({ tool: name, transport: session.transport, outcome: 'error' });
            return toToolError(err, ctx.requestId);
          }
        }),
      );
  }

  /** Episodes in, memories compiled: ingest_episode, compile_memories, get_compile_job. */
  private registerPipelineTools(server: McpServer, tool: ToolRunner): void {
    server.registerTool(
      'ingest_episode',
      {
        title: 'Record an episode',
        description:
          'Store one interaction for a subject: a conversation, ticket update, note or tool result. Episodes are immutable and ' +
          'append-only; nothing is learned from them until compile_memories runs. For conversations use ' +
          'payload {"messages": [{"role": "user", "content": "..."}, {"role": "assistant", "content": "..."}]}. ' +
          'Pass session_id for support conversations (it drives SLA, health and handoff) and idempotency_key to make retries safe. ' +
          'Returns the stored episode with its id.',
        inputSchema: {
          subject_id: subjectId,
          source: z.string().min(1).max(256).describe('Who or what produced it, e.g. user, support-chat, agent, tool.'),
          type: z.string().min(1).max(128).describe('Kind of record, e.g. conversation, ticket, note.'),
          payload: z.record(z.string(), z.unknown()).describe('The content. Conversations: {"messages": [{"role", "content"}]}.'),
          metadata: z.record(z.string(), z.unknown()).optional(),
          provenance: z.record(z.string(), z.unknown()).optional(),
          session_id: sessionId.optional().describe('Support session (conversation or ticket) id.'),
          idempotency_key: z.string().min(1).max(256).optional().describe('A retry with the same key returns the original episode instead of a duplicate.'),
        },
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      },
      tool('ingest_episode', async (ctx, args) => ok(await this.episodes.create(ctx, await this.check(CreateEpisodeDto, args)))),
    );

    server.registerTool(
      'compile_memories',
      {
        title: 'Compile memories',
        description:
          "Turn the subject's not-yet-compiled episodes into typed memories (profile facts, episode summaries, procedures), each " +
          'with a confidence and the ids of its source episodes; newer facts supersede older overlapping ones. Idempotent: only new ' +
          'episodes are processed. Synchronous by default (returns the memories created); with async=true returns a job_id to poll ' +
          'with get_compile_job.',
        inputSchema: { subject_id: subjectId, async: z.boolean().optional().describe('Compile in the background and return a job id.') },
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      },
      tool('compile_memories', async (ctx, args) => ok(await this.pipeline.compile(ctx, await this.check(CompileRequestDto, args)))),
    );

    server.registerTool(
      'get_compile_job',
      {
        title: 'Compile job status',
        description: 'Status of an asynchronous compile (pending, running, completed with memories_created and memories, or failed with error).',
        inputSchema: { job_id: z.uuid().describe('The job_id returned by compile_memories with async=true.') },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      tool('get_compile_job', async (ctx, args) => ok(await this.pipeline.jobStatus(ctx, (await this.check(JobIdParamDto, args)).job_id))),
    );
  }

  /** Reads for acting on a subject: get_context, search_memories. */
  private registerReadTools(server: McpServer, tool: ToolRunner): void {
    server.registerTool(
      'get_context',
      {
        title: 'Get context for a task',
        description:
          'Get what the memory knows that matters for a task: a ranked, token-bounded markdown briefing with the sections Task, ' +
          'About this user (facts), Procedures, Recent history and Recent interactions, plus provenance (the ids of every fact, ' +
          'summary, procedure and episode used). Call it before answering or acting for a subject; describe the task in a sentence. ' +
          'Returns the markdown as text and {assembled_context, provenance, token_estimate} as structured content.',
        inputSchema: {
          subject_id: subjectId,
          task: z.string().min(1).max(4000).describe('What you are about to do, in plain words; relevance is judged against it.'),
          max_tokens: z.int().min(1).max(128000).optional().describe('Budget of the markdown in tokens (default: the server\'s SERVICE_DEFAULT_MAX_CONTEXT_TOKENS, 4000 unless set).'),
          session_id: sessionId.optional().describe('The conversation happening now: its items rank higher.'),
          as_of: asOf,
          ...receiptFields,
        },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      tool('get_context', async (ctx, args) => {
        const bundle = await this.context.assemble(ctx, await this.check(ContextRequestDto, args));
        const result = {
          subject_id: bundle.subject_id,
          task: bundle.task,
          assembled_context: bundle.assembled_context,
          provenance: bundle.provenance,
          token_estimate: bundle.token_estimate,
          sessions: bundle.sessions,
          receipt_id: bundle.receipt_id,
          receipt_emitted: bundle.receipt_emitted,
        };
        return {
          content: [
            { type: 'text', text: bundle.assembled_context },
            { type: 'text', text: JSON.stringify({ provenance: bundle.provenance, token_estimate: bundle.token_estimate, receipt_id: bundle.receipt_id }) },
          ],
          structuredContent: result,
        };
      }),
    );

    server.registerTool(
      'search_memories',
      {
        title: 'Search memories',
        description:
          "Search a subject's active memories by kind and/or text. q is a case-insensitive substring match on the content; with " +
          'semantic=true it is a meaning-based query (falls back to text when embeddings are unavailable). Without q, lists the newest.',
        inputSchema: {
          subject_id: subjectId,
          q: z.string().max(4000).optional().describe('Text to look for, or the query of a semantic search.'),
          kind: z.enum(MEMORY_KINDS).optional().describe('Only memories of this kind.'),
          semantic: z.boolean().optional().describe('Rank by meaning (cosine similarity) instead of substring match.'),
          limit: z.int().min(1).max(100).optional().describe(`1–100, default ${DEFAULT_SEARCH_LIMIT}.`),
          as_of: asOf,
          ...callerFields,
        },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      tool('search_memories', async (ctx, args) => ok(await this.memories.search(ctx, await this.check(SearchMemoriesQueryDto, args)))),
    );
  }

  /** Single memories: remember, get_memory, correct_memory, forget_memory. */
  private registerMemoryTools(server: McpServer, tool: ToolRunner): void {
    server.registerTool(
      'remember',
      {
        title: 'Remember one thing',
        description:
          'Store one memory about a subject directly, without an episode: a fact about the user (kind profile_fact), a procedure ' +
          'that worked, an episode summary or an artifact reference. It replaces the active memory it restates (same kind and the ' +
          'same attribute, e.g. a new plan or email, or the same text), which stays in the history as superseded. Pass ' +
          'idempotency_key to make retries safe. Returns the stored memory with its id.',
        inputSchema: {
          subject_id: subjectId,
          kind: z.enum(MEMORY_KINDS).describe('profile_fact for facts about the subject; procedure for how-tos.'),
          content: z.string().min(1).max(10000).describe('The memory in one or two plain sentences, e.g. "I am on the Team plan."'),
          confidence: z.number().min(0).max(1).optional().describe(`0–1, default ${DEFAULT_MEMORY_CONFIDENCE}.`),
          valid_from: z.string().optional().describe('ISO-8601 time it became true; default now.'),
          metadata: z.record(z.string(), z.unknown()).optional(),
          sensitivity_labels: z.array(z.string()).max(256).optional().describe('Labels the tenant policy reads, e.g. ["health"]: at most 32 once trimmed, lowercased and de-duplicated, each 1-64 characters of a-z 0-9 . _ : -.'),
          idempotency_key: z.string().min(1).max(256).optional().describe('A retry with the same key returns the original memory.'),
        },
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      },
      tool('remember', async (ctx, args) => ok(await this.records.remember(ctx, await this.check(RememberMemoryDto, args)))),
    );

    server.registerTool(
      'get_memory',
      {
        title: 'Read one memory',
        description: 'One memory by id in any status: active, superseded (replaced by a newer version) or tombstoned (forgotten, content erased).',
        inputSchema: { memory_id: memoryId, ...callerFields },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      tool('get_memory', async (ctx, args: { memory_id?: unknown; caller_id?: unknown; caller_type?: unknown }) => {
        const memory = await this.records.get(ctx, (await this.check(MemoryIdParamDto, { id: args.memory_id })).id);
        // A memory the policy keeps from this caller is answered like one that does not exist.
        if ((await this.governed(ctx, args, [memory])).length === 0) throw AppError.notFound('Memory not found.');
        return ok(memory);
      }),
    );

    server.registerTool(
      'correct_memory',
      {
        title: 'Correct a memory',
        description:
          'Fix a memory that is wrong or out of date: stores a corrected version that replaces it (the old version stays in the ' +
          'history as superseded). Give the new content and/or confidence. Only the active version can be corrected. Returns the new version.',
        inputSchema: {
          memory_id: memoryId,
          content: z.string().min(1).max(10000).optional().describe('The corrected statement.'),
          confidence: z.number().min(0).max(1).optional(),
          metadata: z.record(z.string(), z.unknown()).optional().describe('Replaces the metadata.'),
        },
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      },
      tool('correct_memory', async (ctx, args: { memory_id?: unknown } & Record<string, unknown>) => {
        const { memory_id, ...changes } = args;
        const { id } = await this.check(MemoryIdParamDto, { id: memory_id });
        return ok(await this.records.correct(ctx, id, await this.check(CorrectMemoryDto, changes)));
      }),
    );

    server.registerTool(
      'forget_memory',
      {
        title: 'Forget a memory',
        description:
          'Erase one memory for good, with the earlier versions it replaced: the content is deleted and only a tombstone (id, kind, ' +
          'times) remains. Cannot be undone. Only call it when the user asks for something to be forgotten.',
        inputSchema: { memory_id: memoryId },
        annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      },
      tool('forget_memory', async (ctx, args: { memory_id?: unknown }) => {
        const { id } = await this.check(MemoryIdParamDto, { id: args.memory_id });
        return ok(await this.records.forget(ctx, id, false));
      }),
    );
  }

  /** A subject as a whole: get_timeline, delete_subject. */
  private registerSubjectTools(server: McpServer, tool: ToolRunner): void {
    server.registerTool(
      'get_timeline',
      {
        title: 'Read the timeline',
        description: "A subject's episodes and memories (including superseded ones) in time order, oldest first.",
        inputSchema: {
          subject_id: subjectId,
          limit: z.int().min(1).max(10000).optional().describe(`At most this many episodes and memories each (default ${DEFAULT_TIMELINE_LIMIT}).`),
          cursor: z.string().min(1).max(512).optional().describe('next_cursor of the previous page (pages are also bounded in bytes).'),
          as_of: asOf,
          ...callerFields,
        },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      tool('get_timeline', async (ctx, args: { caller_id?: unknown; caller_type?: unknown }) => {
        const { caller_id: _id, caller_type: _type, ...rest } = args;
        const q = await this.check(TimelineQueryDto, rest);
        const timeline = await this.subjects.timeline(ctx, q.subject_id, q.limit, q.cursor, q.as_of);
        return ok({ ...timeline, memories: await this.governed(ctx, args, timeline.memories) });
      }),
    );

    server.registerTool(
      'delete_subject',
      {
        title: 'Delete a subject',
        description:
          'Permanently erase everything stored for a subject: episodes, memories, compile jobs, resolutions and cached health. ' +
          'Cannot be undone. Only call it when the user explicitly asks for their data to be deleted.',
        inputSchema: { subject_id: subjectId },
        annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      },
      tool('delete_subject', async (ctx, args) => ok(await this.subjects.delete(ctx, (await this.check(SubjectParamDto, args)).subject_id))),
    );
  }

  /** Support and receipts: get_health, get_sla, create_handoff, get_receipt, record_resolution. */
  private registerSupportTools(server: McpServer, tool: ToolRunner): void {
    server.registerTool(
      'get_health',
      {
        title: 'Customer health',
        description: 'Health score 0–100 of a subject (customer) with its state (healthy >= 70, watch 40–69, at_risk < 40) and the factors behind it (open issues, escalations, SLA breaches…).',
        inputSchema: { subject_id: subjectId },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      tool('get_health', async (ctx, args) => ok(await this.support.health(ctx, (await this.check(SubjectParamDto, args)).subject_id))),
    );

    server.registerTool(
      'get_sla',
      {
        title: 'SLA figures',
        description: "First-response and resolution times of a subject's support sessions, with breaches against the thresholds.",
        inputSchema: {
          subject_id: subjectId,
          first_response_threshold_minutes: z.number().min(0).max(1_000_000).optional().describe(`Default ${DEFAULT_FIRST_RESPONSE_THRESHOLD_MINUTES}.`),
          resolution_threshold_hours: z.number().min(0).max(1_000_000).optional().describe(`Default ${DEFAULT_RESOLUTION_THRESHOLD_HOURS}.`),
        },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      tool('get_sla', async (ctx, args: { subject_id?: unknown } & Record<string, unknown>) => {
        const { subject_id, ...thresholds } = args;
        const subject = await this.check(SubjectParamDto, { subject_id });
        return ok(await this.support.sla(ctx, subject.subject_id, await this.check(SlaQueryDto, thresholds)));
      }),
    );

    server.registerTool(
      'create_handoff',
      {
        title: 'Escalation handoff',
        description:
          'Build the handoff pack for escalating a support session to a human or another agent: the active issue, attempted steps, ' +
          'key facts, resolution history, recent context, health, and handoff_notes (a markdown brief cut to max_tokens).',
        inputSchema: {
          subject_id: subjectId,
          session_id: sessionId.describe('The session being escalated.'),
          reason: z.string().max(256).optional().describe(`Why it is handed over (default "${DEFAULT_HANDOFF_REASON}").`),
          max_tokens: z.int().min(1).max(16000).optional().describe(`Budget of handoff_notes (default ${DEFAULT_HANDOFF_MAX_TOKENS}).`),
          ...receiptFields,
        },
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      },
      tool('create_handoff', async (ctx, args) => ok(await this.support.handoff(ctx, await this.check(HandoffRequestDto, args)))),
    );

    server.registerTool(
      'get_receipt',
      {
        title: 'Read a receipt',
        description:
          'A receipt written by get_context or create_handoff (emit_receipt: true): exactly which memories and episodes the call ' +
          'returned, under which policy, with the hash of the text and its signature. Use it to show or check what an agent was shown.',
        inputSchema: { receipt_id: z.string().min(1).max(256).describe('The receipt_id a get_context or create_handoff call returned.') },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      tool('get_receipt', async (ctx, args) => ok(await this.receipts.get(ctx, (await this.check(ReceiptIdParamDto, args)).receipt_id))),
    );

    server.registerTool(
      'record_resolution',
      {
        title: 'Record a resolution',
        description: 'Set the status of a support session (open, resolved, unresolved) with an optional summary; creates the record or updates it.',
        inputSchema: {
          subject_id: subjectId,
          session_id: sessionId,
          status: z.enum(RESOLUTION_STATUSES).optional().describe(`Default ${DEFAULT_RESOLUTION_STATUS}.`),
          resolution_summary: z.string().max(2000).optional(),
          metadata: z.record(z.string(), z.unknown()).optional(),
        },
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      },
      tool('record_resolution', async (ctx, args) => ok(await this.support.upsertResolution(ctx, await this.check(UpsertResolutionDto, args)))),
    );
  }

  /** memory://subjects/{subject_id}/profile: the active profile facts, listed for the first 50 subjects. */
  private registerProfileResource(server: McpServer, session: McpSession): void {
    server.registerResource(
      'subject-profile',
      new ResourceTemplate(PROFILE_URI_TEMPLATE, {
        list: () =>
          session.run(async (ctx) => {
            const { subjects } = await this.subjects.list(ctx, 50, 0);
            return {
              resources: subjects.map((s) => ({
                uri: `memory://subjects/${encodeURIComponent(s.subject_id)}/profile`,
                name: `Profile of ${s.subject_id}`,
                mimeType: 'application/json',
              })),
            };
          }),
      }),
      {
        title: 'Subject profile',
        description: 'The active profile facts of a subject (what is known about them), with confidence, validity and source episode ids.',
        mimeType: 'application/json',
      },
      (uri, variables) => session.run((ctx) => this.readProfile(ctx, uri.href, String(variables.subject_id ?? ''))),
    );
  }

  private async readProfile(ctx: Ctx, uri: string, encoded: string): Promise<ReadResourceResult> {
    let subject: string;
    try {
      subject = decodeURIComponent(encoded);
    } catch {
      subject = encoded;
    }
    const { subject_id } = await this.check(SubjectParamDto, { subject_id: subject });
    const active = await this.memories.activeForSubject(this.ds.manager, ctx.scope, subject_id, { kinds: ['profile_fact'], limit: PROFILE_FACTS_LIMIT });
    // A resource read names no caller: the policy treats it as an unknown caller type.
    const rows = await this.governed(ctx, {}, active);
    const facts = rows.map((m) => ({
      id: m.id,
      content: m.content,
      confidence: m.confidence,
      valid_from: m.valid_from,
      valid_to: m.valid_to,
      source_episode_ids: m.source_episode_ids,
    }));
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ subject_id, facts }, null, 2) }] };
  }

  /**
   * The tenant's policy bundle over an MCP read that the REST surface does not govern (one
   * memory, the timeline, the profile resource): enforce mode leaves denied memories out.
   */
  private async governed<T extends { id: string; sensitivity_labels?: string[] | null }>(ctx: Ctx, args: { caller_id?: unknown; caller_type?: unknown }, rows: readonly T[]): Promise<T[]> {
    return this.policies.apply(await this.policies.active(ctx.scope), callerOf(args), rows).kept;
  }
}

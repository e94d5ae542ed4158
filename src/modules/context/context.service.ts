import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { Ctx } from 'src/common/context/request-context';
import { observeContextTokens } from 'src/common/metrics/instrument';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { VECTOR_MODE } from 'src/db/database.module';
import { ReadRouter } from 'src/db/read-replicas';
import type { VectorMode } from 'src/db/vector-support';
import { toEpisodeDto } from 'src/modules/episodes/dto/episode.dto';
import { toMemoryDto } from 'src/modules/memories/dto/memory.dto';
import { EmbeddingsService } from 'src/modules/models/embeddings.service';
import { episodeEntry, memoryEntry } from 'src/modules/receipts/receipt-body';
import { EmittedReceipt, GovernanceOptions, ReceiptsService } from 'src/modules/receipts/receipts.service';
import { ContextRepository, EpisodeCandidateRow, MemoryCandidateRow } from './context.repository';
import { ContextBundleDto, ContextRequestDto } from './dto/context.dto';
import { ContextExplanationDto } from './dto/context-explain.dto';
import { explainAssembly } from './explain';
import { assembleContext } from './assemble';
import { bundleSessions } from './bundle-sessions';
import { ContextCandidate, ContextLabel, MEMORY_LABELS, recordedAt } from './ranking';
import { anyTermTsQuery, queryTerms } from 'src/common/text/terms';
import { variantTsQuery } from './expansion';
import { WordVectors, wordVectors } from 'src/common/text/word-vectors';
import { parseAsOf } from 'src/common/db/as-of';
import { candidateSpeakers } from './speakers';
import { candidateLimits } from './candidate-limits';

/** Words of a task that fetch full-text candidates (see queryTerms). */
const MAX_QUERY_TERMS = 16;

/**
 * POST /v1/context: bounded candidates from SQL, scored by the contract's composite score
 * (ranking.ts), de-duplicated, selected and packed into the token budget (packing.ts).
 *
 * Decisions:
 * - An unknown subject (or one with nothing stored) answers 200 with empty lists and a bundle
 *   holding only the task section: context is a read that callers make before any data exists.
 * - Open support sessions (SupportService.openSessionIds) are not used for ranking. Finding
 *   them reads every episode of the subject, which breaks the bounded-candidate rule at 50,000
 *   episodes, and the request's `session_id` already names the conversation the agent is in;
 *   open issues are the handoff pack's subject (issue 10, item 5).
 * - Recency is relative to the newest candidate, not the wall clock, so identical requests give
 *   identical bundles; only validity (valid_to against now) reads the clock, and an as-of read
 *   (`as_of`) takes its instant as now, so it answers exactly as a read made then.
 * - BM25 document frequencies come from the candidates themselves, not from subject-wide SQL
 *   counts: on LoCoMo the subject-wide figures (one count per task word over both tables) cost
 *   15–30 ms on PGlite and lowered evidence recall at 1,000 tokens (69.1% against 73.7% on
 *   conv-26): the candidate pool is the corpus the ranking chooses from.
 * - A lexical embedding (EmbeddingProvider.lexical: the stub's hashed words and n-grams) gives
 *   no semantic relevance. Its cosine has no rarity weights, so a short memory sharing only the
 *   speaker's name with the task ("Caroline: Cool! What did it look like?") scored as high as the
 *   one the task is about and took its place: on LoCoMo, scoring memories by BM25 like episodes
 *   raised evidence recall at 1,000 tokens from 72.2% to 75.9% offline, in each of the five
 *   conversations (bench/README.md). Semantic embeddings (hosted or local) are used as before.
 * - Ranking expands the task's words with their nearest words among the fetched candidates by
 *   static word vectors (expansion.ts); the fetch itself stays by the task's own words. In an
 *   emulation of this fetch on LoCoMo the expansion raised evidence recall at 1,000 tokens from
 *   77.7% to 79.6%; a second text-hit branch for the expansion words added 0.3–0.4 more, with one
 *   conversation down, not worth another index lookup per request (bench/README.md, round 5).
 */
@Injectable()
export class ContextService implements OnModuleInit {
  private readonly logger = new Logger('context');

  constructor(
    private readonly reads: ReadRouter,
    private readonly repo: ContextRepository,
    private readonly embeddings: EmbeddingsService,
    private readonly receipts: ReceiptsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(VECTOR_MODE) private readonly vectorMode: VectorMode,
  ) {}

  /** Reads the word vectors at start, and sorts their stems for prefix lookups, so that no request waits for either. */
  onModuleInit(): void {
    this.wordVectors()?.withPrefix('');
  }

  /**
   * The vendored word vectors (src/common/text/word-vectors.ts) that expand the task's words in
   * ranking; null when the file is missing, and ranking then uses the task's words alone.
   */
  private wordVectors(): WordVectors | null {
    return wordVectors((err) => this.logger.warn({ err: { message: err.message } }, 'word vectors unavailable; context ranking uses the task words only'));
  }

  /**
   * Governance wraps the assembly at its edges (docs/governance.md): the policy bundle filters
   * the memory candidates before ranking and the receipt records what was packed, so ranking
   * and packing stay unaware of it. `opts` is how replay re-runs a receipt's request.
   */
  async assemble(ctx: Ctx, dto: ContextRequestDto, opts: GovernanceOptions = {}): Promise<ContextBundleDto> {
    const { bundle, receipt } = await this.run(ctx, dto, opts, false);
    return { ...bundle, ...(await receipt) };
  }

  /**
   * POST /v1/context as the JSON text of its ContextBundleDto. The receipt's INSERT (when one is
   * due) is in flight while the bundle is built and serialised, so a receipt adds its own work
   * and what is left of the database's answer after that, not a whole round trip; its fields
   * close the object, where `assemble` puts them too.
   */
  async assembleJson(ctx: Ctx, dto: ContextRequestDto): Promise<string> {
    const { bundle, receipt } = await this.run(ctx, dto, {}, false);
    const text = JSON.stringify(bundle);
    const { receipt_id, receipt_emitted } = await receipt;
    return `${text.slice(0, -1)},"receipt_id":${JSON.stringify(receipt_id)},"receipt_emitted":${receipt_emitted}}`;
  }

  /**
   * POST /v1/context/explain: the same assembly under the same auth, tenant, policy and receipt
   * rules, plus every candidate's score components and why it is in or out (explain.ts). The
   * explanation is computed only here, after the assembly, so POST /v1/context pays nothing.
   */
  async explain(ctx: Ctx, dto: ContextRequestDto): Promise<ContextExplanationDto> {
    const { bundle, receipt, explanation } = await this.run(ctx, dto, {}, true);
    return { bundle: { ...bundle, ...(await receipt) }, max_tokens: dto.max_tokens ?? this.config.defaultMaxContextTokens, session_id: dto.session_id ?? null, ...explanation! };
  }

  /**
   * The assembly. The bundle comes back without its receipt fields and the receipt as a promise
   * of them: the receipt's INSERT is sent before the bundle is built, and callers await it last.
   */
  private async run(
    ctx: Ctx,
    dto: ContextRequestDto,
    opts: GovernanceOptions,
    explain: boolean,
  ): Promise<{ bundle: BundleWithoutReceipt; receipt: Promise<EmittedReceipt>; explanation?: Pick<ContextExplanationDto, 'candidates' | 'sections'> }> {
    // An as-of read (the request's as_of, or a replay's) reads the data as it stood then and
    // takes that instant as "now" for validity; the receipt records it as its as_of.
    const asOf = opts.asOf ?? parseAsOf(dto.as_of, ['body', 'as_of']);
    const gov = await this.receipts.open(ctx, dto, { ...opts, asOf: asOf ?? undefined });
    const maxTokens = dto.max_tokens ?? this.config.defaultMaxContextTokens;
    const sessionId = dto.session_id ?? null;
    const taskWords = queryTerms(dto.task, MAX_QUERY_TERMS);
    const tsquery = anyTermTsQuery(taskWords);
    // A lexical embedding (the stub) is not semantic relevance: its cosine restates word overlap
    // that BM25 already weighs by rarity, so ranking stays on the text scale (see the decisions
    // above). Another local embedding is scored from the candidates' texts below; only a hosted
    // one needs the stored vectors (similarity in SQL, nearest neighbours under pgvector).
    const semantic = !this.embeddings.lexical;
    const local = semantic ? this.embeddings.localSimilarity(dto.task) : null;
    const vector = semantic && local === null ? await this.embeddings.embedQuery(dto.task) : null;
    const vectors = this.wordVectors();
    const variants = vectors === null ? null : variantTsQuery(taskWords.map((t) => t.term), vectors);
    const query = { subjectId: dto.subject_id, tsquery, variants, sessionId, vector, limits: candidateLimits(maxTokens), asOf };

    // Both candidate queries at once, outside a transaction, on a read replica when one may
    // serve them: each statement takes its own pooled connection, so on PostgreSQL the two run
    // on two backends side by side and the request waits for the longer, not the sum (PGlite's
    // one connection takes them in turn, as before).
    const [fetchedMemories, episodeRows] = await this.reads.read(ctx.scope, dto.subject_id, (em) =>
      Promise.all([this.repo.memoryCandidates(em, ctx.scope, this.vectorMode, query), this.repo.episodeCandidates(em, ctx.scope, query)]),
    );
    const memoryRows = this.receipts.filter(gov, fetchedMemories);
    const candidates = [
      ...memoryRows.filter((m) => MEMORY_LABELS.has(m.kind)).map((m) => memoryCandidate(m, local === null ? m.similarity : local(m.content))),
      ...episodeRows.map(episodeCandidate),
    ];
    const packed = assembleContext(dto.subject_id, dto.task, candidates, { maxTokens, sessionId, now: gov.asOf, wordVectors: vectors });

    observeContextTokens(packed.token_estimate);
    const memoriesById = new Map(memoryRows.map((m) => [m.id, m]));
    const episodesById = new Map(episodeRows.map((e) => [e.id, e]));
    const ofLabel = (label: ContextLabel) => packed.included.filter((c) => c.label === label);
    const facts = ofLabel('profile_fact').map((c) => memoriesById.get(c.id)!);
    const summaries = ofLabel('episode_summary').map((c) => memoriesById.get(c.id)!);
    const procedures = ofLabel('procedure').map((c) => memoriesById.get(c.id)!);
    const episodes = ofLabel('raw_episode').map((c) => episodesById.get(c.id)!);
    const receipt = this.receipts.emit(ctx, gov, {
      subjectId: dto.subject_id,
      task: dto.task,
      request: { endpoint: 'context', max_tokens: maxTokens, session_id: sessionId, caller_id: gov.caller.caller_id, caller_type: gov.caller.caller_type, reason: null },
      entries: () =>
        packed.included.map((c, rank) =>
          c.label === 'raw_episode' ? episodeEntry(episodesById.get(c.id)!, rank, c.score) : memoryEntry(memoriesById.get(c.id)!, rank, c.score),
        ),
      text: packed.assembled_context,
      tokenEstimate: packed.token_estimate,
    });
    if (gov.emit) {
      // Marked handled now (the callers await it after building the bundle), so a write that
      // fails before then is not an unhandled rejection; one turn of the event loop lets the
      // INSERT reach the database before the synchronous work below.
      receipt.catch(() => undefined);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }

    const bundle: BundleWithoutReceipt = {
      subject_id: dto.subject_id,
      task: dto.task,
      facts: [...facts, ...summaries].map(toMemoryDto),
      episodes: episodes.map(toEpisodeDto),
      procedures: procedures.map(toMemoryDto),
      provenance: {
        fact_ids: facts.map((m) => m.id),
        summary_ids: summaries.map((m) => m.id),
        procedure_ids: procedures.map((m) => m.id),
        episode_ids: episodes.map((e) => e.id),
      },
      assembled_context: packed.assembled_context,
      token_estimate: packed.token_estimate,
      sessions: bundleSessions(packed.included),
    };
    if (!explain) return { bundle, receipt };
    const ranked = new Set(candidates.map((c) => c.id));
    const explanation = explainAssembly({
      task: dto.task,
      candidates,
      maxTokens,
      sessionId,
      now: gov.asOf,
      wordVectors: vectors,
      packed,
      denials: gov.denials,
      unranked: fetchedMemories.filter((m) => !ranked.has(m.id)).map((m) => ({ id: m.id, kind: m.kind, created_at: m.valid_from, text: m.content })),
    });
    return { bundle, receipt, explanation };
  }
}

/** A bundle before its receipt is settled: the receipt's fields come last (ContextService.run). */
type BundleWithoutReceipt = Omit<ContextBundleDto, keyof EmittedReceipt>;

/**
 * A memory is placed in time by valid_from (when it became true: the source episode's time),
 * not by when a compile happened to run, or by its source episode's client date when that is
 * an ISO date (ranking.ts, `timeOf`); a summary belongs to its episode's session.
 */
function memoryCandidate(m: MemoryCandidateRow, similarity: number | null): ContextCandidate {
  return {
    id: m.id,
    label: m.kind as ContextLabel,
    text: m.content,
    created_at: m.valid_from,
    valid_to: m.valid_to,
    session_id: m.kind === 'episode_summary' ? m.episode_session_id : null,
    source_episode_ids: m.source_episode_ids ?? [],
    seq: m.episode_seq === null ? undefined : Number(m.episode_seq),
    date_label: m.kind === 'episode_summary' ? m.episode_date : null,
    recorded_at: recordedAt(m.episode_date),
    semantic_similarity: similarity,
    speakers: candidateSpeakers(m),
  };
}

function episodeCandidate(e: EpisodeCandidateRow): ContextCandidate {
  const date = e.payload?.date;
  return {
    id: e.id,
    label: 'raw_episode',
    text: e.content_text,
    created_at: e.created_at,
    valid_to: null,
    session_id: e.session_id,
    source_episode_ids: [e.id],
    seq: Number(e.seq),
    date_label: typeof date === 'string' ? date : null,
    recorded_at: recordedAt(typeof date === 'string' ? date : null),
    speakers: candidateSpeakers(e),
  };
}

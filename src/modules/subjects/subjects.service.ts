import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ReadRouter } from 'src/db/read-replicas';
import type { Ctx } from 'src/common/context/request-context';
import { parseAsOf } from 'src/common/db/as-of';
import { decodeJsonCursor, encodeJsonCursor, isUtcMicros, isUuid } from 'src/common/http/page-cursor';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { EpisodeCursor, toEpisodeDto } from 'src/modules/episodes/dto/episode.dto';
import type { EpisodePageOptions } from 'src/modules/episodes/dto/episode.dto';
import { EpisodesService } from 'src/modules/episodes/episodes.service';
import { MemoryCursor, toMemoryDto } from 'src/modules/memories/dto/memory.dto';
import type { MemoryPageOptions } from 'src/modules/memories/dto/memory.dto';
import { MemoriesService } from 'src/modules/memories/memories.service';
import { ReceiptsService } from 'src/modules/receipts/receipts.service';
import { WebhooksService } from 'src/modules/webhooks/webhooks.service';
import { DEFAULT_SUBJECT_LIST_LIMIT, DEFAULT_TIMELINE_LIMIT, DeleteSubjectResultDto, SubjectListDto, TimelineDto } from './dto/subjects.dto';
import { SubjectLifecycleService } from './subject-lifecycle.service';
import { SubjectsRepository } from './subjects.repository';

/** Where each list of a timeline continues: after a row, from the start (null), or finished. */
interface TimelineCursor {
  e: EpisodeCursor | null | 'end';
  m: MemoryCursor | null | 'end';
}

/** The timeline position a cursor this service wrote carries, or null. */
function readTimelineCursor(c: unknown): TimelineCursor | null {
  const o = c as { e?: unknown; m?: unknown } | null;
  const e = o?.e as { at?: unknown; seq?: unknown } | null | 'end' | undefined;
  const m = o?.m as { at?: unknown; id?: unknown } | null | 'end' | undefined;
  const okE = e === null || e === 'end' || (typeof e === 'object' && e !== undefined && isUtcMicros(e.at) && typeof e.seq === 'string' && /^\d{1,18}$/.test(e.seq));
  const okM = m === null || m === 'end' || (typeof m === 'object' && m !== undefined && isUtcMicros(m.at) && isUuid(m.id));
  return okE && okM ? { e: e as TimelineCursor['e'], m: m as TimelineCursor['m'] } : null;
}

/** Subject-level views and erasure across the episodes, memories and support rooms. */
@Injectable()
export class SubjectsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly ds: DataSource,
    private readonly reads: ReadRouter,
    private readonly episodes: EpisodesService,
    private readonly memories: MemoriesService,
    private readonly lifecycle: SubjectLifecycleService,
    private readonly subjects: SubjectsRepository,
    private readonly webhooks: WebhooksService,
    private readonly receipts: ReceiptsService,
  ) {}

  async list(ctx: Ctx, limit = DEFAULT_SUBJECT_LIST_LIMIT, offset = 0): Promise<SubjectListDto> {
    return this.reads.read(ctx.scope, null, (em) => this.subjects.list(em, ctx.scope, limit, offset));
  }

  /**
   * Erases everything stored for the subject in one transaction (episodes, memories, compile
   * jobs, resolutions, cached health and its history), so a re-used id starts clean. An unknown subject is a
   * 200 with zero counts (compat.md: clients delete a fresh subject first).
   */
  async delete(ctx: Ctx, subjectId: string): Promise<DeleteSubjectResultDto> {
    const result = await this.ds.transaction(async (em) => {
      // Under the subject's compile lock: a compile in flight finishes before anything of the
      // subject is read or deleted.
      const erased = await this.lifecycle.erase(em, ctx.scope, subjectId);
      // Stored events name the subject; the subject.deleted event below is the one notice left.
      const eventsDeleted = await this.webhooks.forgetSubject(em, ctx.scope, subjectId);
      const result = { subject_id: subjectId, episodes_deleted: erased.episodes, memories_deleted: erased.memories };
      await this.webhooks.enqueue(em, ctx.scope, 'subject.deleted', { ...result });
      const counts = {
        episodes: erased.episodes,
        memories: erased.memories,
        compile_jobs: erased.compileJobs,
        resolutions: erased.resolutions,
        health_state: erased.healthCache,
        health_history: erased.healthHistory,
        receipts: erased.receipts,
        events: eventsDeleted,
      };
      return {
        ...result,
        resolutions_deleted: counts.resolutions,
        receipts_deleted: counts.receipts,
        compile_jobs_deleted: counts.compile_jobs,
        health_state_deleted: counts.health_state,
        health_history_deleted: counts.health_history,
        events_deleted: counts.events,
        deletion_receipt: this.receipts.certifyDeletion(ctx.scope, subjectId, counts),
      };
    });
    await this.reads.wrote(ctx.scope, [subjectId]);
    return result;
  }

  /**
   * One page of the subject's episodes and memories, each list oldest first and bounded by
   * `limit` rows and SERVICE_READ_PAGE_BYTES. Without a cursor it is the first page, which for
   * any subject that fits is the whole timeline as clients have always read it; `next_cursor`
   * continues each list where it stopped (a finished list stays empty). With `as_of`, every
   * page reads the subject as it stood then.
   */
  async timeline(ctx: Ctx, subjectId: string, limit = DEFAULT_TIMELINE_LIMIT, cursor?: string, asOfText?: string): Promise<TimelineDto> {
    const page = await this.timelinePage(ctx, subjectId, limit, cursor, asOfText, {
      episodes: (em, opts) => this.episodes.page(em, ctx.scope, subjectId, opts),
      memories: (em, opts) => this.memories.page(em, ctx.scope, subjectId, opts),
    });
    return {
      subject_id: subjectId,
      episodes: page.episodes.map(toEpisodeDto),
      memories: page.memories.map(toMemoryDto),
      next_cursor: page.next_cursor,
    };
  }

  /**
   * The same page as `timeline`, as the JSON text of a TimelineDto: PostgreSQL writes each row's
   * wire shape, so a page of thousands of rows costs the service no row objects, Date parsing or
   * JSON.stringify (profiled: those and the garbage they left were most of a large timeline's time).
   */
  async timelineJson(ctx: Ctx, subjectId: string, limit = DEFAULT_TIMELINE_LIMIT, cursor?: string, asOfText?: string): Promise<string> {
    const page = await this.timelinePage(ctx, subjectId, limit, cursor, asOfText, {
      episodes: (em, opts) => this.episodes.pageJson(em, ctx.scope, subjectId, opts),
      memories: (em, opts) => this.memories.pageJson(em, ctx.scope, subjectId, opts),
    });
    return (
      `{"subject_id":${JSON.stringify(subjectId)},"episodes":[${page.episodes.join(',')}],` +
      `"memories":[${page.memories.join(',')}],"next_cursor":${JSON.stringify(page.next_cursor)}}`
    );
  }

  /**
   * One page of each list, read in one transaction (on a replica once it has the caller's last
   * write): where each list continues comes from `cursor`; a finished list stays empty.
   */
  private async timelinePage<E, M>(
    ctx: Ctx,
    subjectId: string,
    limit: number,
    cursor: string | undefined,
    asOfText: string | undefined,
    read: { episodes: (em: EntityManager, opts: EpisodePageOptions) => Promise<Paged<E, EpisodeCursor>>; memories: (em: EntityManager, opts: MemoryPageOptions) => Promise<Paged<M, MemoryCursor>> },
  ): Promise<{ episodes: E[]; memories: M[]; next_cursor: string | null }> {
    const asOf = parseAsOf(asOfText, ['query', 'as_of']);
    const at = cursor === undefined ? { e: null, m: null } : decodeJsonCursor(cursor, readTimelineCursor);
    const maxBytes = this.config.readPageBytes;
    const { episodes, memories } = await this.reads.read(ctx.scope, subjectId, async (em) => ({
      episodes: at.e === 'end' ? finished<E, EpisodeCursor>() : await read.episodes(em, { after: at.e, limit, maxBytes, asOf }),
      memories: at.m === 'end' ? finished<M, MemoryCursor>() : await read.memories(em, { after: at.m, limit, maxBytes, asOf }),
    }));
    const next: TimelineCursor = {
      e: episodes.more ? episodes.last : 'end',
      m: memories.more ? memories.last : 'end',
    };
    return {
      episodes: episodes.rows,
      memories: memories.rows,
      next_cursor: next.e === 'end' && next.m === 'end' ? null : encodeJsonCursor(next),
    };
  }
}

/** A page of one list: its rows, the cursor of its last row, and whether rows remain after it. */
interface Paged<T, C> {
  rows: T[];
  last: C | null;
  more: boolean;
}

const finished = <T, C>(): Paged<T, C> => ({ rows: [], last: null, more: false });

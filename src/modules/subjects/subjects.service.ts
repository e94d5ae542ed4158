import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ReadRouter } from 'src/db/read-replicas';
import type { Ctx } from 'src/common/context/request-context';
import { parseAsOf } from 'src/common/db/as-of';
import { toEpisodeDto } from 'src/modules/episodes/dto/episode.dto';
import { EpisodesService } from 'src/modules/episodes/episodes.service';
import { toMemoryDto } from 'src/modules/memories/dto/memory.dto';
import { MemoriesService } from 'src/modules/memories/memories.service';
import { ReceiptsService } from 'src/modules/receipts/receipts.service';
import { SupportService } from 'src/modules/support/support.service';
import { WebhooksService } from 'src/modules/webhooks/webhooks.service';
import { DeleteSubjectResultDto, SubjectListDto, TimelineDto } from './dto/subjects.dto';

const DEFAULT_TIMELINE_LIMIT = 1000;

/** Subject-level views and erasure across the episodes, memories and support rooms. */
@Injectable()
export class SubjectsService {
  constructor(
    private readonly ds: DataSource,
    private readonly reads: ReadRouter,
    private readonly episodes: EpisodesService,
    private readonly memories: MemoriesService,
    private readonly support: SupportService,
    private readonly webhooks: WebhooksService,
    private readonly receipts: ReceiptsService,
  ) {}

  async list(ctx: Ctx, limit = 50, offset = 0): Promise<SubjectListDto> {
    return this.reads.read(ctx.scope, null, (em) => this.episodes.listSubjects(em, ctx.scope, limit, offset));
  }

  /**
   * Erases everything stored for the subject in one transaction (episodes, memories, compile
   * jobs, resolutions, cached health), so a re-used id starts clean. An unknown subject is a
   * 200 with zero counts (compat.md: clients delete a fresh subject first).
   */
  async delete(ctx: Ctx, subjectId: string): Promise<DeleteSubjectResultDto> {
    const result = await this.ds.transaction(async (em) => {
      // Memories first: it takes the subject's compile lock, so a compile in flight finishes
      // before anything of the subject is read or deleted.
      const memories = await this.memories.deleteSubject(em, ctx.scope, subjectId);
      const episodesDeleted = await this.episodes.deleteSubject(em, ctx.scope, subjectId);
      const support = await this.support.deleteSubject(em, ctx.scope, subjectId);
      // Receipts hold the task text, which can name the person (docs/governance.md).
      const receiptsDeleted = await this.receipts.deleteSubject(em, ctx.scope, subjectId);
      // Stored events name the subject; the subject.deleted event below is the one notice left.
      const eventsDeleted = await this.webhooks.forgetSubject(em, ctx.scope, subjectId);
      const result = { subject_id: subjectId, episodes_deleted: episodesDeleted, memories_deleted: memories.memories };
      await this.webhooks.enqueue(em, ctx.scope, 'subject.deleted', { ...result });
      const counts = {
        episodes: episodesDeleted,
        memories: memories.memories,
        compile_jobs: memories.compileJobs,
        resolutions: support.resolutions_deleted,
        health_state: support.health_cache_deleted,
        receipts: receiptsDeleted,
        events: eventsDeleted,
      };
      return {
        ...result,
        resolutions_deleted: counts.resolutions,
        receipts_deleted: counts.receipts,
        compile_jobs_deleted: counts.compile_jobs,
        health_state_deleted: counts.health_state,
        events_deleted: counts.events,
        deletion_receipt: this.receipts.certifyDeletion(ctx.scope, subjectId, counts),
      };
    });
    await this.reads.wrote(ctx.scope, [subjectId]);
    return result;
  }

  async timeline(ctx: Ctx, subjectId: string, limit = DEFAULT_TIMELINE_LIMIT, asOfText?: string): Promise<TimelineDto> {
    const asOf = parseAsOf(asOfText, ['query', 'as_of']);
    const { episodes, memories } = await this.reads.read(ctx.scope, subjectId, async (em) => ({
      episodes: await this.episodes.listForSubject(em, ctx.scope, subjectId, { limit, asOf }),
      memories: await this.memories.listForSubject(em, ctx.scope, subjectId, { limit, asOf }),
    }));
    return { subject_id: subjectId, episodes: episodes.map(toEpisodeDto), memories: memories.map(toMemoryDto) };
  }
}

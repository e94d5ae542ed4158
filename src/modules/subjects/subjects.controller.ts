import { Controller, Delete, Get, Param, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ReqCtx } from 'src/common/context/ctx.decorator';
import type { Ctx } from 'src/common/context/request-context';
import { ApiErrors } from 'src/common/http/api-errors.decorator';
import { DeleteSubjectResultDto, ListSubjectsQueryDto, SubjectListDto, SubjectParamDto, TimelineDto, TimelineQueryDto } from './dto/subjects.dto';
import { SubjectsService } from './subjects.service';

@ApiTags('subjects')
@ApiErrors()
@Controller('v1')
export class SubjectsController {
  constructor(private readonly subjects: SubjectsService) {}

  /** Subjects with their episode and memory counts, ordered by id; snapshot subjects are hidden. */
  @Get('subjects')
  @ApiOkResponse({ type: SubjectListDto })
  list(@ReqCtx() ctx: Ctx, @Query() q: ListSubjectsQueryDto): Promise<SubjectListDto> {
    return this.subjects.list(ctx, q.limit, q.offset);
  }

  /** Permanently deletes everything stored for the subject. Ids containing `/` are sent as `%2F`. Emits `subject.deleted`. */
  @Delete('subjects/:subject_id')
  @ApiOkResponse({ type: DeleteSubjectResultDto })
  delete(@ReqCtx() ctx: Ctx, @Param() p: SubjectParamDto): Promise<DeleteSubjectResultDto> {
    return this.subjects.delete(ctx, p.subject_id);
  }

  /**
   * Episodes and memories of a subject in time order, in pages bounded in rows and bytes
   * (`next_cursor`); with `as_of`, as they stood at that instant.
   */
  @Get('timeline')
  @ApiOkResponse({ type: TimelineDto })
  async timeline(@ReqCtx() ctx: Ctx, @Query() q: TimelineQueryDto, @Res() res: Response): Promise<void> {
    // Sent as the JSON text the database wrote (SubjectsService.timelineJson): a TimelineDto.
    res.type('application/json').send(await this.subjects.timelineJson(ctx, q.subject_id, q.limit, q.cursor, q.as_of));
  }
}

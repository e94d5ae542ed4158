import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiTags } from '@nestjs/swagger';
import { ReqCtx } from 'src/common/context/ctx.decorator';
import type { Ctx } from 'src/common/context/request-context';
import { ApiErrors } from 'src/common/http/api-errors.decorator';
import { CreateEpisodeDto, CreateEpisodesBatchDto } from './dto/create-episode.dto';
import { EpisodeDto, EpisodeReply, EpisodesBatchDto, EpisodesBatchReply } from './dto/episode.dto';
import { EpisodesService } from './episodes.service';

@ApiTags('episodes')
@ApiErrors()
@Controller('v1/episodes')
export class EpisodesController {
  constructor(private readonly episodes: EpisodesService) {}

  /** Append one immutable episode. Emits `episode.created`. */
  @Post()
  @HttpCode(201)
  @ApiCreatedResponse({ type: EpisodeDto })
  create(@ReqCtx() ctx: Ctx, @Body() dto: CreateEpisodeDto): Promise<EpisodeReply> {
    return this.episodes.create(ctx, dto);
  }

  /** Append 1–100 episodes in one transaction. Emits `episodes.batch_created`. */
  @Post('batch')
  @HttpCode(201)
  @ApiCreatedResponse({ type: EpisodesBatchDto })
  createBatch(@ReqCtx() ctx: Ctx, @Body() dto: CreateEpisodesBatchDto): Promise<EpisodesBatchReply> {
    return this.episodes.createBatch(ctx, dto.episodes);
  }
}

import { Logger } from '@nestjs/common';
import type { AppConfig } from 'src/config/app-config';
import { compileHeuristic, HEURISTIC_COMPILER_VERSION } from './compiler/heuristic-compiler';
import type { CompilePlan, CompilerEpisode, ExistingMemory, MemoryDraft } from './compiler/heuristic-compiler';
import { LlmCompiler } from './llm/llm-compiler';
import type { ModelGateway } from './llm/model-gateway';

/** The compiler the pipeline runs (COMPILER_TYPE); the llm compiler slots in behind this token. */
export const MEMORY_COMPILER = Symbol('MEMORY_COMPILER');

/** A draft as a compiler plans it (`replaced_by_draft`: the later draft that replaced it). */
export type PlannedDraft = MemoryDraft;

/** What a compiler returns: drafts to store and existing memories to supersede (see CompilePlan). */
export type PlannedCompile = CompilePlan;

/**
 * Turns a subject's new episodes into memory drafts and the supersessions of existing memories.
 * It must not use the database. A local compiler (`remote` false) runs inside the compile
 * transaction; a remote one calls a model over the network, so the pipeline runs it before the
 * transaction on a snapshot of at most `maxEpisodesPerCompile` episodes (see MemoriesService).
 */
export interface MemoryCompiler {
  readonly name: string;
  readonly remote?: boolean;
  readonly maxEpisodesPerCompile?: number;
  compile(episodes: CompilerEpisode[], existing: ExistingMemory[]): Promise<PlannedCompile>;
}

export class HeuristicCompiler implements MemoryCompiler {
  readonly name = HEURISTIC_COMPILER_VERSION;
  readonly remote = false;

  async compile(episodes: CompilerEpisode[], existing: ExistingMemory[]): Promise<PlannedCompile> {
    return compileHeuristic(episodes, existing);
  }
}

/**
 * COMPILER_TYPE=llm with a reachable configuration (a key for api.openai.com, or a base URL of
 * a local server) gets the llm compiler. Without either there is no model to call: such a
 * deployment compiles heuristically, as versions before the llm compiler did, and the boot log
 * says so at error level rather than failing every compile.
 */
export function createMemoryCompiler(config: AppConfig, gateway: ModelGateway): MemoryCompiler {
  if (config.compilerType !== 'llm') return new HeuristicCompiler();
  if (!gateway.configuredFor('chat')) {
    new Logger('memories').error(
      'SERVICE_COMPILER_TYPE=llm needs SERVICE_OPENAI_API_KEY (api.openai.com) or SERVICE_OPENAI_BASE_URL / SERVICE_LLM_BASE_URL (a local OpenAI-compatible server); compiling with the heuristic compiler',
    );
    return new HeuristicCompiler();
  }
  return new LlmCompiler(gateway, {
    model: config.llmCompilerModel,
    responseFormat: config.llmResponseFormat,
    chunkTokens: config.llmChunkTokens,
    maxOutputTokens: config.llmMaxOutputTokens,
    maxEpisodesPerCompile: config.llmMaxEpisodesPerCompile,
    fallbackToHeuristic: config.llmFallbackToHeuristic,
  });
}


import { Logger } from '@nestjs/common';
import type { AppConfig } from 'src/config/app-config';
import { HeuristicCompiler } from 'src/compiler/heuristic-compiler';
import type { MemoryCompiler } from 'src/compiler/compiler.types';
import type { ModelGateway } from 'src/modules/models/model-gateway';
import { LlmCompiler } from './llm/llm-compiler';

/** The compiler the pipeline runs (COMPILER_TYPE); the llm compiler slots in behind this token. */
export const MEMORY_COMPILER = Symbol('MEMORY_COMPILER');

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

/**
 * Memory tools for the Vercel AI SDK: `tool()` definitions that call the memory service through
 * its TypeScript client, scoped to one subject (the user the agent is talking to). Give them to
 * `generateText` / `streamText`; the model decides when to recall and when to remember.
 */
import { tool } from 'ai';
import type { MemoryServiceClient } from 'memory-service-client';
import { z } from 'zod';

export function memoryTools(memory: MemoryServiceClient, subjectId: string) {
  return {
    recall: tool({
      description: 'Get what is known about the user that matters for a task: facts, preferences, procedures, recent history.',
      inputSchema: z.object({ task: z.string().min(1).describe('What you are about to do, in one sentence.') }),
      execute: async ({ task }) => (await memory.getContext({ subject_id: subjectId, task, max_tokens: 1500 })).assembled_context,
    }),
    remember: tool({
      description: 'Store one durable fact about the user (a preference, their plan, their name). It replaces the fact it restates.',
      inputSchema: z.object({ fact: z.string().min(1).max(10_000).describe('One plain sentence in the first person, e.g. "I prefer email."') }),
      execute: async ({ fact }) => {
        const stored = await memory.remember({ subject_id: subjectId, kind: 'profile_fact', content: fact });
        return { id: stored.id, status: stored.status };
      },
    }),
    searchMemories: tool({
      description: 'Find stored memories about the user by text.',
      inputSchema: z.object({ query: z.string().min(1).max(4000) }),
      execute: async ({ query }) => (await memory.searchMemories({ subject_id: subjectId, q: query, limit: 10 })).memories.map((m) => ({ id: m.id, content: m.content })),
    }),
    forget: tool({
      description: 'Forget one memory by id when the user asks you to (its content is erased for good).',
      inputSchema: z.object({ id: z.string().uuid() }),
      execute: async ({ id }) => memory.forgetMemory(id),
    }),
  };
}

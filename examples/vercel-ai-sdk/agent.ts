/**
 * One question answered by a model that can recall and remember through the memory service.
 *   MEMORY_URL=http://localhost:8100 OPENAI_BASE_URL=http://127.0.0.1:11434/v1 MODEL=llama3.1 \
 *     npm run ai-sdk -- user-42 "I moved to Bergen last month. Which office should I visit?"
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs } from 'ai';
import { MemoryServiceClient } from 'memory-service-client';
import { memoryTools } from './memory-tools.js';

async function main(): Promise<void> {
  const [subjectId = 'demo-user', question = 'What do you know about me?'] = process.argv.slice(2);
  const memory = new MemoryServiceClient({ baseUrl: process.env.MEMORY_URL ?? 'http://localhost:8100', apiKey: process.env.MEMORY_API_KEY });
  const provider = createOpenAICompatible({
    name: 'openai-compatible',
    baseURL: process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
    apiKey: process.env.OPENAI_API_KEY,
  });
  const { text } = await generateText({
    model: provider(process.env.MODEL ?? 'gpt-4o-mini'),
    system: 'You are a helpful assistant with a long-term memory. Recall before answering; remember durable facts the user tells you.',
    prompt: question,
    tools: memoryTools(memory, subjectId),
    stopWhen: stepCountIs(5),
  });
  console.log(text);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

/**
 * A support agent loop on the memory service: every customer line and every answer is an
 * episode of the session; before answering, the agent asks the service for the context of the
 * task (what the customer told us before, open tickets, preferences) and gives it to the model;
 * every few turns it compiles new episodes into memories; `/handoff` escalates with a brief.
 *
 * Any OpenAI-compatible chat server works (OpenAI, Ollama, vLLM, llama.cpp, LM Studio):
 *   MEMORY_URL=http://localhost:8100 MEMORY_API_KEY=... \
 *   OPENAI_BASE_URL=http://127.0.0.1:11434/v1 MODEL=llama3.1 npm run support-agent -- customer-42
 */
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline/promises';
import { MemoryServiceClient } from 'memory-service-client';

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`set ${name}`);
  return value;
};

const memory = new MemoryServiceClient({ baseUrl: env('MEMORY_URL', 'http://localhost:8100'), apiKey: process.env.MEMORY_API_KEY });
const modelUrl = env('OPENAI_BASE_URL', 'https://api.openai.com/v1').replace(/\/+$/, '');
const model = env('MODEL', 'gpt-4o-mini');
const COMPILE_EVERY = 4;

interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** One chat completion from an OpenAI-compatible server (plain fetch: no SDK needed). */
async function complete(messages: ChatMessage[]): Promise<string> {
  const res = await fetch(`${modelUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(process.env.OPENAI_API_KEY ? { Authorization: `Bearer ${process.env.OPENAI_API_KEY}` } : {}) },
    body: JSON.stringify({ model, messages, temperature: 0.2 }),
    signal: AbortSignal.timeout(120_000),
  });
  if (!res.ok) throw new Error(`model server answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  const body = (await res.json()) as { choices?: { message?: { content?: string } }[] };
  return body.choices?.[0]?.message?.content ?? '';
}

async function main(): Promise<void> {
  const subjectId = process.argv[2] ?? 'demo-customer';
  const sessionId = `chat-${randomUUID().slice(0, 8)}`;
  const say = (source: 'user' | 'assistant', content: string) =>
    memory.createEpisode({ subject_id: subjectId, session_id: sessionId, source, type: 'conversation', payload: { messages: [{ role: source, content }] } });
  const history: ChatMessage[] = [];
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  console.log(`support session ${sessionId} for ${subjectId}; /handoff to escalate, /quit to stop`);
  for (let turn = 1; ; turn++) {
    const line = (await rl.question('customer> ')).trim();
    if (line === '' || line === '/quit') break;
    if (line === '/handoff') {
      const pack = await memory.createHandoff({ subject_id: subjectId, session_id: sessionId, reason: 'customer asked for a human', max_tokens: 800 });
      console.log(pack.handoff_notes);
      continue;
    }
    await say('user', line);
    // What the service knows that matters for this message, within 1,500 tokens.
    const context = await memory.getContext({ subject_id: subjectId, task: `Answer the customer: ${line}`, session_id: sessionId, max_tokens: 1500 });
    const system = `You are a support agent. What we know about this customer:\n\n${context.assembled_context}`;
    history.push({ role: 'user', content: line });
    const answer = await complete([{ role: 'system', content: system }, ...history.slice(-10)]);
    history.push({ role: 'assistant', content: answer });
    console.log(`agent> ${answer}`);
    await say('assistant', answer);
    if (turn % COMPILE_EVERY === 0) await memory.compileMemories(subjectId);
  }
  rl.close();
  await memory.compileMemories(subjectId);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

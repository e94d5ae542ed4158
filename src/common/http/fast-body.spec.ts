import 'reflect-metadata';
import { ValidationPipe } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, ValidateNested } from 'class-validator';
import { CreateEpisodeDto, CreateEpisodesBatchDto } from 'src/modules/episodes/dto/create-episode.dto';
import { fastBody } from './fast-body';

/** The full pipe with the service's options (AppValidationPipe without its error mapping). */
const full = new ValidationPipe({ whitelist: true, forbidNonWhitelisted: false, transform: true, validationError: { target: false, value: false } });
/** A body as the JSON parser gives it (one realm: structuredClone's objects would not be plain here). */
const json = (v: unknown): unknown => JSON.parse(JSON.stringify(v));
const viaPipe = async (cls: new () => object, value: unknown): Promise<unknown> => {
  try {
    return await full.transform(json(value), { type: 'body', metatype: cls });
  } catch {
    return 'invalid';
  }
};

const episode = (extra: Record<string, unknown> = {}) => ({
  subject_id: 'u1',
  source: 'user',
  type: 'conversation',
  payload: { messages: [{ role: 'user', content: 'hi' }], n: 1, ok: true, none: null, list: [1, 'a', { b: [] }] },
  ...extra,
});

class WithCount {
  @Type(() => Number)
  @IsInt()
  count: number;
}

class Inner {
  @IsString()
  name: string;
}

class NestedWithoutType {
  @ValidateNested()
  inner: Inner;

  @IsOptional()
  @IsString()
  note?: string;
}

describe('fastBody', () => {
  it('gives what the full pipe gives for valid episodes and batches: same class, same fields, unknown fields stripped', async () => {
    const bodies: [new () => object, unknown][] = [
      [CreateEpisodeDto, episode()],
      [CreateEpisodeDto, episode({ session_id: 's1', idempotency_key: 'k', metadata: { a: 1 }, provenance: {}, extra: 'dropped' })],
      [CreateEpisodeDto, episode({ metadata: null, session_id: null })],
      [CreateEpisodesBatchDto, { episodes: [episode(), episode({ session_id: 's2', unknown: [1] })], other: true }],
    ];
    for (const [cls, body] of bodies) {
      const fast = fastBody(cls, json(body));
      expect(fast).not.toBeNull();
      const slow = await viaPipe(cls, body);
      expect(fast).toBeInstanceOf(cls);
      expect(fast).toEqual(slow);
      expect(Object.keys(fast!)).toEqual(Object.keys(slow as object));
      expect(JSON.stringify(fast)).toBe(JSON.stringify(slow));
    }
    const batch = fastBody(CreateEpisodesBatchDto, { episodes: [episode()] }) as CreateEpisodesBatchDto;
    expect(batch.episodes[0]).toBeInstanceOf(CreateEpisodeDto);
  });

  it('leaves every body the full pipe refuses to it (null), so errors keep their shape', async () => {
    const invalid: [new () => object, unknown][] = [
      [CreateEpisodeDto, episode({ subject_id: '' })],
      [CreateEpisodeDto, episode({ subject_id: 'x'.repeat(257) })],
      [CreateEpisodeDto, episode({ payload: 'text' })],
      [CreateEpisodeDto, episode({ payload: [1] })],
      [CreateEpisodeDto, episode({ session_id: 5 })],
      [CreateEpisodeDto, { source: 'user', type: 't', payload: {} }],
      [CreateEpisodesBatchDto, { episodes: [] }],
      [CreateEpisodesBatchDto, { episodes: Array.from({ length: 101 }, () => episode()) }],
      [CreateEpisodesBatchDto, { episodes: [episode(), 'x'] }],
      [CreateEpisodesBatchDto, { episodes: [episode(), episode({ type: '' })] }],
      [CreateEpisodesBatchDto, { episodes: { 0: episode() } }],
      [CreateEpisodesBatchDto, {}],
    ];
    for (const [cls, body] of invalid) {
      expect(await viaPipe(cls, body)).toBe('invalid');
      expect(fastBody(cls, json(body))).toBeNull();
    }
  });

  it('leaves a value holding a key the full pipe would drop from its copy (constructor, toString, __proto__) to the full pipe', async () => {
    for (const payload of [{ constructor: 'x' }, { a: [{ toString: 1 }] }, JSON.parse('{"__proto__": {"p": 1}}') as object]) {
      const body = episode({ payload });
      expect(fastBody(CreateEpisodeDto, json(body))).toBeNull();
      expect(await viaPipe(CreateEpisodeDto, body)).not.toBe('invalid');
    }
  });

  it('does not take classes whose values the full pipe converts or whose nested type it cannot know', () => {
    expect(fastBody(WithCount, { count: '5' })).toBeNull();
    expect(fastBody(NestedWithoutType, { inner: { name: 'a' } })).toBeNull();
    expect(fastBody(Object as unknown as new () => object, { a: 1 })).toBeNull();
  });
});

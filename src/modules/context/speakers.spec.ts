import { candidateSpeakers, namedSpeakers, speakerName } from './speakers';

describe('speakers', () => {
  it('names people and leaves generic roles unnamed', () => {
    expect(speakerName('Caroline')).toBe('Caroline');
    for (const role of ['user', 'assistant', 'system', 'Customer', 'support agent']) expect(speakerName(role)).toBeNull();
  });

  it('keeps each named person once, in order of first appearance', () => {
    expect(namedSpeakers(['user', 'Nate', 'assistant', 'Joanna', 'Nate'])).toEqual(['Nate', 'Joanna']);
    expect(namedSpeakers(null)).toEqual([]);
  });

  it('reads roles from the data: message roles, a summary’s roles, a fact’s speaker', () => {
    expect(candidateSpeakers({ payload: { messages: [{ role: 'Nate', content: 'hi' }, { role: 'user', content: 'x' }, { content: 'no role' }] } })).toEqual(['Nate', 'user']);
    expect(candidateSpeakers({ metadata: { roles: ['Caroline', 'Melanie'] } })).toEqual(['Caroline', 'Melanie']);
    expect(candidateSpeakers({ metadata: { speaker: 'Caroline' } })).toEqual(['Caroline']);
    // Nothing from the text: a document episode or a memory without roles names nobody.
    expect(candidateSpeakers({ payload: { text: 'Note: the router was restarted.' }, metadata: {} })).toEqual([]);
    expect(candidateSpeakers({ payload: null, metadata: null })).toEqual([]);
  });
});

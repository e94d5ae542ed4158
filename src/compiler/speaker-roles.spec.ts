import { classifyRole, sideOfSource } from './speaker-roles';

describe('classifyRole', () => {
  it.each([
    ['user', 'subject', null],
    ['Customer', 'subject', null],
    ['human', 'subject', null],
    ['assistant', 'agent', null],
    ['support_agent', 'agent', null],
    ['Agent Sam', 'agent', null],
    ['human_agent', 'agent', null],
    ['system', 'system', null],
    ['tool', 'system', null],
    ['Caroline', 'subject', 'Caroline'],
    ['Mary Ann', 'subject', 'Mary Ann'],
  ])('%s → %s', (role, side, name) => {
    const speaker = classifyRole(role);
    expect(speaker.side).toBe(side);
    expect(speaker.name).toBe(name);
  });

  it('gives named speakers a stable lowercase slug', () => {
    expect(classifyRole('Mary Ann').slug).toBe('mary-ann');
    expect(classifyRole('user').slug).toBeNull();
  });

  it('treats a role without letters as the generic subject', () => {
    expect(classifyRole('  ')).toEqual({ side: 'subject', name: null, slug: null });
    expect(classifyRole('123')).toEqual({ side: 'subject', name: null, slug: null });
  });
});

describe('sideOfSource', () => {
  it('uses the agent-like sources of compat.md and takes anything else as the customer', () => {
    expect(sideOfSource('support')).toBe('agent');
    expect(sideOfSource('Agent')).toBe('agent');
    expect(sideOfSource('manual_input')).toBe('subject');
    expect(sideOfSource('crm')).toBe('subject');
  });
});

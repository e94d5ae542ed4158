import { standingReason } from './standing';

describe('standingReason', () => {
  it('holds profile facts of the customer, and those without a speaker', () => {
    expect(standingReason('profile_fact', 'I prefer email over phone calls.', ['user'])).toBe('profile');
    expect(standingReason('profile_fact', 'We only use the EU region.', ['customer'])).toBe('profile');
    expect(standingReason('profile_fact', 'assistant: Your plan is Enterprise.', ['assistant'])).toBe('profile');
    expect(standingReason('profile_fact', 'Plan: Enterprise, billed yearly')).toBe('profile');
    expect(standingReason('profile_fact', 'Caroline: I am a counselor')).toBe('profile');
  });

  it('leaves a fact the compiler attributed to a named person to relevance', () => {
    expect(standingReason('profile_fact', 'Caroline: I am a counselor', ['Caroline'])).toBeNull();
    expect(standingReason('profile_fact', 'Dr. Jones: I prefer email.', ['Dr. Jones'])).toBeNull();
  });

  it('finds a customer’s own preferences and requirements in support conversations', () => {
    for (const text of [
      'user: Our developers would rather integrate through the Python SDK.',
      'user: Hi there.\nuser: We also need webhook notifications for new reports.',
      'customer: I prefer email over phone calls.',
      'user: Our finance team needs the invoices addressed to Leeds.',
      'user: Please always copy our CTO on outage emails.',
      'user: We only use the EU region.',
    ]) {
      expect(standingReason('episode_summary', text)).toBe('preference');
      expect(standingReason('raw_episode', text)).toBe('preference');
    }
  });

  it('finds ticket references on either side', () => {
    expect(standingReason('raw_episode', 'assistant: I escalated it to engineering as OPS-7734.')).toBe('ticket');
    expect(standingReason('raw_episode', 'user: Any news on ticket #48213?')).toBe('ticket');
    expect(standingReason('episode_summary', 'agent: Your case number is 00912.')).toBe('ticket');
  });

  it('leaves out questions, third parties, named speakers, procedures and plain chatter', () => {
    for (const text of [
      'assistant: Do you need webhook notifications?',
      'user: They want a refund, apparently.',
      'Caroline: I want to paint a sunrise this weekend.',
      'user: The dashboard was slow this morning.',
      'A note without any speaker that says we need a new plan.',
    ]) {
      expect(standingReason('raw_episode', text)).toBeNull();
    }
    expect(standingReason('procedure', 'user: We need to restart the router.')).toBeNull();
  });
});

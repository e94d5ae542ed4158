import type { TimelineItem } from '../timeline.js';
import { episodeText } from '../timeline.js';

/** One timeline row: what it is, when, and its text on one line (the detail panel has it all). */
export function TimelineRow({ item, selected, onSelect }: { item: TimelineItem; selected: boolean; onSelect: (item: TimelineItem) => void }) {
  const isMemory = item.type === 'memory';
  const id = isMemory ? item.memory.id : item.episode.id;
  const text = isMemory ? item.memory.content || '(content erased)' : episodeText(item.episode);
  const badge = isMemory ? item.memory.kind : `episode · ${item.episode.type}`;
  const status = isMemory ? item.memory.status : item.episode.compiled ? 'compiled' : 'not compiled';
  return (
    <button
      type="button"
      class={`trow ${item.type} status-${status.replace(/\s+/g, '-')}${selected ? ' selected' : ''}`}
      data-id={id}
      data-status={status}
      aria-pressed={selected}
      onClick={() => onSelect(item)}
    >
      <time dateTime={item.at}>{formatTime(item.at)}</time>
      <span class="badge">{badge}</span>
      <span class="status">{status}</span>
      <span class="text">{text}</span>
    </button>
  );
}

export function formatTime(iso: string): string {
  return iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC');
}

import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * Renders only the rows in view (plus an overscan) of a fixed-row-height list, so a subject
 * with 10,000 memories costs the DOM about forty rows. Rows are fixed height: a long text is
 * clipped in the row and read in full in the detail panel.
 */
export function VirtualList<T>({
  items,
  rowHeight,
  height,
  render,
  overscan = 8,
  label,
}: {
  items: readonly T[];
  rowHeight: number;
  height: number;
  render: (item: T, index: number) => ComponentChildren;
  overscan?: number;
  label: string;
}) {
  const [top, setTop] = useState(0);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (ref.current && ref.current.scrollTop > items.length * rowHeight) ref.current.scrollTop = 0;
  }, [items.length, rowHeight]);
  const { first, last } = visibleRange(items.length, rowHeight, height, top, overscan);
  return (
    <div class="vlist" ref={ref} style={{ height: `${height}px` }} onScroll={(e) => setTop((e.currentTarget as HTMLDivElement).scrollTop)} role="list" aria-label={label}>
      <div style={{ height: `${items.length * rowHeight}px`, position: 'relative' }}>
        {items.slice(first, last).map((item, i) => (
          <div class="vrow" role="listitem" key={first + i} style={{ top: `${(first + i) * rowHeight}px`, height: `${rowHeight}px` }}>
            {render(item, first + i)}
          </div>
        ))}
      </div>
    </div>
  );
}

/** Indexes [first, last) of the rows to render for a scroll offset. */
export function visibleRange(count: number, rowHeight: number, height: number, scrollTop: number, overscan: number): { first: number; last: number } {
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(count, Math.ceil((scrollTop + height) / rowHeight) + overscan);
  return { first, last };
}

import { useVirtualizer } from "@tanstack/react-virtual";
import { useCallback, useLayoutEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import type { TimelineItem } from "../bindings";
import { TimelineItemView } from "./TimelineItemView";

/** Distance from the bottom (px) within which the view keeps following new output. */
const FOLLOW_SLACK = 48;
/** Longer timelines (a replayed session of thousands of events) render only what is visible. */
export const VIRTUALIZE_FROM = 150;
/** The height a row is taken to have until it is measured. */
const ESTIMATED_ROW = 96;

/** The height of a row whose item has not arrived yet. */
const PENDING_ROW = 40;

type Props = {
  items: TimelineItem[];
  /** Items before `items` not loaded yet: shown as empty rows until they arrive. */
  before?: number;
  running: boolean;
};

/** The conversation. Follows the stream unless the user has scrolled up to read. */
export function Timeline({ items, before = 0, running }: Props) {
  const { t } = useTranslation();
  const ref = useRef<HTMLDivElement>(null);
  const follow = useRef(true);
  const count = before + items.length;
  const virtual = count >= VIRTUALIZE_FROM;

  const onScroll = () => {
    const el = ref.current;
    if (el) follow.current = el.scrollHeight - el.scrollTop - el.clientHeight < FOLLOW_SLACK;
  };

  return (
    <div
      ref={ref}
      className="timeline"
      data-testid="timeline"
      data-count={count}
      data-pending={before}
      role="log"
      aria-label={t("agent.conversation")}
      aria-live="polite"
      aria-busy={running}
      onScroll={onScroll}
    >
      {items.length === 0 ? (
        <p className="empty muted">{t("agent.empty")}</p>
      ) : virtual ? (
        <VirtualItems items={items} before={before} running={running} scroller={ref} follow={follow} />
      ) : (
        <PlainItems items={items} running={running} scroller={ref} follow={follow} />
      )}
    </div>
  );
}

type ListProps = Props & {
  scroller: React.RefObject<HTMLDivElement | null>;
  follow: React.RefObject<boolean>;
};

function PlainItems({ items, running, scroller, follow }: ListProps) {
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && follow.current) el.scrollTop = el.scrollHeight;
  }, [items, scroller, follow]);
  return (
    <>
      {items.map((item, index) => (
        <TimelineItemView key={item.id} item={item} live={running && index === items.length - 1} />
      ))}
    </>
  );
}

/**
 * A row's height before it is measured: close guesses keep the first render of a long
 * replay to one or two passes instead of growing the visible range pass after pass.
 */
function estimate(item: TimelineItem | undefined): number {
  if (!item) return ESTIMATED_ROW;
  // About 110 characters a line at the timeline's width, 20 px a line, plus the row's
  // margins (a question's bubble has more than an answer's paragraph).
  const lines = (text: string) => Math.ceil(Math.max(text.length, 1) / 110);
  switch (item.kind) {
    case "user":
      return 23 + 20 * lines(item.text);
    case "text":
      return 3 + 20 * lines(item.text);
    default:
      return ESTIMATED_ROW;
  }
}

function VirtualItems({ items, before = 0, running, scroller, follow }: ListProps) {
  const count = before + items.length;
  // Stable between renders: a new getItemKey makes the virtualizer lay out all rows again.
  const getItemKey = useCallback(
    (index: number) => (index < before ? `pending-${index}` : (items[index - before]?.id ?? index)),
    [items, before],
  );
  const estimateSize = useCallback(
    (index: number) => (index < before ? PENDING_ROW : estimate(items[index - before])),
    [items, before],
  );
  // The box's size as it is now: without it the first render has no rows (the size is
  // only read after it) and a replay takes one more render and layout to show anything.
  const [initialRect] = useState(() => ({
    width: scroller.current?.clientWidth ?? 0,
    height: scroller.current?.clientHeight ?? 0,
  }));
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scroller.current,
    initialRect,
    estimateSize,
    overscan: 6,
    getItemKey,
    // A replay opens at its end: its first render is of the last rows, not the first.
    initialOffset: () => (follow.current ? Number.MAX_SAFE_INTEGER : 0),
  });
  // Rows are measured once all of a commit's rows (and their formulas) are in the DOM:
  // measuring each as it attaches would force a layout per row.
  const unmeasured = useRef(new Set<HTMLElement>());
  useLayoutEffect(() => {
    // Hidden (another panel is shown), every row measures 0 px: the virtualizer would then
    // lay out ever more rows, render after render, until React gives up and the window
    // goes blank. The rows wait until the timeline is shown again.
    if (!scroller.current?.clientHeight) return;
    const rows = [...unmeasured.current];
    unmeasured.current.clear();
    for (const row of rows) if (row.isConnected) virtualizer.measureElement(row);
  });
  // A replay opens at its end, and stays there while following: as items are added, and
  // when the start of a long session arrives (the rows above change size).
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && follow.current) el.scrollTop = el.scrollHeight;
  }, [count, before, scroller, follow]);
  const rows = virtualizer.getVirtualItems();
  return (
    <div className="virtual-space" style={{ height: virtualizer.getTotalSize() }}>
      {rows.map((row) => {
        const item = items[row.index - before];
        return (
          <div
            key={row.key}
            data-index={row.index}
            className="virtual-row"
            style={{ transform: `translateY(${row.start}px)` }}
            ref={(el) => {
              if (el) unmeasured.current.add(el);
            }}
          >
            {item ? (
              <TimelineItemView item={item} live={running && row.index === count - 1} />
            ) : (
              <div className="item item-pending" style={{ height: PENDING_ROW }} aria-hidden="true" />
            )}
          </div>
        );
      })}
    </div>
  );
}

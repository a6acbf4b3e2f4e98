import { useVirtualizer } from "@tanstack/react-virtual";
import { useLayoutEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import type { TimelineItem } from "../bindings";
import { TimelineItemView } from "./TimelineItemView";

/** Distance from the bottom (px) within which the view keeps following new output. */
const FOLLOW_SLACK = 48;
/** Longer timelines (a replayed session of thousands of events) render only what is visible. */
export const VIRTUALIZE_FROM = 150;
/** The height a row is taken to have until it is measured. */
const ESTIMATED_ROW = 96;

type Props = { items: TimelineItem[]; running: boolean };

/** The conversation. Follows the stream unless the user has scrolled up to read. */
export function Timeline({ items, running }: Props) {
  const { t } = useTranslation();
  const ref = useRef<HTMLDivElement>(null);
  const follow = useRef(true);
  const virtual = items.length >= VIRTUALIZE_FROM;

  const onScroll = () => {
    const el = ref.current;
    if (el) follow.current = el.scrollHeight - el.scrollTop - el.clientHeight < FOLLOW_SLACK;
  };

  return (
    <div
      ref={ref}
      className="timeline"
      data-testid="timeline"
      data-count={items.length}
      role="log"
      aria-label={t("agent.conversation")}
      aria-live="polite"
      aria-busy={running}
      onScroll={onScroll}
    >
      {items.length === 0 ? (
        <p className="empty muted">{t("agent.empty")}</p>
      ) : virtual ? (
        <VirtualItems items={items} running={running} scroller={ref} follow={follow} />
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

function VirtualItems({ items, running, scroller, follow }: ListProps) {
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ESTIMATED_ROW,
    overscan: 8,
    getItemKey: (index) => items[index]?.id ?? index,
    // A replay opens at its end: render the last rows first instead of the first ones.
    initialOffset: () => (follow.current ? items.length * ESTIMATED_ROW : 0),
  });
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && follow.current) el.scrollTop = el.scrollHeight;
  }, [items.length, scroller, follow]);
  const rows = virtualizer.getVirtualItems();
  return (
    <div className="virtual-space" ref={(el) => el?.style.setProperty("height", `${virtualizer.getTotalSize()}px`)}>
      {rows.map((row) => {
        const item = items[row.index];
        if (!item) return null;
        return (
          <div
            key={row.key}
            data-index={row.index}
            className="virtual-row"
            ref={(el) => {
              if (!el) return;
              el.style.setProperty("transform", `translateY(${row.start}px)`);
              virtualizer.measureElement(el);
            }}
          >
            <TimelineItemView item={item} live={running && row.index === items.length - 1} />
          </div>
        );
      })}
    </div>
  );
}

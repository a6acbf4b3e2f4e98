import { useLayoutEffect, useRef } from "react";
import type { TimelineItem } from "../bindings";
import { TimelineItemView } from "./TimelineItemView";

/** Distance from the bottom (px) within which the view keeps following new output. */
const FOLLOW_SLACK = 48;

/** The conversation. Follows the stream unless the user has scrolled up to read. */
export function Timeline({ items, running }: { items: TimelineItem[]; running: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  const follow = useRef(true);

  useLayoutEffect(() => {
    const el = ref.current;
    if (el && follow.current) el.scrollTop = el.scrollHeight;
  }, [items]);

  const onScroll = () => {
    const el = ref.current;
    if (el) follow.current = el.scrollHeight - el.scrollTop - el.clientHeight < FOLLOW_SLACK;
  };

  return (
    <div
      ref={ref}
      className="timeline"
      data-testid="timeline"
      role="log"
      aria-label="Conversation"
      aria-live="polite"
      aria-busy={running}
      onScroll={onScroll}
    >
      {items.length === 0 ? (
        <p className="empty muted">
          Ask about an object, a catalogue or a paper — for example “Where is NGC 4258?”
        </p>
      ) : (
        items.map((item, index) => (
          <TimelineItemView
            key={item.id}
            item={item}
            live={running && index === items.length - 1}
          />
        ))
      )}
    </div>
  );
}

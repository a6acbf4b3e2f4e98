import type { ReactNode, SVGProps } from "react";

/**
 * The UI's icons, drawn as inline SVG: a symbol character (✦ ⚙ ☾ …) needs a font that
 * has it and shows as an empty box without one (seen in the rail under Xvfb). Each icon
 * is 1em square in the current text colour and hidden from assistive technology: the
 * control around it carries the name.
 */
export type IconProps = Omit<SVGProps<SVGSVGElement>, "children">;

function Icon({ children, className, ...props }: IconProps & { children: ReactNode }) {
  return (
    <svg
      xmlns="http://www.w3.org/2000/svg"
      viewBox="0 0 24 24"
      width="1em"
      height="1em"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
      className={className ? `icon ${className}` : "icon"}
      {...props}
    >
      {children}
    </svg>
  );
}

/** A four-pointed star (the brand mark and the agent panel). */
export const SparkleIcon = (props: IconProps) => (
  <Icon {...props}>
    <path
      d="M12 2.5C12.7 8.2 15.8 11.3 21.5 12 15.8 12.7 12.7 15.8 12 21.5 11.3 15.8 8.2 12.7 2.5 12 8.2 11.3 11.3 8.2 12 2.5Z"
      fill="currentColor"
      strokeWidth={1}
    />
  </Icon>
);

/** A page of lines (the library). */
export const LibraryIcon = (props: IconProps) => (
  <Icon {...props}>
    <rect x="4" y="3.5" width="16" height="17" rx="2" />
    <path d="M8 8.5h8M8 12h8M8 15.5h5" />
  </Icon>
);

/** A sunrise over a horizon (what is new today). */
export const SunriseIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M3 18.5h18M7 18.5a5 5 0 0 1 10 0M12 4.5v4M5.6 9.6l1.8 1.8M18.4 9.6l-1.8 1.8" />
  </Icon>
);

/** A bar chart (metrics). */
export const MetricsIcon = (props: IconProps) => (
  <Icon {...props}>
    <rect x="3.5" y="3.5" width="17" height="17" rx="2" />
    <path d="M8 16.5v-4M12 16.5v-8M16 16.5v-6" />
  </Icon>
);

/** A list (the audit log). */
export const ListIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M4 6.5h16M4 12h16M4 17.5h16" />
  </Icon>
);

/** A cog wheel with eight teeth: settings, and a tool call. */
export const GearIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d={GEAR} strokeWidth={1.75} />
    <circle cx="12" cy="12" r="3" strokeWidth={1.75} />
  </Icon>
);

/** The gear's outline: teeth from radius 7 out to 9.5, computed once. */
const GEAR = (() => {
  const teeth = 8;
  const point = (radius: number, angle: number) =>
    `${(12 + radius * Math.cos(angle)).toFixed(2)} ${(12 + radius * Math.sin(angle)).toFixed(2)}`;
  const step = (2 * Math.PI) / teeth;
  const parts: string[] = [];
  for (let i = 0; i < teeth; i++) {
    const a = i * step - Math.PI / 2;
    // Base of the tooth on the inner circle, its flat top on the outer one.
    parts.push(`${i === 0 ? "M" : "L"}${point(7, a - step * 0.3)}`);
    parts.push(`L${point(9.5, a - step * 0.17)}`);
    parts.push(`L${point(9.5, a + step * 0.17)}`);
    parts.push(`L${point(7, a + step * 0.3)}`);
    parts.push(`A7 7 0 0 1 ${point(7, a + step * 0.7)}`);
  }
  return `${parts.join("")}Z`;
})();

/** The sun (switches to the light theme). */
export const SunIcon = (props: IconProps) => (
  <Icon {...props}>
    <circle cx="12" cy="12" r="4" />
    <path d="M12 2.5v2M12 19.5v2M2.5 12h2M19.5 12h2M5.3 5.3l1.4 1.4M17.3 17.3l1.4 1.4M5.3 18.7l1.4-1.4M17.3 6.7l1.4-1.4" />
  </Icon>
);

/** A crescent moon (switches to the dark theme). */
export const MoonIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M20 14.6A8.5 8.5 0 1 1 9.4 4 6.8 6.8 0 0 0 20 14.6Z" />
  </Icon>
);

/**
 * 中, the first character of 中文, drawn: the language switch shows it in the English UI,
 * and a machine without a CJK font would show an empty box in its place.
 */
export const ZhongIcon = (props: IconProps) => (
  <Icon {...props}>
    <rect x="4.5" y="7.5" width="15" height="8.5" rx="1" />
    <path d="M12 3v18" />
  </Icon>
);

/** An empty check box (a pending task). */
export const BoxIcon = (props: IconProps) => (
  <Icon {...props}>
    <rect x="4" y="4" width="16" height="16" rx="2" />
  </Icon>
);

/** A ticked check box (a completed task). */
export const CheckedBoxIcon = (props: IconProps) => (
  <Icon {...props}>
    <rect x="4" y="4" width="16" height="16" rx="2" />
    <path d="M8 12.5l3 3 5-6.5" />
  </Icon>
);

/** A right-pointing triangle (a task in progress). */
export const PlayIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M7 5v14l11-7Z" fill="currentColor" />
  </Icon>
);

/** A tick (an endpoint that works). */
export const CheckIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M5 12.5l4.5 4.5L19 7.5" />
  </Icon>
);

/** A triangle with an exclamation mark (a problem to look at). */
export const AlertIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M12 3.5 21.5 20h-19Z" />
    <path d="M12 10v4.5M12 17.2v.3" />
  </Icon>
);

/** A circle with cross hairs (a place in the sky, and what lies around it). */
export const CrosshairIcon = (props: IconProps) => (
  <Icon {...props}>
    <circle cx="12" cy="12" r="7" />
    <path d="M12 2.5v5M12 16.5v5M2.5 12h5M16.5 12h5" />
  </Icon>
);

/** A chevron pointing right; turned down (CSS) when what it heads is open. */
export const ChevronIcon = (props: IconProps) => (
  <Icon {...props}>
    <path d="M9.5 6l6 6-6 6" />
  </Icon>
);

import katex from "katex";
import { memo, useCallback, type ReactNode } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";
import remarkMath from "remark-math";
import "katex/dist/katex.min.css";
import { MarkdownLink } from "../links/Links";

const remarkPlugins = [remarkGfm, remarkMath];

type HastNode = { type: string; tagName?: string; properties?: { className?: unknown }; children?: HastNode[] };

function mathKind(node: HastNode | undefined): "inline" | "display" | null {
  const classes = node?.properties?.className;
  if (!Array.isArray(classes)) return null;
  if (classes.includes("math-display")) return "display";
  if (classes.includes("math-inline")) return "inline";
  return null;
}

/**
 * One formula, drawn by KaTeX straight into the DOM. remark-math marks formulas as
 * `code.math-inline` and `pre > code.math-display`; rendering them here instead of
 * through rehype-katex skips parsing KaTeX's HTML back into a syntax tree (most of the
 * time a long replay spent on its rows), and KaTeX sets its styles through the DOM, which
 * the app's CSP allows (inline `style` attributes in HTML it would drop).
 */
const Formula = memo(function Formula({ tex, display }: { tex: string; display: boolean }) {
  const draw = useCallback(
    (element: HTMLElement | null) => {
      if (element) katex.render(tex, element, { displayMode: display, throwOnError: false });
    },
    [tex, display],
  );
  return display ? <div className="math math-display" ref={draw} /> : <span className="math math-inline" ref={draw} />;
});

function text(children: ReactNode): string {
  if (typeof children === "string") return children;
  if (Array.isArray(children)) return children.map(text).join("");
  return "";
}

const components: Components = {
  // Links never open inside the app: web pages open in the system browser.
  a: ({ children, href }) => <MarkdownLink href={href}>{children}</MarkdownLink>,
  pre: ({ node, children }) => {
    const first = (node as HastNode | undefined)?.children?.find((child) => child.type === "element");
    return mathKind(first) === "display" ? <>{children}</> : <pre>{children}</pre>;
  },
  code: ({ node, className, children }) => {
    const kind = mathKind(node as HastNode | undefined);
    if (kind) return <Formula tex={text(children)} display={kind === "display"} />;
    return <code className={className}>{children}</code>;
  },
};

/** Model output as Markdown with $…$ / $$…$$ math (KaTeX). */
const MarkdownRenderer = memo(function MarkdownRenderer({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={remarkPlugins} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
});

export default MarkdownRenderer;

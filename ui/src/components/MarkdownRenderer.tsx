import { memo } from "react";
import ReactMarkdown from "react-markdown";
import rehypeKatex from "rehype-katex";
import remarkGfm from "remark-gfm";
import remarkMath from "remark-math";
import "katex/dist/katex.min.css";

const remarkPlugins = [remarkGfm, remarkMath];
const rehypePlugins = [rehypeKatex];

/** Model output as Markdown with $…$ / $$…$$ math (KaTeX); links open nowhere inside the app. */
const MarkdownRenderer = memo(function MarkdownRenderer({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown
        remarkPlugins={remarkPlugins}
        rehypePlugins={rehypePlugins}
        components={{ a: ({ children, href }) => <span className="link" title={href}>{children}</span> }}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
});

export default MarkdownRenderer;

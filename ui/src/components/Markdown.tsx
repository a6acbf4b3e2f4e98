import { lazy, Suspense } from "react";

// react-markdown and KaTeX load with the first answer, not with the app.
const MarkdownRenderer = lazy(() => import("./MarkdownRenderer"));

/** Model output as Markdown with math; plain text until the renderer has loaded. */
export function Markdown({ text }: { text: string }) {
  return (
    <Suspense fallback={<div className="markdown plain">{text}</div>}>
      <MarkdownRenderer text={text} />
    </Suspense>
  );
}

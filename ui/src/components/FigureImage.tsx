import { convertFileSrc } from "@tauri-apps/api/core";
import { useState } from "react";

/** Whether a passage's section names a figure or table caption ("Figure 3", "Table A.1"). */
export function isCaption(section: string | null | undefined): section is string {
  return !!section && /^(Figure|Table) [A-Z0-9.]+$/.test(section);
}

/**
 * The figure or table a caption passage belongs to, cut from the paper's stored PDF
 * (the `figure:` scheme of the shell). Shows nothing when the paper has no PDF or no
 * region was found for the caption.
 */
export function FigureImage({ paperId, label }: { paperId: string; label: string }) {
  const [failed, setFailed] = useState(false);
  if (failed) return null;
  return (
    <figure className="caption-figure" data-testid="caption-figure">
      <img src={convertFileSrc(`${paperId}/${label}`, "figure")} alt={label} loading="lazy" onError={() => setFailed(true)} />
    </figure>
  );
}

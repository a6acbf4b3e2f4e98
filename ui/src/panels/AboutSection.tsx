import { Fragment, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { commands, type About, type LocalParts, type Component } from "../bindings";
import { call, describeError, useToasts } from "../app/toasts";
import { MarkdownLink } from "../links/Links";

/** The PDF engine and the embedding model in use, with a warning when either is the fallback. */
export function PartsList({ parts, testIdPrefix }: { parts: LocalParts; testIdPrefix: string }) {
  const { t } = useTranslation();
  return (
    <dl className="local-parts" data-testid={`${testIdPrefix}-list`} aria-label={t("settings.parts")}>
      <dt>{t("settings.pdfEngine")}</dt>
      <dd className={parts.pdfFallback ? "warn" : undefined} data-testid={`${testIdPrefix}-pdf`}>
        {parts.pdfFallback && <strong>{t("settings.fallback")} </strong>}
        {parts.pdfEngine}
      </dd>
      <dt>{t("settings.embeddings")}</dt>
      <dd className={parts.embeddingsFallback ? "warn" : undefined} data-testid={`${testIdPrefix}-embeddings`}>
        {parts.embeddingsFallback && <strong>{t("settings.fallback")} </strong>}
        {parts.embeddings}
      </dd>
    </dl>
  );
}

const KINDS = ["part", "crate", "npm"];
const keyOf = (c: Component) => `${c.kind}/${c.name}/${c.version}`;

/** Version, parts, and the notices of everything shipped, each with its licence texts. */
export function AboutSection() {
  const { t } = useTranslation();
  const toasts = useToasts();
  const [about, setAbout] = useState<About | null>(null);
  const [filter, setFilter] = useState("");
  const [open, setOpen] = useState<string | null>(null);

  useEffect(() => {
    call(commands.about())
      .then(setAbout)
      .catch((error) => toasts.error(describeError(error)));
  }, [toasts]);

  if (!about) return null;
  const counts = new Map<string, number>();
  for (const c of about.components) counts.set(c.kind, (counts.get(c.kind) ?? 0) + 1);
  const kinds = [...KINDS.filter((kind) => counts.has(kind)), ...[...counts.keys()].filter((kind) => !KINDS.includes(kind))];
  const words = filter.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const shown = about.components.filter((c) => {
    const text = `${c.name} ${c.version} ${c.license} ${c.kind}`.toLowerCase();
    return words.every((word) => text.includes(word));
  });

  return (
    <fieldset className="about" data-testid="about">
      <legend>{t("about.title")}</legend>
      <p data-testid="about-version">
        <strong>{t("about.version", { version: about.version })}</strong>
      </p>
      <PartsList parts={about.parts} testIdPrefix="about-part" />
      <h2 className="about-heading">{t("about.notices")}</h2>
      {about.noticesProblem && (
        <p className="warn" data-testid="notices-problem">
          {t("about.noticesProblem", { problem: about.noticesProblem })}
        </p>
      )}
      {about.components.length > 0 && (
        <>
          <p className="muted" data-testid="about-counts">
            {kinds.map((kind) => t(`about.kinds.${kind}`, { count: counts.get(kind), defaultValue: `${counts.get(kind)} ${kind}` })).join(" · ")}
            {about.noticesPath && <span className="path"> — {t("about.readFrom", { path: about.noticesPath })}</span>}
          </p>
          <input
            type="search"
            className="about-filter"
            data-testid="about-filter"
            aria-label={t("about.filter")}
            placeholder={t("about.filter")}
            value={filter}
            onChange={(event) => setFilter(event.target.value)}
          />
          <div className="about-list">
            {shown.length === 0 ? (
              <p className="muted">{t("about.noMatch")}</p>
            ) : (
              <table className="data-table">
                <thead>
                  <tr>
                    <th>{t("about.name")}</th>
                    <th>{t("about.componentVersion")}</th>
                    <th>{t("about.license")}</th>
                    <th>{t("about.link")}</th>
                  </tr>
                </thead>
                <tbody>
                  {shown.map((c) => (
                    <ComponentRow key={keyOf(c)} component={c} open={open === keyOf(c)} onToggle={() => setOpen(open === keyOf(c) ? null : keyOf(c))} />
                  ))}
                </tbody>
              </table>
            )}
          </div>
        </>
      )}
    </fieldset>
  );
}

/** One component; clicked, its licence texts below it. */
function ComponentRow({ component, open, onToggle }: { component: Component; open: boolean; onToggle: () => void }) {
  const { t } = useTranslation();
  return (
    <Fragment>
      <tr data-testid="about-component" className="clickable" aria-selected={open} onClick={onToggle}>
        <td>
          <button
            type="button"
            className="link-button"
            aria-expanded={open}
            onClick={(event) => {
              event.stopPropagation();
              onToggle();
            }}
          >
            {component.name}
          </button>{" "}
          <span className="badge">{t(`about.kindNames.${component.kind}`, component.kind)}</span>
        </td>
        <td>{component.version}</td>
        <td>{component.license}</td>
        <td className="ellipsis">{component.url && <MarkdownLink href={component.url}>{component.url}</MarkdownLink>}
        </td>
      </tr>
      {open && (
        <tr>
          <td colSpan={4}>
            <LicenseTexts ids={component.texts} />
          </td>
        </tr>
      )}
    </Fragment>
  );
}

/** The licence texts of one component, loaded when it is opened. */
function LicenseTexts({ ids }: { ids: string[] }) {
  const { t } = useTranslation();
  const [texts, setTexts] = useState<string[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    let alive = true;
    Promise.all(ids.map((id) => call(commands.licenseText(id))))
      .then((loaded) => alive && setTexts(loaded))
      .catch((error) => alive && setProblem(describeError(error)));
    return () => {
      alive = false;
    };
  }, [ids]);

  if (ids.length === 0) return <p className="muted">{t("about.noTexts")}</p>;
  if (problem) return <p className="warn">{problem}</p>;
  if (!texts) return <p className="muted">{t("common.loading")}</p>;
  return (
    <>
      {texts.map((text, index) => (
        <pre key={ids[index]} className="license-text" data-testid="license-text">
          {text}
        </pre>
      ))}
    </>
  );
}

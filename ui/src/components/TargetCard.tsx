import { useTranslation } from "react-i18next";
import { useState } from "react";
import type { JsonValue } from "../bindings";
import { SimbadLink } from "../links/Links";
import { NEARBY_RADIUS_ARCMIN, useNavigation } from "../app/navigation";
import { CrosshairIcon } from "./icons";

/** The fields of a `query_target` result the card shows (a subset of `ResolvedTarget`). */
export type TargetInfo = {
  /** The name asked for (`query`), which titles the card. */
  query: string;
  /** Sesame's main identifier. */
  name: string;
  raDeg: number;
  decDeg: number;
  raSexagesimal: string;
  decSexagesimal: string;
  objectType: string | null;
  objectTypeLabel: string | null;
  morphology: string | null;
  redshift: number | null;
  velocityKms: number | null;
  aliases: string[];
  resolver: string;
};

const ALIASES_SHOWN = 4;

/** A name without spaces or case, to tell whether two spellings are one name. */
const squeezed = (name: string) => name.replace(/\s+/g, "").toLowerCase();

/** Reads target metadata, or null when it lacks the essentials (name and coordinates). */
export function asTarget(metadata: JsonValue): TargetInfo | null {
  if (!metadata || typeof metadata !== "object" || Array.isArray(metadata)) return null;
  const m = metadata as Record<string, JsonValue>;
  const str = (v: JsonValue | undefined) => (typeof v === "string" ? v : null);
  const num = (v: JsonValue | undefined) => (typeof v === "number" ? v : null);
  if (typeof m.name !== "string" || typeof m.raDeg !== "number" || typeof m.decDeg !== "number") {
    return null;
  }
  return {
    query: str(m.query) ?? m.name,
    name: m.name,
    raDeg: m.raDeg,
    decDeg: m.decDeg,
    raSexagesimal: str(m.raSexagesimal) ?? "",
    decSexagesimal: str(m.decSexagesimal) ?? "",
    objectType: str(m.objectType),
    objectTypeLabel: str(m.objectTypeLabel),
    morphology: str(m.morphology),
    redshift: num(m.redshift),
    velocityKms: num(m.velocityKms),
    aliases: Array.isArray(m.aliases) ? m.aliases.filter((a) => typeof a === "string") : [],
    resolver: str(m.resolver) ?? "",
  };
}

/**
 * A resolved sky object: position in both notations, type, resolver and other names; and,
 * inside the app, a way to the papers of the library about objects around it.
 */
export function TargetCard({ target }: { target: TargetInfo }) {
  const { t } = useTranslation();
  const { openLibraryNear } = useNavigation();
  const [allAliases, setAllAliases] = useState(false);
  const type = target.objectTypeLabel ?? target.objectType;
  const aliases = allAliases ? target.aliases : target.aliases.slice(0, ALIASES_SHOWN);
  const hidden = target.aliases.length - ALIASES_SHOWN;

  return (
    <section className="target-card" data-testid="target-card" aria-label={t("target.label", { name: target.query })}>
      <h3 className="target-name">
        {target.query} <SimbadLink name={target.name} />
      </h3>
      <dl className="target-fields">
        {squeezed(target.query) !== squeezed(target.name) && (
          <>
            <dt>{t("target.mainId")}</dt>
            <dd data-testid="target-main-id">{target.name}</dd>
          </>
        )}
        <dt>RA</dt>
        <dd>
          <span className="mono">{target.raSexagesimal}</span>{" "}
          <span className="muted mono">({target.raDeg.toFixed(5)}°)</span>
        </dd>
        <dt>Dec</dt>
        <dd>
          <span className="mono">{target.decSexagesimal}</span>{" "}
          <span className="muted mono">({target.decDeg.toFixed(5)}°)</span>
        </dd>
        {type && (
          <>
            <dt>{t("target.type")}</dt>
            <dd>
              {type}
              {target.objectTypeLabel && target.objectType && (
                <span className="muted mono"> ({target.objectType})</span>
              )}
            </dd>
          </>
        )}
        {target.morphology && (
          <>
            <dt>{t("target.morphology")}</dt>
            <dd data-testid="target-morphology">{target.morphology}</dd>
          </>
        )}
        {(target.redshift != null || target.velocityKms != null) && (
          <>
            <dt>{target.redshift != null ? "z" : t("target.velocity")}</dt>
            <dd className="mono" data-testid="target-redshift">
              {target.redshift != null ? target.redshift : `${target.velocityKms} km/s`}
              {target.redshift != null && target.velocityKms != null && (
                <span className="muted"> ({target.velocityKms} km/s)</span>
              )}
            </dd>
          </>
        )}
        {target.resolver && (
          <>
            <dt>{t("target.resolver")}</dt>
            <dd>{target.resolver}</dd>
          </>
        )}
        {target.aliases.length > 0 && (
          <>
            <dt>{t("target.aliases")}</dt>
            <dd>
              <ul className="aliases">
                {aliases.map((alias) => (
                  <li key={alias}>{alias}</li>
                ))}
              </ul>
              {hidden > 0 && (
                <button
                  type="button"
                  className="link-button"
                  aria-expanded={allAliases}
                  onClick={() => setAllAliases(!allAliases)}
                >
                  {allAliases ? t("target.fewer") : t("target.all", { count: target.aliases.length })}
                </button>
              )}
            </dd>
          </>
        )}
      </dl>
      {openLibraryNear && (
        <div className="target-actions">
          <button
            type="button"
            className="secondary target-library"
            data-testid="target-library-papers"
            title={t("target.libraryNearbyTitle", { name: target.name, radius: NEARBY_RADIUS_ARCMIN })}
            onClick={() => openLibraryNear(target.name)}
          >
            <CrosshairIcon />
            {t("target.libraryNearby")}
          </button>
        </div>
      )}
    </section>
  );
}

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { commands, type LibraryObject, type NearbyObjects, type ObjectPaper } from "../bindings";
import { call, describeError, useToasts } from "../app/toasts";
import { NEARBY_RADIUS_ARCMIN, type LibraryRequest } from "../app/navigation";
import { ChevronIcon, CrosshairIcon } from "../components/icons";

/** The largest radius the app accepts for a cone search, in arcminutes. */
const MAX_RADIUS_ARCMIN = 600;

/** Lower case without spaces: "NGC4258" finds "NGC 4258", and "M  31" equals "M 31". */
const squeeze = (text: string) => text.toLowerCase().replace(/\s+/g, "");

/** Whether an object matches the typed text (its name, Sesame's name or its type). */
export function matchesObject(object: LibraryObject, text: string): boolean {
  const needle = squeeze(text);
  if (!needle) return true;
  return [object.name, object.resolvedName, object.objectType, object.objectTypeLabel, object.morphology]
    .filter((value): value is string => typeof value === "string")
    .some((value) => squeeze(value).includes(needle));
}

/** Degrees with 4 decimals; a declination with its sign. */
export function formatDegrees(value: number, signed = false): string {
  const text = Math.abs(value).toFixed(4);
  const negative = value < 0 && Number(text) !== 0;
  return `${negative ? "-" : signed ? "+" : ""}${text}°`;
}

/** Splits a non-negative value into units, sixtieths and (rounded) seconds, carrying a
 * rounded 60 upwards. */
function sixtieths(value: number, decimals: number): [number, number, string] {
  const scale = 10 ** decimals;
  let tenths = Math.round(value * 3600 * scale);
  const whole = Math.floor(tenths / (3600 * scale));
  tenths -= whole * 3600 * scale;
  const minutes = Math.floor(tenths / (60 * scale));
  const seconds = (tenths - minutes * 60 * scale) / scale;
  return [whole, minutes, seconds.toFixed(decimals).padStart(decimals + 3, "0")];
}

/** Right ascension in hours, minutes and seconds: `12h18m57.50s`. */
export function formatRa(raDeg: number): string {
  const [h, m, s] = sixtieths((((raDeg % 360) + 360) % 360) / 15, 2);
  return `${String(h % 24).padStart(2, "0")}h${String(m).padStart(2, "0")}m${s}s`;
}

/** Declination in degrees, arcminutes and arcseconds: `+47°18′14.3″`. */
export function formatDec(decDeg: number): string {
  const [d, m, s] = sixtieths(Math.abs(decDeg), 1);
  const sign = decDeg < 0 && (d > 0 || m > 0 || Number(s) > 0) ? "-" : "+";
  return `${sign}${String(d).padStart(2, "0")}°${String(m).padStart(2, "0")}′${s}″`;
}

/** A radius as typed (30, 12.5), not as a float prints it. */
const formatRadius = (value: number) => String(Number(value.toFixed(2)));

type Props = {
  /** The paper shown in the Library's details, if any. */
  selected: string | null;
  onSelect: (paperId: string) => void;
  /** A cone search to run on opening (another panel asked for it). */
  request?: LibraryRequest | null;
  /** Changes when the library's papers did (an import, a deletion): the objects are read again. */
  revision?: number;
};

/** The Library's objects: those its papers are about, and a cone search around a named one. */
export function LibraryObjects({ selected, onSelect, request = null, revision = 0 }: Props) {
  const { t } = useTranslation();
  const toasts = useToasts();
  const [objects, setObjects] = useState<LibraryObject[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [text, setText] = useState("");
  const [open, setOpen] = useState<Set<string>>(() => new Set());

  const [name, setName] = useState(request?.near.name ?? "");
  const [radius, setRadius] = useState(String(request?.near.radiusArcmin ?? NEARBY_RADIUS_ARCMIN));
  const [cone, setCone] = useState<NearbyObjects | null>(null);
  const [coneError, setConeError] = useState<string | null>(null);
  const [searching, setSearching] = useState(false);
  // Only the latest search's answer is shown, whatever order the answers arrive in.
  const searches = useRef(0);
  const handled = useRef<number | null>(null);

  useEffect(() => {
    let alive = true;
    call(commands.libraryObjects())
      .then((list) => {
        if (!alive) return;
        setObjects(list);
        setLoadError(null);
      })
      .catch((error: unknown) => {
        if (!alive) return;
        const message = describeError(error);
        setLoadError(message);
        setObjects((previous) => previous ?? []);
        toasts.error(message);
      });
    return () => {
      alive = false;
    };
  }, [revision, toasts]);

  const search = useCallback(
    async (target: string, radiusArcmin: number) => {
      const id = ++searches.current;
      setSearching(true);
      setConeError(null);
      try {
        const answer = await call(commands.libraryObjectsNear(target, radiusArcmin));
        if (id === searches.current) setCone(answer);
      } catch (error) {
        if (id !== searches.current) return;
        const message = describeError(error);
        setCone(null);
        setConeError(message);
        toasts.error(message);
      } finally {
        if (id === searches.current) setSearching(false);
      }
    },
    [toasts],
  );

  // Another panel's request runs once, as soon as the view opens with it.
  useEffect(() => {
    if (!request || handled.current === request.id) return;
    handled.current = request.id;
    setName(request.near.name);
    setRadius(String(request.near.radiusArcmin));
    void search(request.near.name, request.near.radiusArcmin);
  }, [request, search]);

  const submit = () => {
    const target = name.trim();
    if (!target) return;
    const value = Number(radius);
    if (radius.trim() === "" || !Number.isFinite(value) || value <= 0 || value > MAX_RADIUS_ARCMIN) {
      setCone(null);
      setConeError(t("library.objects.badRadius", { max: MAX_RADIUS_ARCMIN }));
      return;
    }
    void search(target, value);
  };

  const toggle = (key: string) =>
    setOpen((previous) => {
      const next = new Set(previous);
      if (!next.delete(key)) next.add(key);
      return next;
    });

  const shown = useMemo(() => (objects ?? []).filter((object) => matchesObject(object, text)), [objects, text]);

  return (
    <div className="library-objects" role="tabpanel" data-testid="library-objects" aria-label={t("library.tabs.objects")}>
      <form
        className="inline-form cone-form"
        data-testid="cone-form"
        noValidate
        aria-label={t("library.objects.near")}
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <CrosshairIcon className="cone-icon" />
        <input
          className="cone-name"
          data-testid="cone-name"
          aria-label={t("library.objects.name")}
          placeholder={t("library.objects.namePlaceholder")}
          value={name}
          onChange={(event) => setName(event.target.value)}
        />
        <label className="cone-radius">
          {t("library.objects.radius")}
          <input
            type="number"
            data-testid="cone-radius"
            min={0}
            max={MAX_RADIUS_ARCMIN}
            step="any"
            value={radius}
            onChange={(event) => setRadius(event.target.value)}
          />
        </label>
        <button type="submit" className="secondary" data-testid="cone-search" disabled={!name.trim() || searching}>
          {searching ? t("library.objects.searching") : t("library.objects.search")}
        </button>
      </form>
      {coneError && (
        <p className="error-text" role="alert" data-testid="cone-error">
          {coneError}
        </p>
      )}
      {cone && <ConeResult cone={cone} selected={selected} onSelect={onSelect} />}

      <div className="filters objects-filter">
        <input
          type="search"
          data-testid="objects-filter"
          aria-label={t("library.objects.filter")}
          placeholder={t("library.objects.filterPlaceholder")}
          value={text}
          onChange={(event) => setText(event.target.value)}
        />
        {objects && objects.length > 0 && (
          <span className="muted" data-testid="objects-count">
            {text.trim()
              ? t("library.objects.shown", { shown: shown.length, count: objects.length })
              : t("library.objects.count", { count: objects.length })}
          </span>
        )}
      </div>
      {loadError && (
        <p className="error-text" role="alert" data-testid="objects-error">
          {loadError}
        </p>
      )}
      {objects === null ? (
        <p className="muted">{t("library.objects.loading")}</p>
      ) : objects.length === 0 ? (
        !loadError && (
          <p className="empty muted" data-testid="objects-empty">
            {t("library.objects.empty")}
          </p>
        )
      ) : shown.length === 0 ? (
        <p className="muted" data-testid="objects-no-match">
          {t("library.objects.noMatch", { text: text.trim() })}
        </p>
      ) : (
        <ul className="object-list">
          {shown.map((object) => (
            <ObjectItem
              key={object.name}
              testId="library-object"
              object={object}
              open={open.has(object.name)}
              onToggle={() => toggle(object.name)}
              selected={selected}
              onSelect={onSelect}
            />
          ))}
        </ul>
      )}
    </div>
  );
}

/** The answer of a cone search: its centre and radius, then the objects nearest first. */
function ConeResult({ cone, selected, onSelect }: { cone: NearbyObjects; selected: string | null; onSelect: (paperId: string) => void }) {
  const { t } = useTranslation();
  // Nearby objects show their papers at once (that is what was asked); each can be folded.
  const [closed, setClosed] = useState<Set<string>>(() => new Set());
  const { center } = cone;
  const radius = formatRadius(cone.radiusArcmin ?? NEARBY_RADIUS_ARCMIN);
  const where =
    center.raDeg != null && center.decDeg != null
      ? t("library.objects.within", { radius, name: center.name, ra: formatRa(center.raDeg), dec: formatDec(center.decDeg) })
      : t("library.objects.withinNoPosition", { radius, name: center.name });
  const toggle = (key: string) =>
    setClosed((previous) => {
      const next = new Set(previous);
      if (!next.delete(key)) next.add(key);
      return next;
    });

  return (
    <section className="cone-result" data-testid="cone-result" aria-label={where}>
      <p className="cone-center" data-testid="cone-center">
        {where}
      </p>
      {cone.objects.length === 0 ? (
        <p className="muted" data-testid="cone-none">
          {t("library.objects.none", { radius, name: center.name })}
        </p>
      ) : (
        <ul className="object-list">
          {cone.objects.map((object) => (
            <ObjectItem
              key={object.name}
              testId="nearby-object"
              object={object}
              separation={object.separationArcmin}
              open={!closed.has(object.name)}
              onToggle={() => toggle(object.name)}
              selected={selected}
              onSelect={onSelect}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

type ItemProps = {
  testId: string;
  object: LibraryObject;
  /** Distance from a cone search's centre, in arcminutes. */
  separation?: number | null;
  open: boolean;
  onToggle: () => void;
  selected: string | null;
  onSelect: (paperId: string) => void;
};

/** One object: a line that unfolds its papers; a paper opens in the Library's details. */
function ObjectItem({ testId, object, separation, open, onToggle, selected, onSelect }: ItemProps) {
  const { t } = useTranslation();
  const resolved = object.resolvedName && squeeze(object.resolvedName) !== squeeze(object.name) ? object.resolvedName : null;
  const positioned = object.raDeg != null && object.decDeg != null;
  const decimal = positioned ? `${object.raDeg!.toFixed(6)} ${object.decDeg! >= 0 ? "+" : ""}${object.decDeg!.toFixed(6)}` : "";

  return (
    <li className="object-item" data-testid={testId}>
      <button type="button" className="object-head" aria-expanded={open} onClick={onToggle}>
        <ChevronIcon className="chevron" />
        <span className="object-name" data-testid="object-name">
          {object.name}
        </span>
        {resolved && (
          <span className="muted" data-testid="object-resolved">
            {t("library.objects.resolvedAs", { name: resolved })}
          </span>
        )}
        {separation !== undefined && (
          <span className="badge object-separation" data-testid="object-separation">
            {separation == null ? "–" : t("library.objects.separation", { sep: separation.toFixed(1) })}
          </span>
        )}
        <span
          className={positioned ? "mono object-coords" : "muted object-coords"}
          data-testid="object-coords"
          title={positioned ? decimal : undefined}
          // Copied, the position is decimal degrees (what catalogues and scripts take).
          onCopy={(event) => {
            if (!positioned) return;
            event.clipboardData.setData("text/plain", decimal);
            event.preventDefault();
          }}
        >
          {positioned ? `${formatRa(object.raDeg!)} ${formatDec(object.decDeg!)}` : t("library.objects.unresolved")}
        </span>
        {object.objectType && (
          <span className="badge" data-testid="object-type" title={`${t("library.objects.type")}: ${object.objectType}`}>
            {object.objectTypeLabel ?? object.objectType}
          </span>
        )}
        {object.morphology && (
          <span className="muted" data-testid="object-morphology">
            {object.morphology}
          </span>
        )}
        {(object.redshift != null || object.velocityKms != null) && (
          <span className="muted mono" data-testid="object-redshift">
            {object.redshift != null ? `z = ${object.redshift}` : `v = ${object.velocityKms} km/s`}
          </span>
        )}
        <span className="muted object-count" data-testid="object-count">
          {t("library.objects.papers", { count: object.papers.length })}
        </span>
      </button>
      {open && (
        <ul className="object-papers">
          {object.papers.map((paper) => (
            <li key={paper.id}>
              <PaperLine paper={paper} selected={paper.id === selected} onSelect={onSelect} />
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

function PaperLine({ paper, selected, onSelect }: { paper: ObjectPaper; selected: boolean; onSelect: (paperId: string) => void }) {
  const { t } = useTranslation();
  const byline = [paper.firstAuthor, paper.year != null ? String(paper.year) : null].filter(Boolean).join(", ");
  return (
    <button type="button" className="object-paper" data-testid="object-paper" aria-pressed={selected} onClick={() => onSelect(paper.id)}>
      <span className="object-paper-title">{paper.title || paper.id}</span>
      <span className="muted">
        {byline && `${byline} · `}
        {t(`library.objects.foundIn.${paper.foundIn}`, t("library.objects.foundElsewhere", { where: paper.foundIn }))}
      </span>
    </button>
  );
}

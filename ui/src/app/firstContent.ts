/** The first time a meaningful screen is on screen (the composer, or the first-run
 * set-up when no model is configured): what the end-to-end test and the app's bench
 * measure as time to first content. */
export function markFirstContent() {
  if (performance.getEntriesByName("asterism:interactive").length === 0) performance.mark("asterism:interactive");
}

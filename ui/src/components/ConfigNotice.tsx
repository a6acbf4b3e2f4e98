/** Shown when no language model is configured: how to configure one; replay still works. */
export function ConfigNotice({ dataDir }: { dataDir: string }) {
  return (
    <div className="config-notice" role="note" data-testid="config-notice">
      <strong>No language model is configured.</strong> Set <code>LLM_BASE_URL</code>,{" "}
      <code>LLM_MODEL</code> and <code>LLM_API_KEY</code> in the environment or in a{" "}
      <code>.env</code> file in the data directory
      {dataDir ? (
        <>
          {" "}
          (<code className="path">{dataDir}</code>)
        </>
      ) : null}
      , then restart Asterism. You can still browse and replay past sessions.
    </div>
  );
}

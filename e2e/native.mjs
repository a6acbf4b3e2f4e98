// Native end-to-end test of the desktop app: the real binary (custom-protocol build)
// driven through WebKitWebDriver under Xvfb, against the scripted model and the Sesame
// fixture server on loopback. Run by `make test` (scripts/test.sh), or by hand after
// `cargo build --workspace --features asterism-app/custom-protocol`:
//   xvfb-run -a -s "-screen 0 1280x800x24" node e2e/native.mjs
//
// The journey: ask "Where is NGC 4258?", see the query_target call, its result with the
// coordinates and the streamed answer; find the session in the list and replay it from
// the database; save screenshots.

import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createServer } from "node:net";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const target = process.env.CARGO_TARGET_DIR ?? join(root, "target");
const bin = (name) => join(target, "debug", name);
const artifacts = join(root, "e2e", "artifacts");
mkdirSync(artifacts, { recursive: true });

const children = [];
function start(command, args, env = {}) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  child.stderr.on("data", (chunk) => process.env.E2E_VERBOSE && process.stderr.write(`[${command.split("/").pop()}] ${chunk}`));
  return child;
}
function cleanup() {
  for (const child of children.reverse()) {
    try { child.kill("SIGTERM"); } catch { /* already gone */ }
  }
}
process.on("exit", cleanup);
process.on("SIGINT", () => { cleanup(); process.exit(130); });

/** The first line a server prints: its base URL. */
function firstLine(child, what) {
  return new Promise((resolvePromise, reject) => {
    let buffer = "";
    const timer = setTimeout(() => reject(new Error(`${what} did not start`)), 15000);
    child.stdout.on("data", (chunk) => {
      buffer += chunk;
      const newline = buffer.indexOf("\n");
      if (newline >= 0) { clearTimeout(timer); resolvePromise(buffer.slice(0, newline).trim()); }
    });
    child.on("exit", (code) => reject(new Error(`${what} exited with ${code}`)));
  });
}

function freePort() {
  return new Promise((resolvePromise) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolvePromise(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function webdriver(base, method, path, body, timeoutMs = 30000) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${method} ${path}: ${JSON.stringify(json.value ?? json)}`);
  return json.value;
}

async function waitFor(what, check, timeoutMs = 20000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try {
      last = await check();
      if (last) return last;
    } catch (error) { last = error; }
    await sleep(150);
  }
  throw new Error(`timed out waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
}

function assert(condition, message) {
  if (!condition) throw new Error(`assertion failed: ${message}`);
}

const results = { passed: 0, failed: 0 };
async function scenario(name, body) {
  const started = Date.now();
  try {
    await body();
    results.passed += 1;
    console.log(`ok   ${name} (${Date.now() - started} ms)`);
  } catch (error) {
    results.failed += 1;
    console.log(`FAIL ${name}: ${error.stack ?? error}`);
  }
}

const dataDir = mkdtempSync(join(tmpdir(), "asterism-e2e-"));
const mock = start(bin("asterism-mock-llm"), ["--script", join(root, "crates/testkit/scripts/ngc4258.json")]);
const fixtures = start(bin("asterism-fixture-server"), []);
const modelUrl = await firstLine(mock, "the scripted model");
const fixtureUrl = await firstLine(fixtures, "the fixture server");
const driverPort = await freePort();
start("WebKitWebDriver", [`--port=${driverPort}`], {
  TAURI_WEBVIEW_AUTOMATION: "true",
  ASTERISM_DATA_DIR: dataDir,
  LLM_BASE_URL: modelUrl,
  LLM_MODEL: "qwen-scripted",
  LLM_API_KEY: "sk-e2e-not-a-real-key",
  SESAME_URL: `${fixtureUrl}/cgi-bin/nph-sesame`,
  ADS_API_URL: `${fixtureUrl}/ads`,
  ARXIV_API_URL: `${fixtureUrl}/arxiv-api`,
  ARXIV_URL: `${fixtureUrl}/arxiv`,
});
const driver = `http://127.0.0.1:${driverPort}`;
await waitFor("WebKitWebDriver", async () => (await fetch(`${driver}/status`)).ok, 15000);

const launched = Date.now();
const session = await webdriver(driver, "POST", "/session", {
  capabilities: { alwaysMatch: { "webkitgtk:browserOptions": { binary: bin("asterism-app"), args: [] } } },
}, 60000);
const sid = session.sessionId;
const wd = (method, path, body) => webdriver(driver, method, `/session/${sid}${path}`, body);
const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";
const find = async (css) => (await wd("POST", "/element", { using: "css selector", value: css }))[ELEMENT];
const findAll = async (css) => (await wd("POST", "/elements", { using: "css selector", value: css })).map((e) => e[ELEMENT]);
const script = (source, args = []) => wd("POST", "/execute/sync", { script: source, args });
const timeline = () => script(`return [...document.querySelectorAll('[data-testid="timeline-item"]')].map(e => ({kind: e.dataset.kind, text: e.textContent}))`);
async function screenshot(name) {
  const png = await wd("GET", "/screenshot");
  writeFileSync(join(artifacts, name), Buffer.from(png, "base64"));
}

await waitFor("the question box", () => find('[data-testid="question-input"]'));
console.log(`app interactive ${Date.now() - launched} ms after launch`);

let liveItems = [];
await scenario("ask 'Where is NGC 4258?': tool call, result with coordinates, streamed answer", async () => {
  const input = await find('[data-testid="question-input"]');
  await wd("POST", `/element/${input}/value`, { text: "Where is NGC 4258?" });
  await wd("POST", `/element/${await find('[data-testid="send-button"]')}/click`, {});
  liveItems = await waitFor("the final answer", async () => {
    const items = await timeline();
    // The scripted answer's last words: the stream has ended.
    const done = items.some((i) => i.kind === "text" && i.text.includes("PGC 39600 and MCG+08-22-104."));
    const idle = await script(`return !document.querySelector('[data-testid="cancel-button"]')`);
    return done && idle ? items : null;
  }, 30000);
  const kinds = liveItems.map((i) => i.kind);
  assert(JSON.stringify(kinds) === JSON.stringify(["user", "thinking", "tool-call", "tool-result", "thinking", "text"]), `kinds ${kinds}`);
  const call = liveItems.find((i) => i.kind === "tool-call");
  assert(call.text.includes("query_target") && call.text.includes("NGC 4258"), `tool call: ${call.text}`);
  const result = liveItems.find((i) => i.kind === "tool-result");
  assert(result.text.includes("12:18:57.62") && result.text.includes("+47:18:13.4"), `result: ${result.text}`);
  assert(result.text.includes("M 106"), `result names M 106: ${result.text}`);
  await screenshot("ask-ngc4258.png");
});

await scenario("the session is in the list and replays the same items from the database", async () => {
  const entry = await waitFor("a session entry", async () => (await findAll('[data-testid="session-entry"]'))[0]);
  const entryText = await script("return arguments[0].textContent", [{ [ELEMENT]: entry }]);
  assert(entryText.includes("Where is NGC 4258?"), `entry: ${entryText}`);
  await wd("POST", `/element/${await find('[data-testid="new-session"]')}/click`, {});
  await waitFor("an empty timeline", async () => (await timeline()).length === 0);
  await wd("POST", `/element/${await find('[data-testid="session-entry"]')}/click`, {});
  const replayed = await waitFor("the replayed timeline", async () => {
    const items = await timeline();
    return items.length === liveItems.length ? items : null;
  });
  assert(JSON.stringify(replayed) === JSON.stringify(liveItems), `replay differs:\n${JSON.stringify(replayed)}\n${JSON.stringify(liveItems)}`);
  await screenshot("replay-ngc4258.png");
});

try { await wd("DELETE", ""); } catch { /* the app may already be gone */ }
cleanup();
rmSync(dataDir, { recursive: true, force: true });
console.log(`${results.passed} passed, ${results.failed} failed`);
process.exit(results.failed === 0 ? 0 : 1);

// Browser tests of the built UI (ui/dist) in Chromium through playwright-core, with the
// Tauri IPC mocked by e2e/browser/mock-ipc.ts: every panel, both languages, both themes.
// Run by `make test` after `npm run ui:build`; by hand: `node e2e/browser.mjs`.
// Needs Debian's `chromium` (CHROMIUM=/path overrides). Screenshots: e2e/artifacts/browser-*.png.

import { build } from "esbuild";
import { createServer } from "node:http";
import { readFile, mkdir } from "node:fs/promises";
import { extname, join, resolve, dirname, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "ui", "dist");
const artifacts = join(root, "e2e", "artifacts");
await mkdir(artifacts, { recursive: true });

const mock = await build({
  entryPoints: [join(root, "e2e/browser/mock-ipc.ts")],
  bundle: true,
  format: "iife",
  write: false,
  target: "es2022",
  absWorkingDir: join(root, "ui"),
  nodePaths: [join(root, "node_modules")],
});
const initScript = mock.outputFiles[0].text;

const TYPES = { ".pdf": "application/pdf", ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css", ".woff2": "font/woff2", ".woff": "font/woff", ".ttf": "font/ttf", ".svg": "image/svg+xml", ".png": "image/png" };
const server = createServer(async (request, response) => {
  const path = normalize(decodeURIComponent(new URL(request.url, "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
  const file = path.startsWith("/pdf/")
    ? join(root, "crates/testkit/fixtures/pdfs/celerite_ms.pdf")
    : join(dist, path === "/" ? "index.html" : path);
  try {
    const body = await readFile(file.startsWith(dist) || file.endsWith(".pdf") ? file : join(dist, "index.html"));
    response.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    response.end(body);
  } catch {
    response.writeHead(404).end();
  }
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});

const results = { passed: 0, failed: 0 };
function assert(condition, message) {
  if (!condition) throw new Error(`assertion failed: ${message}`);
}
async function scenario(name, body, { colorScheme = "light", locale = "en-US" } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme, locale });
  await context.addInitScript(initScript);
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(error.message));
  const started = Date.now();
  try {
    await page.goto(base);
    await page.getByTestId("question-input").waitFor();
    await body(page);
    assert(errors.length === 0, `page errors: ${errors.join("; ")}`);
    results.passed += 1;
    console.log(`ok   ${name} (${Date.now() - started} ms)`);
  } catch (error) {
    results.failed += 1;
    console.log(`FAIL ${name}: ${error.stack ?? error}`);
    await page.screenshot({ path: join(artifacts, `browser-failed-${name.replace(/\W+/g, "-")}.png`) }).catch(() => {});
  } finally {
    await context.close();
  }
}
const shot = (page, name) => page.screenshot({ path: join(artifacts, `browser-${name}.png`) });
const calls = (page, cmd) => page.evaluate((c) => window.__mock.calls.filter((call) => call.cmd === c).map((call) => call.args), cmd);

await scenario("research panel: a run with target card, plan, subagent, ask_user, permission, Markdown + math", async (page) => {
  await page.getByTestId("question-input").fill("Review the Hubble tension from TRGB distances");
  await page.getByTestId("question-input").press("Enter");
  await page.getByTestId("target-card").waitFor();
  assert((await page.getByTestId("target-card").textContent()).includes("12:18:57.62"), "coordinates on the card");
  await page.getByTestId("todo-list").waitFor();
  assert(await page.locator('[data-kind="subagent"]').count() === 1, "one subagent card");
  assert(await page.locator('[data-agent="reviewer"]').count() >= 1, "the subagent's call is nested");
  const card = page.getByTestId("ask-user-card");
  await card.waitFor();
  await shot(page, "ask-user");
  await card.getByRole("button", { name: "2019–2026" }).click();
  const permission = page.getByTestId("permission-card");
  await permission.waitFor();
  assert((await permission.textContent()).includes("ls ~/Papers"), "the full arguments are shown");
  assert(await permission.getByTestId("permission-grant-exact").isChecked(), "the exact command is the default grant");
  await permission.getByTestId("permission-grant-prefix").check();
  await permission.getByTestId("permission-grant-text").getByText("commands starting with “ls”").waitFor();
  await shot(page, "permission");
  await page.getByTestId("permission-allow-session").click();
  await page.locator(".answer .katex").first().waitFor();
  const answer = await page.locator(".answer").last().textContent();
  assert(answer.includes("For 2019–2026"), `the answer used the reply: ${answer}`);
  const answered = (await calls(page, "permission_answer"))[0];
  assert(answered.decision === "allowSession" && answered.rule === "run_bash(ls)", `allow the prefix for the session: ${JSON.stringify(answered)}`);
  await page.getByTestId("send-button").waitFor({ state: "visible" });
  await shot(page, "research");
});

await scenario("history: search and replay a stored session", async (page) => {
  await page.getByTestId("session-search").fill("TRGB");
  await page.getByText("Hubble tension from TRGB distances").click();
  await page.locator(".answer .katex").first().waitFor();
  const args = await calls(page, "sessions_list");
  assert(args.some((a) => a.query === "TRGB"), "the search reached the backend");
});

await scenario("session bundles: export and import through the app's own dialogs", async (page) => {
  await page.getByText("Hubble tension from TRGB distances").click();
  await page.getByTestId("session-export").click();
  await page.getByTestId("session-import").click();
  await page.locator(".answer .katex").first().waitFor();
  assert(JSON.stringify(await calls(page, "session_export")) === JSON.stringify([{ sessionId: "s1" }]), "export names the session only");
  assert(JSON.stringify(await calls(page, "session_import")) === JSON.stringify([{}]), "import names no path");
  assert((await page.evaluate(() => window.__mock.calls.filter((call) => call.cmd.startsWith("plugin:dialog")).length)) === 0, "the page opens no dialog itself");
});

await scenario("a 10,000-event session renders virtualised", async (page) => {
  // Warm the Markdown renderer, as a session opened before would have.
  await page.getByText("Hubble tension from TRGB distances").click();
  await page.locator(".answer .katex").first().waitFor();
  const elapsed = await page.evaluate(async () => {
    const entry = [...document.querySelectorAll('[data-testid="session-entry"] button')].find((b) => b.textContent.includes("10,000"));
    const started = performance.now();
    entry.click();
    await new Promise((resolve) => {
      const check = () => {
        const timeline = document.querySelector('[data-testid="timeline"]');
        // Drawn and in view: the last answer's formula inside the timeline's box.
        const formulas = timeline ? timeline.querySelectorAll(".answer .katex") : [];
        const last = formulas[formulas.length - 1]?.getBoundingClientRect();
        const view = timeline?.getBoundingClientRect();
        if (timeline?.dataset.count === "10000" && last && last.top >= view.top && last.bottom <= view.bottom) requestAnimationFrame(resolve);
        else requestAnimationFrame(check);
      };
      check();
    });
    return performance.now() - started;
  });
  const inDom = await page.getByTestId("timeline-item").count();
  assert(inDom < 200, `virtualised: ${inDom} items in the DOM`);
  // The end came first; the start follows, and the view stays at the end meanwhile.
  await page.locator('[data-testid="timeline"][data-pending="0"]').waitFor();
  // In the viewport, not only in the DOM: the list opens scrolled to its end.
  await page.waitForFunction(() => {
    const answer = [...document.querySelectorAll(".answer")].find((el) => el.textContent.startsWith("Answer 9999:"));
    const view = document.querySelector('[data-testid="timeline"]').getBoundingClientRect();
    const box = answer?.getBoundingClientRect();
    return box && box.top >= view.top && box.bottom <= view.bottom;
  });
  await page.getByTestId("timeline").evaluate((el) => { el.scrollTop = 0; });
  await page.getByText("Question 0", { exact: true }).waitFor();
  console.log(`     10,000 items rendered in ${elapsed.toFixed(0)} ms (UI only, IPC mocked); ${inDom} in the DOM`);
});

await scenario("library: list, filter, passages, details with notes, import, BibTeX", async (page) => {
  await page.getByTestId("nav-library").click();
  await page.getByTestId("library-row").first().waitFor();
  assert(await page.getByTestId("library-row").count() === 3, "three papers");
  await page.getByTestId("library-search").fill("cepheid");
  assert(await page.getByTestId("library-row").count() === 1, "filtered to one");
  await page.getByTestId("library-search").fill("TRGB zero point");
  await page.getByTestId("library-search-passages").click();
  await page.getByTestId("passages").getByText("We find H0 = 69.8").waitFor();
  await page.getByTestId("library-search").fill("");
  await page.getByText("The Carnegie-Chicago Hubble Program. VIII. TRGB H0").click();
  await page.getByTestId("paper-details").getByText("The headline TRGB value").waitFor();
  await page.getByTestId("open-pdf").click();
  const firstPage = page.locator('.pdf-page[data-page="1"]');
  await firstPage.locator(".textLayer span").nth(20).waitFor();
  const spans = firstPage.locator(".textLayer span");
  const a = await spans.nth(0).boundingBox();
  const b = await spans.nth(2).boundingBox();
  await page.mouse.move(a.x + 1, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(b.x + b.width - 1, b.y + b.height / 2, { steps: 5 });
  await page.mouse.up();
  const popover = page.getByTestId("highlight-popover");
  await popover.waitFor();
  await popover.locator("input").fill("Kernel definition");
  await shot(page, "pdf-viewer");
  await page.getByTestId("save-highlight").click();
  const note = (await calls(page, "note_add")).at(-1).note;
  assert(note.page === 1 && note.quote.length > 5 && note.rects.length > 0, `highlight note: ${JSON.stringify(note)}`);
  // Pages are drawn as they come near the view: all 31 have their place, few are drawn,
  // and the last is drawn once scrolled to.
  await page.locator('.pdf-page[data-page="31"]').waitFor({ state: "attached" });
  const drawnAtFirst = await page.locator(".pdf-page canvas").count();
  assert(drawnAtFirst > 0 && drawnAtFirst < 10, `${drawnAtFirst} of 31 pages drawn on opening`);
  await page.locator('.pdf-page[data-page="31"]').scrollIntoViewIfNeeded();
  await page.locator('.pdf-page[data-page="31"] canvas').waitFor();
  await page.locator('.pdf-page[data-page="31"] .textLayer span').first().waitFor();
  assert(await page.locator('.pdf-page[data-page="1"] canvas').count() === 0, "the first page, far away now, was let go");
  await page.getByTestId("pdf-close").click();
  await page.getByTestId("library-import").click();
  await page.getByText("1 imported").waitFor();
  assert((await calls(page, "library_import"))[0].pick === "files", "the app was asked to open its file dialog");
  await page.getByTestId("library-path").fill("/home/astro/Papers");
  await page.getByTestId("library-path-import").click();
  await page.getByText("1 imported").first().waitFor();
  assert((await calls(page, "library_import_paths"))[0].paths[0] === "/home/astro/Papers", "a typed path goes to the confirming command");
  await page.getByTestId("library-export-bib").click();
  await page.getByText("3 entries written to /home/astro/library.bib").waitFor();
  await shot(page, "library");
});

await scenario("links: a click opens ADS, arXiv, DOI, SIMBAD or the PDF outside, and the page stays put", async (page) => {
  const home = page.url();
  const opened = async () => (await calls(page, "plugin:opener|open_url")).map((args) => args.url);
  // A stored answer's Markdown links: a known site opens at once, another page only
  // through the app's question (link_open).
  await page.getByText("Hubble tension from TRGB distances").click();
  await page.getByRole("link", { name: "the paper" }).click();
  await page.getByRole("link", { name: "a blog post" }).click();
  // A target card's SIMBAD page, from a live run.
  await page.getByTestId("new-session").click();
  await page.getByTestId("question-input").fill("Where is NGC 4258?");
  await page.getByTestId("question-input").press("Enter");
  await page.getByTestId("target-card").getByTestId("link-simbad").click();
  // The library's list and details.
  await page.getByTestId("nav-library").click();
  const row = page.getByTestId("library-row").filter({ hasText: "Carnegie-Chicago" });
  await row.getByTestId("link-ads").click();
  assert((await row.getAttribute("aria-selected")) === "false", "a link does not select the row");
  await row.locator("td").first().click();
  const details = page.getByTestId("paper-details");
  await details.getByTestId("link-doi").click();
  await details.getByTestId("link-arxivPdf").click();
  await details.getByTestId("stored-file").getByTestId("pdf-open-system").click();
  await details.getByTestId("stored-file").getByTestId("pdf-show-folder").click();
  await page.waitForFunction(() => window.__mock.calls.filter((c) => c.cmd === "library_show_pdf").length === 1);
  const urls = await opened();
  assert(JSON.stringify(urls) === JSON.stringify([
    "https://arxiv.org/abs/1907.05922",
    "https://simbad.cds.unistra.fr/simbad/sim-id?Ident=M%20106",
    "https://ui.adsabs.harvard.edu/abs/2019ApJ...882...34F/abstract",
    "https://doi.org/10.3847/1538-4357/ab2f73",
    "https://arxiv.org/pdf/1907.05922",
  ]), `opened: ${JSON.stringify(urls)}`);
  assert(JSON.stringify(await calls(page, "link_open")) === JSON.stringify([{ url: "https://example.org/h0" }]), "the other page goes through the app's question");
  assert(JSON.stringify(await calls(page, "library_open_pdf")) === JSON.stringify([{ paperId: "p1", sha256: "p1" }]), "the stored PDF by paper and file, not by path");
  assert(page.url() === home, `the page stayed at ${home}, now ${page.url()}`);
  assert(page.context().pages().length === 1, "no window was opened");
  await shot(page, "links");
});

await scenario("metrics: totals, charts and cost", async (page) => {
  await page.getByTestId("nav-metrics").click();
  await page.getByTestId("tokens-chart").waitFor();
  assert((await page.getByTestId("tokens-in").textContent()) === "5,400", "900+1800+2700 tokens in");
  assert(await page.getByTestId("tokens-chart").getByTestId("chart-bar").count() === 3, "a bar per step");
  await page.getByTestId("tools-chart").getByText("search_papers").waitFor();
  await shot(page, "metrics");
});

await scenario("audit log: pages and filters", async (page) => {
  await page.getByTestId("nav-audit").click();
  await page.getByTestId("audit-row").first().waitFor();
  assert(await page.getByTestId("audit-row").count() === 50, "a page of 50");
  await page.getByTestId("audit-filter-decision").selectOption("deny");
  await page.getByTestId("audit-range").getByText("1–25 / 25").waitFor();
  await page.getByTestId("audit-row").first().click();
  assert((await page.getByTestId("audit-arguments").textContent()).includes("[REDACTED]"), "redacted");
  await shot(page, "audit");
});

await scenario("settings: presets and masked keys", async (page) => {
  await page.getByTestId("nav-settings").click();
  const key = page.getByTestId("setting-LLM_API_KEY");
  await key.waitFor();
  assert((await key.getAttribute("type")) === "password" && (await key.inputValue()) === "", "key masked and empty");
  await page.getByTestId("setting-preset").selectOption("deepseek");
  assert((await page.getByTestId("setting-LLM_MODEL").inputValue()) === "deepseek-chat", "preset fills the model");
  await page.getByTestId("settings-save").click();
  await page.getByText("Settings saved").waitFor();
  const saved = (await calls(page, "settings_save"))[0];
  assert(saved.secrets.length === 0, "no key sent when none was typed");
  assert((await page.getByTestId("workspace-folder").textContent()).includes("none"), "no workspace at first");
  await page.getByTestId("workspace-choose").click();
  await page.getByTestId("workspace-folder").getByText("/home/astro/thesis").waitFor();
  await page.getByTestId("workspace-clear").click();
  await page.getByTestId("workspace-folder").getByText("none", { exact: false }).waitFor();
  await shot(page, "settings");
});

await scenario("Chinese UI and dark theme", async (page) => {
  await page.getByTestId("toggle-language").click();
  await page.getByTestId("send-button").getByText("发送").waitFor();
  await page.getByTestId("nav-library").click();
  await page.getByText("导入 PDF 或文献库…").waitFor();
  await page.getByTestId("toggle-theme").click();
  assert((await page.evaluate(() => document.documentElement.dataset.theme)) === "dark", "dark theme");
  const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert(background === "rgb(20, 23, 28)", `dark background, got ${background}`);
  await shot(page, "library-zh-dark");
});

await scenario("a system in Chinese starts in Chinese", async (page) => {
  await page.getByTestId("send-button").getByText("发送").waitFor();
}, { locale: "zh-CN" });

await browser.close();
server.close();
console.log(`${results.passed} passed, ${results.failed} failed`);
process.exit(results.failed === 0 ? 0 : 1);
